//! Search filters on document metadata: `{"key": value | [values]}`. A chunk matches when, for
//! every key, its document's metadata holds that value (or one of the listed values) at that key.

use serde_json::{Map, Value};

/// A checked filter: for each key, the values it may equal (one of them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter(Vec<(String, Vec<Value>)>);

impl Filter {
    /// The filter of a search body (checked by its reader): a list per key, a single value as a
    /// list of one.
    pub fn of(object: Option<Map<String, Value>>) -> Filter {
        Filter(
            object
                .unwrap_or_default()
                .into_iter()
                .map(|(key, value)| match value {
                    Value::Array(items) => (key, items),
                    v => (key, vec![v]),
                })
                .collect(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The metadata keys it tests (search analytics log them, not the values).
    pub fn keys(&self) -> Vec<String> {
        self.0.iter().map(|(k, _)| k.clone()).collect()
    }

    /// The SQL condition on `c.metadata` (empty without keys), its parameters numbered from
    /// `first`, and the JSON objects to bind to them in order. Each value is one containment test
    /// (`metadata @> {"key": value}`), which the GIN index on `metadata` answers.
    pub fn sql(&self, first: usize) -> (String, Vec<Value>) {
        self.sql_on("c.metadata", first)
    }

    /// As [`Filter::sql`], checked on each row a vector graph scan returns rather than through
    /// the GIN index: the planner takes containment for rare (it estimates 0.1 %) and would
    /// otherwise read every matching row and sort them all by distance, 50 ms for a filter
    /// keeping 10,000 chunks. The index cannot answer `coalesce(...)`, so the graph is the plan.
    pub fn sql_per_row(&self, first: usize) -> (String, Vec<Value>) {
        self.sql_on("coalesce(c.metadata, '{}')", first)
    }

    fn sql_on(&self, column: &str, first: usize) -> (String, Vec<Value>) {
        let mut binds = Vec::new();
        let mut clauses = Vec::with_capacity(self.0.len());
        for (key, values) in &self.0 {
            let tests: Vec<String> = values
                .iter()
                .map(|v| {
                    binds.push(Value::Object(Map::from_iter([(key.clone(), v.clone())])));
                    format!("{column} @> ${}", first + binds.len() - 1)
                })
                .collect();
            clauses.push(format!("({})", tests.join(" or ")));
        }
        let sql = clauses
            .iter()
            .map(|c| format!(" and {c}"))
            .collect::<String>();
        (sql, binds)
    }

    /// The language the filter pins (`language` or `lang` with one string value), if any.
    pub fn language(&self) -> Option<&str> {
        self.0
            .iter()
            .filter(|(k, _)| super::language::KEYS.contains(&k.as_str()))
            .find_map(|(_, values)| match values.as_slice() {
                [Value::String(s)] => Some(s.as_str()),
                _ => None,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A search body's filter, read as the route reads it.
    fn read(v: Value) -> Result<Filter, shipmate_types::input::Invalid> {
        shipmate_types::input::Input::new(json!({ "query": "q", "filter": v }))
            .expect("an object")
            .parse::<shipmate_types::kb::SearchQuery>()
            .map(|q| Filter::of(q.filter))
    }

    #[test]
    fn values_and_lists_become_containment_tests() {
        let f = read(json!({"tenant": "acme", "tier": [1, 2]})).expect("valid");
        let (sql, binds) = f.sql(4);
        assert_eq!(
            sql,
            " and (c.metadata @> $4) and (c.metadata @> $5 or c.metadata @> $6)"
        );
        assert_eq!(
            binds,
            vec![
                json!({"tenant": "acme"}),
                json!({"tier": 1}),
                json!({"tier": 2})
            ]
        );
        assert_eq!(Filter::default().sql(1), (String::new(), vec![]));
    }

    #[test]
    fn objects_nested_lists_and_empty_lists_are_refused_by_key() {
        let err = read(json!({"a": {"b": 1}, "c": [[1]], "d": [], "e": "ok"})).unwrap_err();
        let text = format!("{err:?}");
        for field in ["filter.a", "filter.c", "filter.d"] {
            assert!(text.contains(field), "{text}");
        }
        assert!(!text.contains("filter.e"), "{text}");
        assert!(read(json!("tenant")).is_err());
    }

    #[test]
    fn a_single_language_value_is_the_query_language() {
        let f = read(json!({"lang": "de", "tenant": ["a", "b"]})).expect("valid");
        assert_eq!(f.language(), Some("de"));
        assert_eq!(
            read(json!({"language": ["de", "fr"]})).unwrap().language(),
            None
        );
    }
}
