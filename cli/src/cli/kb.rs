//! `shipmate kb ...`: uploading documents, searching and deleting by external id.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::{Map, Value};

use super::ProjectArg;

#[derive(Subcommand, Debug)]
pub enum KbCommand {
    /// Upload files, or whole folders recursively (.md, .txt, .html, .pdf).
    ///
    /// Each file becomes one document, upserted by its external id: uploading the same file again
    /// replaces its document (unchanged chunks keep their vectors). The external id is
    /// --external-id for a single file, else the file's path relative to the folder given (a file
    /// named directly: the path as typed, or its name if absolute). Metadata gets {"path": <that
    /// path>} plus --metadata. Markdown and text files up to 102,400 bytes; HTML and PDF files up
    /// to 10 MB (the server extracts the text, which keeps the 102,400-byte limit). Other files
    /// in folders are skipped with a note. Exits 1 if any upload failed.
    Upload(UploadArgs),
    /// Search an index: by meaning (vector), by exact words (keyword) or both (hybrid).
    Search(SearchArgs),
    /// Ask a question: the instance's chat model answers from the index's best chunks (hybrid
    /// search unless --mode), written to the terminal as it arrives, then the sources it cites.
    /// The instance needs a chat API (SHIPMATE_CHAT_URL); --json prints the whole answer.
    Ask(SearchArgs),
    /// An index's documents by status: ready (searchable), pending (being embedded), failed.
    ///
    /// With --wait, shows documents ready of all as a progress bar until none is pending (a bulk
    /// load's progress), then the counts; exits 1 if any document failed.
    Status {
        #[command(flatten)]
        project: ProjectArg,
        /// Index id or name.
        #[arg(long, value_name = "INDEX")]
        index: String,
        /// Wait until no document is pending.
        #[arg(long)]
        wait: bool,
    },
    /// What an index was searched for: searches, no-result and click-through rates, and the top,
    /// no-result and low-confidence queries.
    Analytics {
        #[command(flatten)]
        project: ProjectArg,
        /// Index id or name.
        #[arg(long, value_name = "INDEX")]
        index: String,
        /// `7d`, `30d` (the default) or `90d`.
        #[arg(long, default_value = "30d")]
        period: String,
    },
    /// Search gaps: what people searched every index of the project for and did not find (no
    /// result, or only low-confidence ones), rewordings grouped, each with the closest public
    /// request (members).
    Gaps {
        #[command(flatten)]
        project: ProjectArg,
        /// `7d`, `30d` (the default) or `90d`.
        #[arg(long, default_value = "30d")]
        period: String,
    },
    /// Delete the document with this external id.
    Delete {
        #[command(flatten)]
        project: ProjectArg,
        /// Index id or name.
        #[arg(long, value_name = "INDEX")]
        index: String,
        /// The document's external id (for folder uploads: its relative path).
        #[arg(long, value_name = "ID")]
        external_id: String,
    },
}

#[derive(Args, Debug)]
pub struct UploadArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    /// Index id or name.
    #[arg(long, value_name = "INDEX")]
    pub index: String,
    /// The document's external id (1 to 256 characters), for a single file only. Default: the
    /// file's relative path.
    #[arg(long, value_name = "ID")]
    pub external_id: Option<String>,
    /// Metadata for every uploaded document, a JSON object, e.g. '{"lang": "en"}'.
    #[arg(long, value_name = "JSON", value_parser = json_object)]
    pub metadata: Option<Map<String, Value>>,
    /// Uploads in flight at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub concurrency: u16,
    /// After uploading, wait until every document of the index is embedded (as `kb status
    /// --wait`): a bulk load's progress as documents ready of all.
    #[arg(long)]
    pub wait: bool,
    /// Files and folders to upload.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    /// Index id or name.
    #[arg(long, value_name = "INDEX")]
    pub index: String,
    /// What to look for (`kb ask`: the question).
    pub query: String,
    /// Number of results (1 to 20).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u8).range(1..=20))]
    pub top_k: u8,
    /// vector (by meaning, the default), keyword (full-text) or hybrid (both, rank-fused).
    #[arg(long, value_parser = ["vector", "keyword", "hybrid"])]
    pub mode: Option<String>,
    /// Only documents whose metadata has key=value (repeat: every key must match; the same key
    /// twice: any of its values). Values are strings; key:=<json> gives a number or boolean.
    #[arg(long = "filter", value_name = "KEY=VALUE", value_parser = filter_pair)]
    pub filters: Vec<(String, Value)>,
}

fn json_object(s: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(s) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("must be a JSON object, e.g. '{\"lang\": \"en\"}'".to_owned()),
        Err(e) => Err(format!("not JSON: {e}")),
    }
}

/// `lang=en` (a string) or `version:=2` (JSON: a number, boolean or string).
fn filter_pair(s: &str) -> Result<(String, Value), String> {
    let (key, value) = s
        .split_once('=')
        .ok_or_else(|| "expected KEY=VALUE".to_owned())?;
    let (key, value) = match key.strip_suffix(':') {
        Some(key) => {
            let v: Value = serde_json::from_str(value).map_err(|e| format!("not JSON: {e}"))?;
            if v.is_object() || v.is_array() {
                return Err("a filter value is a string, number or boolean".to_owned());
            }
            (key, v)
        }
        None => (key, Value::String(value.to_owned())),
    };
    if key.trim().is_empty() {
        return Err("the key is empty".to_owned());
    }
    Ok((key.trim().to_owned(), value))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::filter_pair;

    #[test]
    fn filters_are_strings_unless_typed_as_json() {
        assert_eq!(
            filter_pair("lang=en").unwrap(),
            ("lang".into(), json!("en"))
        );
        assert_eq!(filter_pair("v:=2").unwrap(), ("v".into(), json!(2)));
        assert_eq!(filter_pair("a=b=c").unwrap(), ("a".into(), json!("b=c")));
        assert!(filter_pair("novalue").is_err());
        assert!(filter_pair("o:={}").is_err());
    }
}
