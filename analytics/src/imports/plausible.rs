//! Plausible's CSV export as its exporter writes it (`Plausible.Exports.export_queries`): a ZIP of
//! `imported_<table>_<first>_<last>.csv` files (stored uncompressed; a ZIP made again by hand may
//! deflate them), each a CSV with a header row (ClickHouse's `CSVWithNames`), or one of those
//! files alone. Columns are found by their header names: the export has gained columns over time,
//! and each table needs few of them.

use std::collections::HashMap;
use std::io::{Cursor, Read};

use chrono::NaiveDate;

use super::{Daily, Figures, Kind};

/// Plausible's tables read, each with the column its rows are keyed on (none for the totals).
const TABLES: [(&str, Option<&str>); 10] = [
    ("visitors", None),
    ("sources", None),
    ("pages", Some("page")),
    ("entry_pages", Some("entry_page")),
    ("exit_pages", Some("exit_page")),
    ("custom_events", Some("name")),
    ("locations", Some("country")),
    ("devices", Some("device")),
    ("browsers", Some("browser")),
    ("operating_systems", Some("operating_system")),
];

/// The sources table's columns, each feeding one read.
const SOURCES: [(&str, Kind); 4] = [
    ("referrer", Kind::Referrer),
    ("utm_source", Kind::UtmSource),
    ("utm_medium", Kind::UtmMedium),
    ("utm_campaign", Kind::UtmCampaign),
];

/// Why a file is not a Plausible export (422 `unsupported_import`).
#[derive(Debug)]
pub struct Unsupported(pub String);

/// One CSV of the export.
pub struct Table {
    name: &'static str,
    bytes: Vec<u8>,
}

/// The export's tables in `bytes` (a ZIP, or the CSV named `file_name`), each checked for the
/// columns it needs; refused when there is none of Plausible's.
pub fn tables(file_name: &str, bytes: Vec<u8>) -> Result<Vec<Table>, Unsupported> {
    let found = if bytes.starts_with(b"PK\x03\x04") {
        unzip(bytes)?
    } else {
        let name = table_named(file_name)
            .or_else(|| table_by_header(&bytes))
            .ok_or_else(|| {
                Unsupported(format!(
                    "{file_name} is not one of Plausible's CSV files (imported_pages_....csv, ...)"
                ))
            })?;
        vec![Table { name, bytes }]
    };
    if found.is_empty() {
        return Err(Unsupported(
            "the ZIP holds none of Plausible's CSV files (imported_visitors_....csv, ...)".into(),
        ));
    }
    for t in &found {
        let header = header(&t.bytes);
        for needed in needs(t.name) {
            if !header.iter().any(|h| h == needed) {
                return Err(Unsupported(format!(
                    "imported_{}: no column `{needed}`",
                    t.name
                )));
            }
        }
        if t.name == "sources" && !SOURCES.iter().any(|(c, _)| header.contains(&c.to_string())) {
            return Err(Unsupported(
                "imported_sources: no referrer or UTM column".into(),
            ));
        }
    }
    Ok(found)
}

fn unzip(bytes: Vec<u8>) -> Result<Vec<Table>, Unsupported> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| Unsupported(format!("not a readable ZIP: {e}")))?;
    let mut found = Vec::new();
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .map_err(|e| Unsupported(format!("not a readable ZIP: {e}")))?;
        let path = entry.name().map(|n| n.into_owned()).unwrap_or_default();
        let Some(name) = table_named(&path) else {
            continue;
        };
        let mut bytes = Vec::with_capacity(entry.size() as usize);
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| Unsupported(format!("{path}: {e}")))?;
        found.push(Table { name, bytes });
    }
    Ok(found)
}

/// The table a file's name says: `imported_<table>` with an optional `_<first>_<last>` (dates as
/// eight digits) and `.csv`, in any folder.
fn table_named(path: &str) -> Option<&'static str> {
    let base = path.rsplit(['/', '\\']).next()?.strip_suffix(".csv")?;
    let mut stem = base.strip_prefix("imported_")?;
    let dated = |s: &str| s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((rest, last)) = stem.rsplit_once('_') {
        if let Some((rest, first)) = rest.rsplit_once('_') {
            if dated(first) && dated(last) {
                stem = rest;
            }
        }
    }
    TABLES.iter().map(|(t, _)| *t).find(|t| *t == stem)
}

/// A lone CSV renamed by its owner: the table its header's key column says.
fn table_by_header(bytes: &[u8]) -> Option<&'static str> {
    let header = header(bytes);
    let has = |c: &str| header.iter().any(|h| h == c);
    if !has("date") {
        return None;
    }
    TABLES
        .iter()
        .find(|(_, key)| key.is_some_and(has))
        .map(|(t, _)| *t)
        .or_else(|| SOURCES.iter().any(|(c, _)| has(c)).then_some("sources"))
        .or_else(|| (has("visit_duration") && has("visits")).then_some("visitors"))
}

fn header(bytes: &[u8]) -> Vec<String> {
    csv::Reader::from_reader(bytes)
        .headers()
        .map(|h| h.iter().map(|c| c.trim().to_owned()).collect())
        .unwrap_or_default()
}

/// The columns a table cannot do without.
fn needs(table: &str) -> Vec<&'static str> {
    let key = TABLES
        .iter()
        .find(|(t, _)| *t == table)
        .and_then(|(_, k)| *k);
    ["date", "visitors"].into_iter().chain(key).collect()
}

/// Every row of the tables as daily figures per read and value, summed per day, kind and value;
/// the first error names the file and the line.
pub fn daily(tables: &[Table]) -> Result<Daily, String> {
    let mut out: Daily = HashMap::new();
    for t in tables {
        let mut reader = csv::Reader::from_reader(t.bytes.as_slice());
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| format!("imported_{}: {e}", t.name))?
            .iter()
            .map(|c| c.trim().to_owned())
            .collect();
        let col = |name: &str| header.iter().position(|h| h == name);
        let date = col("date").unwrap_or(0);
        let number = |names: &[&str]| names.iter().find_map(|n| col(n));
        let (visitors, views, visits, bounces, duration) = (
            col("visitors"),
            number(&["pageviews", "events"]),
            number(&["visits", "entrances", "exits"]),
            col("bounces"),
            col("visit_duration"),
        );
        let keyed: Vec<(Option<usize>, Kind)> = match t.name {
            "sources" => SOURCES.iter().map(|(c, k)| (col(c), *k)).collect(),
            "visitors" => vec![(None, Kind::Total)],
            name => vec![(
                TABLES
                    .iter()
                    .find(|(t, _)| *t == name)
                    .and_then(|(_, k)| col(k.unwrap_or_default())),
                Kind::of_table(name),
            )],
        };
        for (line, record) in reader.records().enumerate() {
            let at = |e: String| format!("imported_{} line {}: {e}", t.name, line + 2);
            let record = record.map_err(|e| at(e.to_string()))?;
            let field = |c: Option<usize>| c.and_then(|c| record.get(c)).unwrap_or("").trim();
            let day = NaiveDate::parse_from_str(field(Some(date)), "%Y-%m-%d")
                .map_err(|_| at(format!("`{}` is not a date", field(Some(date)))))?;
            let num = |c: Option<usize>| -> Result<i64, String> {
                match field(c) {
                    "" | "\\N" => Ok(0),
                    v => v
                        .parse::<f64>()
                        .ok()
                        .filter(|n| n.is_finite() && *n >= 0.0)
                        .map(|n| n.round() as i64)
                        .ok_or_else(|| at(format!("`{v}` is not a count"))),
                }
            };
            let figures = Figures {
                visitors: num(visitors)?,
                views: num(views)?,
                visits: num(visits)?,
                bounces: num(bounces)?,
                duration: num(duration)?,
            };
            for (c, kind) in &keyed {
                let key = match kind {
                    Kind::Total => Some(String::new()),
                    _ => kind.normalize(field(*c)),
                };
                if let Some(key) = key {
                    out.entry((day, *kind, key)).or_default().add(&figures);
                }
            }
        }
    }
    Ok(out)
}
