//! `Accept: text/csv` on the analytics reads: any typed response, as its JSON, becomes one
//! table (RFC 4180). The rows are the body's `data` list; a body without one gives the items of its
//! first list (`utm`'s sources, `realtime`'s pages), and a body without lists is one row (the
//! overview). The header row is the rows' JSON field names, in the order the type declares them.
//! Text that a spreadsheet would run as a formula gets a leading `'` (see `defuse`).

use crate::problem::ApiError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::Value;

pub const CSV: &str = "text/csv";

/// The representation the client asked for with `Accept`: JSON unless `text/csv` is preferred.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

impl Format {
    /// `text/csv` wins when it is acceptable (q > 0) and ranked at least as high as JSON; an
    /// equal rank goes to the one listed first. Anything else (no header, `*/*`) is JSON.
    pub fn from_accept(accept: &str) -> Self {
        let mut csv: Option<(f32, usize)> = None;
        let mut json: Option<(f32, usize)> = None;
        for (i, range) in accept.split(',').enumerate() {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            let slot = match media.as_str() {
                CSV => &mut csv,
                "application/json" => &mut json,
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some((q, i));
            }
        }
        match (csv, json) {
            (Some((qc, _)), _) if qc <= 0.0 => Format::Json,
            (Some(_), None) => Format::Csv,
            (Some((qc, ic)), Some((qj, ij))) if qc > qj || (qc == qj && ic < ij) => Format::Csv,
            _ => Format::Json,
        }
    }

    /// The body as JSON, or as CSV; either way with `Vary: Accept`, so caches keep both apart.
    /// `columns`: the header row when the list is empty (the rows' fields otherwise name it).
    pub fn respond<T: Serialize>(self, body: T, columns: &[&str]) -> Result<Response, ApiError> {
        let mut res = match self {
            Format::Json => Json(body).into_response(),
            Format::Csv => {
                let csv = to_csv(&body, columns).map_err(anyhow::Error::from)?;
                (
                    [(
                        header::CONTENT_TYPE,
                        HeaderValue::from_static("text/csv; charset=utf-8"),
                    )],
                    csv,
                )
                    .into_response()
            }
        };
        res.headers_mut()
            .insert(header::VARY, HeaderValue::from_static("accept"));
        Ok(res)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Format {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Ok(parts
            .headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(Format::from_accept)
            .find(|f| *f == Format::Csv)
            .unwrap_or(Format::Json))
    }
}

/// A JSON document with its objects' fields in the order they were written: `serde_json::Value`
/// sorts them (no `preserve_order` in this workspace), and the header row keeps the declared order.
#[derive(Debug)]
enum Node {
    Scalar(Value),
    List(Vec<Node>),
    Object(Vec<(String, Node)>),
}

impl<'de> serde::Deserialize<'de> for Node {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Node;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
                Ok(Node::Scalar(v.into()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
                Ok(Node::Scalar(v.into()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
                Ok(Node::Scalar(v.into()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
                Ok(Node::Scalar(v.into()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Node, E> {
                Ok(Node::Scalar(v.into()))
            }
            fn visit_unit<E>(self) -> Result<Node, E> {
                Ok(Node::Scalar(Value::Null))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Node::List(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
                let mut fields = Vec::new();
                while let Some(field) = map.next_entry()? {
                    fields.push(field);
                }
                Ok(Node::Object(fields))
            }
        }
        d.deserialize_any(V)
    }
}

impl Node {
    fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// The rows a body gives (see the module's comment).
fn rows(body: &Node) -> Vec<&Node> {
    match body {
        Node::Object(fields) => match body.get("data") {
            Some(Node::List(items)) => items.iter().collect(),
            _ => match fields.iter().find_map(|(_, v)| match v {
                Node::List(items) => Some(items),
                _ => None,
            }) {
                Some(items) => items.iter().collect(),
                None => vec![body],
            },
        },
        Node::List(items) => items.iter().collect(),
        Node::Scalar(_) => vec![body],
    }
}

/// One table: the header row of the rows' field names (first seen first), then a line per row,
/// each line ended by CRLF. The names come from the rows themselves; an empty list gives just the
/// header row of `empty`.
pub fn to_csv<T: Serialize>(body: &T, empty: &[&str]) -> Result<String, serde_json::Error> {
    let body: Node = serde_json::from_str(&serde_json::to_string(body)?)?;
    Ok(table(&body, empty))
}

fn table<'a>(body: &'a Node, empty: &[&'a str]) -> String {
    let rows = rows(body);
    let mut columns: Vec<&str> = if rows.is_empty() {
        empty.to_vec()
    } else {
        Vec::new()
    };
    for row in &rows {
        if let Node::Object(fields) = row {
            for (key, _) in fields {
                if !columns.contains(&key.as_str()) {
                    columns.push(key);
                }
            }
        }
    }
    let mut out = String::new();
    if columns.is_empty() {
        return out;
    }
    line(&mut out, columns.iter().map(|c| (*c).to_owned()));
    for row in rows {
        line(
            &mut out,
            columns
                .iter()
                .map(|c| row.get(c).map(cell).unwrap_or_default()),
        );
    }
    out
}

fn line(out: &mut String, cells: impl Iterator<Item = String>) {
    for (i, c) in cells.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&quote(&c));
    }
    out.push_str("\r\n");
}

/// A value as a cell's text: strings as they are (defused), null as nothing, anything nested as JSON.
fn cell(node: &Node) -> String {
    match node {
        Node::Scalar(Value::Null) => String::new(),
        Node::Scalar(Value::String(s)) => defuse(s),
        Node::Scalar(other) => other.to_string(),
        nested => nested.to_json().to_string(),
    }
}

impl Node {
    fn to_json(&self) -> Value {
        match self {
            Node::Scalar(v) => v.clone(),
            Node::List(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Node::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// Formula injection (OWASP "CSV injection"): visitors choose page paths, event names and
/// referrers, and a spreadsheet runs a cell beginning with `=`, `+`, `-`, `@`, a tab or a CR as a
/// formula; a leading `'` makes it text. Only strings: a number (`-3`) is no formula.
fn defuse(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

/// RFC 4180: a field holding a comma, a double quote, CR or LF is quoted, its quotes doubled.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(json: &str) -> String {
        table(&serde_json::from_str(json).unwrap(), &["page", "views"])
    }

    #[test]
    fn fields_with_commas_quotes_and_line_breaks_are_quoted_with_quotes_doubled() {
        let body = r#"{"period": "7d", "data": [
            {"page": "/a,b", "views": 2, "visitors": 1},
            {"page": "/say \"hi\"", "views": 1, "visitors": 1},
            {"page": "/x\r\ny", "views": 1, "visitors": null}
        ]}"#;
        assert_eq!(
            csv(body),
            "page,views,visitors\r\n\"/a,b\",2,1\r\n\"/say \"\"hi\"\"\",1,1\r\n\"/x\r\ny\",1,\r\n"
        );
    }

    #[test]
    fn text_a_spreadsheet_would_run_as_a_formula_gets_a_leading_quote() {
        let body = r#"{"data": [
            {"page": "=HYPERLINK(\"https://evil.example\",\"x\")", "views": -3},
            {"page": "+1+2", "views": 1},
            {"page": "-2+3", "views": 1},
            {"page": "@SUM(A1)", "views": 1},
            {"page": "\tcmd", "views": 1},
            {"page": "\r=1", "views": 1},
            {"page": "/a=b", "views": 1}
        ]}"#;
        assert_eq!(
            csv(body),
            "page,views\r\n\"'=HYPERLINK(\"\"https://evil.example\"\",\"\"x\"\")\",-3\r\n'+1+2,1\r\n'-2+3,1\r\n'@SUM(A1),1\r\n'\tcmd,1\r\n\"'\r=1\",1\r\n/a=b,1\r\n"
        );
    }

    #[test]
    fn a_body_without_lists_is_one_row_and_without_data_its_first_list_gives_the_rows() {
        let overview =
            r#"{"period": "30d", "page_views": 4, "top_page": null, "previous": {"a": 1}}"#;
        assert_eq!(
            csv(overview),
            "period,page_views,top_page,previous\r\n30d,4,,\"{\"\"a\"\":1}\"\r\n"
        );
        let realtime = r#"{"visitors": 1, "page_views": 2, "pages": [{"page": "/", "visitors": 1}], "more": []}"#;
        assert_eq!(csv(realtime), "page,visitors\r\n/,1\r\n");
        assert_eq!(csv(r#"{"period": "7d", "data": []}"#), "page,views\r\n");
    }

    #[test]
    fn the_header_keeps_the_declared_field_order() {
        #[derive(Serialize)]
        struct Row {
            zeta: i64,
            alpha: &'static str,
        }
        let body = serde_json::json!({"data": []});
        assert_eq!(to_csv(&body, &["zeta", "alpha"]).unwrap(), "zeta,alpha\r\n");
        assert_eq!(
            to_csv(
                &vec![Row {
                    zeta: 1,
                    alpha: "a"
                }],
                &[]
            )
            .unwrap(),
            "zeta,alpha\r\n1,a\r\n"
        );
    }

    #[test]
    fn csv_is_chosen_only_when_the_client_prefers_it() {
        for (accept, format) in [
            ("text/csv", Format::Csv),
            ("Text/CSV; charset=utf-8", Format::Csv),
            ("text/csv, application/json", Format::Csv),
            ("application/json, text/csv", Format::Json),
            ("application/json;q=0.5, text/csv", Format::Csv),
            ("text/csv;q=0", Format::Json),
            ("*/*", Format::Json),
            ("application/json", Format::Json),
            ("", Format::Json),
        ] {
            assert_eq!(Format::from_accept(accept), format, "{accept}");
        }
    }
}
