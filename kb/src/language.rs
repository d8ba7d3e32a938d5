//! The PostgreSQL text search configuration for a document's language, named in its metadata.

use serde_json::{Map, Value};

/// Metadata keys that name a document's language.
pub const KEYS: [&str; 2] = ["language", "lang"];

/// Without a language, text is read as English: most corpora are, and the English parser keeps
/// codes such as `E1234`, `ERR-4711` and SKUs whole while dropping stop words from queries.
pub const DEFAULT: &str = "english";

/// PostgreSQL's built-in configurations, by ISO 639-1 code and by name.
const CONFIGS: [(&str, &str); 28] = [
    ("ar", "arabic"),
    ("hy", "armenian"),
    ("eu", "basque"),
    ("ca", "catalan"),
    ("da", "danish"),
    ("nl", "dutch"),
    ("en", "english"),
    ("fi", "finnish"),
    ("fr", "french"),
    ("de", "german"),
    ("el", "greek"),
    ("hi", "hindi"),
    ("hu", "hungarian"),
    ("id", "indonesian"),
    ("ga", "irish"),
    ("it", "italian"),
    ("lt", "lithuanian"),
    ("ne", "nepali"),
    ("no", "norwegian"),
    ("pt", "portuguese"),
    ("ro", "romanian"),
    ("ru", "russian"),
    ("sr", "serbian"),
    ("es", "spanish"),
    ("sv", "swedish"),
    ("ta", "tamil"),
    ("tr", "turkish"),
    ("yi", "yiddish"),
];

/// The configuration for a language code (`de`, `de-AT`, `pt_BR`) or name (`German`), if
/// PostgreSQL has one; `simple` is accepted too (no stemming, no stop words).
pub fn config(language: &str) -> Option<&'static str> {
    let l = language.trim().to_ascii_lowercase();
    let code = l.split(['-', '_']).next().unwrap_or_default();
    if l == "simple" {
        return Some("simple");
    }
    let code = match code {
        "nb" | "nn" => "no",
        c => c,
    };
    CONFIGS
        .iter()
        .find(|(c, name)| *c == code || *name == l)
        .map(|(_, name)| *name)
}

/// The configuration of a document with this metadata: its language's, else [`DEFAULT`].
pub fn of_metadata(metadata: &Map<String, Value>) -> &'static str {
    KEYS.iter()
        .filter_map(|k| metadata.get(*k)?.as_str())
        .find_map(config)
        .unwrap_or(DEFAULT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codes_names_and_regions_map_to_configs() {
        assert_eq!(config("de"), Some("german"));
        assert_eq!(config("German"), Some("german"));
        assert_eq!(config("pt-BR"), Some("portuguese"));
        assert_eq!(config("nb"), Some("norwegian"));
        assert_eq!(config("klingon"), None);
        let meta = json!({"lang": "fr"});
        assert_eq!(of_metadata(meta.as_object().unwrap()), "french");
        assert_eq!(of_metadata(&Map::new()), DEFAULT);
    }
}
