//! Output for people (aligned tables) and for scripts (`--json`: the raw response).

use std::fmt::Display;

use chrono::{DateTime, Utc};
use comfy_table::{presets, CellAlignment, Table};
use serde::Serialize;

/// Prints JSON, pretty: an answer as the API sent it, or what the CLI itself reports.
pub fn print_json(value: &impl Serialize) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// A borderless table with aligned columns, like `kubectl get` or `gh` print.
pub fn table(headers: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::NOTHING);
    t.set_header(headers.to_vec());
    t
}

/// Right-aligns the given (numeric) columns.
pub fn align_right(t: &mut Table, columns: &[usize]) {
    for &i in columns {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// Two columns, label and value, without a header.
pub fn pairs(rows: &[(&str, String)]) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::NOTHING);
    for (label, value) in rows {
        t.add_row(vec![(*label).to_owned(), value.clone()]);
    }
    t
}

/// A table, or `empty` when it has no rows.
pub fn print_table(t: &Table, empty: &str) {
    if t.is_empty() {
        println!("{empty}");
    } else {
        println!("{t}");
    }
}

/// A value, or `-` when absent.
pub fn or_dash(v: Option<impl Display>) -> String {
    v.map_or_else(|| "-".to_owned(), |v| v.to_string())
}

/// A timestamp as `YYYY-MM-DD HH:MM` (UTC), `-` when absent (a draft's `published_at`).
pub fn when(t: impl Into<Option<DateTime<Utc>>>) -> String {
    or_dash(t.into().map(|t| t.format("%Y-%m-%d %H:%M")))
}

/// Text on one line, at most `max` characters (an ellipsis marks the cut).
pub fn one_line(s: &str, max: usize) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// "1 document", "2 documents".
pub fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}
