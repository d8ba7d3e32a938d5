//! Output for people (aligned tables) and for scripts (`--json`: the raw response).

use comfy_table::{presets, CellAlignment, Table};
use serde_json::Value;

/// Prints a JSON value as the API sent it (pretty-printed).
pub fn print_json(value: &Value) -> anyhow::Result<()> {
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

/// A JSON scalar as text: strings bare, `null` as `-`.
pub fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".to_owned(),
        Value::String(s) => s.clone(),
        Value::Bool(true) => "yes".to_owned(),
        Value::Bool(false) => "no".to_owned(),
        other => other.to_string(),
    }
}

/// The elements of `value[key]`, or none.
pub fn items<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value[key].as_array().map(Vec::as_slice).unwrap_or(&[])
}

/// An RFC 3339 timestamp as `YYYY-MM-DD HH:MM` (UTC), `-` when absent.
pub fn when(v: &Value) -> String {
    match v.as_str() {
        Some(s) => s.get(..16).unwrap_or(s).replace('T', " "),
        None => "-".to_owned(),
    }
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
