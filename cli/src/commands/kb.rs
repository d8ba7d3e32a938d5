//! Knowledge base: `shipmate indexes ...`, `shipmate kb upload|search|ask|gaps|delete` (and the earlier
//! names `docs upload`, `search`).
//! These are API-key endpoints; the CLI calls them with the session naming the project
//! (`X-Project-Id`), so members work here without the secret key owners and admins hold.

mod ask;
mod status;
mod upload;

use anyhow::anyhow;
use serde_json::{json, Map, Value};
use shipmate_types::common::List;
use shipmate_types::kb::{Index, NewIndex};

use super::{project_id, seg};
use crate::cli::{DocsCommand, IndexesCommand, KbCommand, SearchArgs};
use crate::client::{Auth, Client};
use crate::ctx::Ctx;
use crate::output::{align_right, one_line, or_dash, print_json, print_table, table};

pub async fn indexes(ctx: &Ctx, command: IndexesCommand) -> anyhow::Result<()> {
    match command {
        IndexesCommand::Create {
            project,
            name,
            model,
        } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let new = NewIndex {
                name,
                embedding_model: model,
                external_id: None,
            };
            let created = ctx
                .client
                .post("/v1/indexes", Auth::InProject(&pid), &new)
                .await?;
            ctx.show(&created, |index: Index| {
                println!(
                    "Created index {} ({}) using {} ({} dimensions)",
                    index.name, index.id, index.embedding_model, index.dimensions,
                );
                Ok(())
            })
        }
        IndexesCommand::List { project } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let list = ctx
                .client
                .get("/v1/indexes", Auth::InProject(&pid), &[])
                .await?;
            ctx.show(&list, |list: List<Index>| {
                let mut t = table(&["ID", "NAME", "MODEL", "DOCUMENTS", "CHUNKS"]);
                for i in list.data {
                    t.add_row(vec![
                        i.id.to_string(),
                        i.name,
                        i.embedding_model,
                        i.document_count.to_string(),
                        i.chunk_count.to_string(),
                    ]);
                }
                align_right(&mut t, &[3, 4]);
                print_table(
                    &t,
                    "No indexes yet. Create one with `shipmate indexes create`.",
                );
                Ok(())
            })
        }
        IndexesCommand::Delete { index, project } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let id = index_id(&ctx.client, &pid, &index).await?;
            let deleted = ctx
                .client
                .delete(&format!("/v1/indexes/{}", seg(&id)), Auth::InProject(&pid))
                .await?;
            let named = if id == index {
                id
            } else {
                format!("{index} ({id})")
            };
            ctx.done(&deleted, &format!("Deleted index {named}"))
        }
    }
}

pub async fn run(ctx: &Ctx, command: KbCommand) -> anyhow::Result<()> {
    match command {
        KbCommand::Upload(args) => upload::run(ctx, args).await,
        KbCommand::Search(args) => search(ctx, args).await,
        KbCommand::Ask(args) => ask::run(ctx, args).await,
        KbCommand::Status {
            project,
            index,
            wait,
        } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let index = index_id(&ctx.client, &pid, &index).await?;
            status::run(ctx, &pid, &index, wait).await
        }
        KbCommand::Analytics {
            project,
            index,
            period,
        } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let index = index_id(&ctx.client, &pid, &index).await?;
            status::analytics(ctx, &pid, &index, &period).await
        }
        KbCommand::Gaps { project, period } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            status::gaps(ctx, &pid, &period).await
        }
        KbCommand::Delete {
            project,
            index,
            external_id,
        } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let index = index_id(&ctx.client, &pid, &index).await?;
            let path = format!(
                "/v1/indexes/{}/documents/by-external-id/{}",
                seg(&index),
                seg(&external_id)
            );
            let deleted = ctx.client.delete(&path, Auth::InProject(&pid)).await?;
            ctx.done(&deleted, &format!("Deleted document {external_id}"))
        }
    }
}

pub async fn docs(ctx: &Ctx, command: DocsCommand) -> anyhow::Result<()> {
    match command {
        DocsCommand::Upload(args) => upload::run(ctx, args).await,
    }
}

/// The id of the index named by id or name. An id is taken as is (the server checks it); a name
/// is looked up among the project's indexes.
pub async fn index_id(client: &Client, pid: &str, id_or_name: &str) -> anyhow::Result<String> {
    if uuid::Uuid::parse_str(id_or_name).is_ok() {
        return Ok(id_or_name.to_owned());
    }
    let list: List<Index> = client
        .get_as("/v1/indexes", Auth::InProject(pid), &[])
        .await?;
    let named: Vec<(String, String)> = list
        .data
        .into_iter()
        .map(|i| (i.id.to_string(), i.name))
        .collect();
    pick_index(&named, id_or_name)
}

/// The id among `(id, name)` pairs for `name`: the exact name, else the one name equal to it
/// ignoring case (names are unique only as typed, so `Docs` and `docs` may both exist).
fn pick_index(indexes: &[(String, String)], name: &str) -> anyhow::Result<String> {
    let name = name.trim();
    if let Some((id, _)) = indexes.iter().find(|(_, n)| n == name) {
        return Ok(id.clone());
    }
    let alike: Vec<_> = indexes
        .iter()
        .filter(|(_, n)| n.to_lowercase() == name.to_lowercase())
        .collect();
    match alike.as_slice() {
        [(id, _)] => Ok(id.clone()),
        [] if indexes.is_empty() => Err(anyhow!(
            "this project has no index `{name}`, and no indexes at all; create one with `shipmate indexes create`"
        )),
        [] => {
            let names: Vec<_> = indexes.iter().map(|(_, n)| format!("`{n}`")).collect();
            Err(anyhow!(
                "this project has no index `{name}` (its indexes: {}); give an index's name or id",
                names.join(", ")
            ))
        }
        several => {
            let which: Vec<_> = several.iter().map(|(id, n)| format!("`{n}` ({id})")).collect();
            Err(anyhow!(
                "`{name}` is ambiguous: it matches {} ignoring case; give the exact name or the id",
                which.join(", ")
            ))
        }
    }
}

/// One result as printed; the answer is read as JSON so fields newer than this CLI's types
/// (`chunk_index`) show too.
struct Hit {
    score: f64,
    document_id: String,
    chunk_index: Option<i64>,
    metadata: Map<String, Value>,
    text: String,
}

pub async fn search(ctx: &Ctx, args: SearchArgs) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &args.project.project).await?;
    let index = index_id(&ctx.client, &pid, &args.index).await?;
    let query = search_body(args, "query");
    let answer = ctx
        .client
        .post(
            &format!("/v1/indexes/{}/search", seg(&index)),
            Auth::InProject(&pid),
            &query,
        )
        .await?;
    if ctx.json {
        return print_json(&answer.json);
    }
    let hits: Vec<Hit> = answer.json["results"]
        .as_array()
        .map(|rs| rs.iter().map(hit).collect())
        .unwrap_or_default();
    let mut t = table(&["#", "SCORE", "DOCUMENT", "CHUNK", "SOURCE", "TEXT"]);
    for (rank, h) in hits.into_iter().enumerate() {
        // Metadata is the uploader's own JSON; `kb upload` puts the file's path there.
        let source = h.metadata.get("path").and_then(Value::as_str);
        t.add_row(vec![
            (rank + 1).to_string(),
            format!("{:.4}", h.score),
            h.document_id,
            or_dash(h.chunk_index),
            or_dash(source),
            one_line(&h.text, 80),
        ]);
    }
    align_right(&mut t, &[0, 1, 3]);
    print_table(&t, "No results.");
    Ok(())
}

/// The API's body for a search (`text` the field the words go in: `query`, or an answer's
/// `question`).
pub(super) fn search_body(args: SearchArgs, text: &str) -> Value {
    let mut body = json!({ text: args.query, "top_k": args.top_k });
    if let Some(mode) = &args.mode {
        body["mode"] = json!(mode);
    }
    if !args.filters.is_empty() {
        body["filter"] = Value::Object(filter_object(args.filters));
    }
    body
}

fn hit(r: &Value) -> Hit {
    Hit {
        score: r["score"].as_f64().unwrap_or(0.0),
        document_id: r["document_id"].as_str().unwrap_or_default().to_owned(),
        chunk_index: r["chunk_index"].as_i64(),
        metadata: r["metadata"].as_object().cloned().unwrap_or_default(),
        text: r["chunk_content"].as_str().unwrap_or_default().to_owned(),
    }
}

/// `--filter` pairs as the API's filter object: a key given twice matches any of its values.
fn filter_object(pairs: Vec<(String, Value)>) -> Map<String, Value> {
    let mut filter = Map::new();
    for (key, value) in pairs {
        match filter.get_mut(&key) {
            None => {
                filter.insert(key, value);
            }
            Some(Value::Array(values)) => values.push(value),
            Some(first) => *first = json!([first.take(), value]),
        }
    }
    filter
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{filter_object, pick_index};

    #[test]
    fn an_index_is_found_by_its_exact_name_else_by_the_one_name_alike() {
        let indexes = [
            ("1".to_owned(), "docs".to_owned()),
            ("2".to_owned(), "Docs".to_owned()),
            ("3".to_owned(), "FAQ".to_owned()),
        ];
        assert_eq!(pick_index(&indexes, "Docs").unwrap(), "2");
        assert_eq!(pick_index(&indexes, " docs ").unwrap(), "1");
        assert_eq!(pick_index(&indexes, "faq").unwrap(), "3");
        let ambiguous = pick_index(&indexes, "DOCS").unwrap_err().to_string();
        assert!(
            ambiguous.contains("ambiguous")
                && ambiguous.contains("(1)")
                && ambiguous.contains("(2)"),
            "{ambiguous}"
        );
        let unknown = pick_index(&indexes, "blog").unwrap_err().to_string();
        assert!(
            unknown.contains("no index `blog`") && unknown.contains("`FAQ`"),
            "{unknown}"
        );
        let none = pick_index(&[], "blog").unwrap_err().to_string();
        assert!(none.contains("shipmate indexes create"), "{none}");
    }

    #[test]
    fn a_key_given_twice_matches_any_of_its_values() {
        let pairs = vec![
            ("lang".to_owned(), json!("en")),
            ("tier".to_owned(), json!("pro")),
            ("lang".to_owned(), json!("de")),
            ("lang".to_owned(), json!("fr")),
        ];
        assert_eq!(
            json!(filter_object(pairs)),
            json!({"lang": ["en", "de", "fr"], "tier": "pro"})
        );
    }
}
