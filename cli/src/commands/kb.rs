//! Knowledge base: `shipmate indexes ...`, `shipmate docs upload`, `shipmate search`.
//! These are API-key endpoints; the CLI calls them with the session naming the project
//! (`X-Project-Id`), so members work here without the secret key owners and admins hold.

mod upload;

use serde_json::Value;
use shipmate_types::common::List;
use shipmate_types::kb::{Index, NewIndex, SearchQuery, SearchResults};

use super::{project_id, seg};
use crate::cli::{DocsCommand, IndexesCommand, SearchArgs};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{align_right, one_line, or_dash, print_table, table};

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
            let deleted = ctx
                .client
                .delete(
                    &format!("/v1/indexes/{}", seg(&index)),
                    Auth::InProject(&pid),
                )
                .await?;
            ctx.done(&deleted, &format!("Deleted index {index}"))
        }
    }
}

pub async fn docs(ctx: &Ctx, command: DocsCommand) -> anyhow::Result<()> {
    match command {
        DocsCommand::Upload(args) => upload::run(ctx, args).await,
    }
}

pub async fn search(ctx: &Ctx, args: SearchArgs) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &args.project.project).await?;
    let query = SearchQuery {
        query: args.query,
        top_k: Some(i64::from(args.top_k)),
        ..Default::default()
    };
    let answer = ctx
        .client
        .post(
            &format!("/v1/indexes/{}/search", seg(&args.index)),
            Auth::InProject(&pid),
            &query,
        )
        .await?;
    ctx.show(&answer, |answer: SearchResults| {
        let mut t = table(&["#", "SCORE", "DOCUMENT", "SOURCE", "TEXT"]);
        for (rank, r) in answer.results.into_iter().enumerate() {
            // Metadata is the uploader's own JSON; `docs upload` puts the file's path there.
            let source = r.metadata.get("path").and_then(Value::as_str);
            t.add_row(vec![
                (rank + 1).to_string(),
                format!("{:.4}", r.score),
                r.document_id.to_string(),
                or_dash(source),
                one_line(&r.chunk_content, 80),
            ]);
        }
        align_right(&mut t, &[0, 1]);
        print_table(&t, "No results.");
        Ok(())
    })
}
