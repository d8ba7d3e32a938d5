//! `shipmate feedback ...`

use serde_json::json;

use super::{project_id, seg, Ctx};
use crate::cli::FeedbackCommand;
use crate::client::Auth;
use crate::output::{align_right, items, one_line, print_json, print_table, table, text, when};

pub async fn run(ctx: &Ctx, command: FeedbackCommand) -> anyhow::Result<()> {
    match command {
        FeedbackCommand::List {
            project,
            kind,
            status,
        } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let mut query = vec![("project_id", pid.as_str())];
            if let Some(k) = kind {
                query.push(("type", k.as_str()));
            }
            if let Some(s) = status {
                query.push(("status", s.as_str()));
            }
            let list = ctx
                .client
                .get("/v1/feedback", Auth::Session, &query)
                .await?;
            if ctx.json {
                return print_json(&list);
            }
            let mut t = table(&["ID", "TYPE", "STATUS", "SCORE", "TITLE", "FROM", "CREATED"]);
            for f in items(&list, "data") {
                t.add_row(vec![
                    text(&f["id"]),
                    text(&f["type"]),
                    text(&f["status"]),
                    text(&f["score"]),
                    one_line(&text(&f["title"]), 60),
                    text(&f["submitter_email"]),
                    when(&f["created_at"]),
                ]);
            }
            align_right(&mut t, &[3]);
            print_table(&t, "No feedback matches.");
            Ok(())
        }
        FeedbackCommand::SetStatus { id, status } => {
            let entry = ctx
                .client
                .patch(
                    &format!("/v1/feedback/{}", seg(&id)),
                    Auth::Session,
                    &[],
                    &json!({ "status": status }),
                )
                .await?;
            if ctx.json {
                return print_json(&entry);
            }
            println!("Feedback {id} is now {}", text(&entry["status"]));
            Ok(())
        }
        FeedbackCommand::Delete { id } => {
            let answer = ctx
                .client
                .delete(&format!("/v1/feedback/{}", seg(&id)), Auth::Session, &[])
                .await?;
            if ctx.json {
                return print_json(&answer);
            }
            println!("Deleted feedback {id}");
            Ok(())
        }
    }
}
