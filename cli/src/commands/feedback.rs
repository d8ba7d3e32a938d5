//! `shipmate feedback ...`

use shipmate_types::common::List;
use shipmate_types::feedback::{Feedback, FeedbackChanges};

use super::{project_id, seg};
use crate::cli::FeedbackCommand;
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{align_right, one_line, or_dash, print_table, table, when};

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
            ctx.show(&list, |list: List<Feedback>| {
                let mut t = table(&["ID", "TYPE", "STATUS", "SCORE", "TITLE", "FROM", "CREATED"]);
                for f in list.data {
                    t.add_row(vec![
                        f.id.to_string(),
                        f.kind.to_string(),
                        f.status.to_string(),
                        f.score.to_string(),
                        one_line(&f.title, 60),
                        or_dash(f.submitter_email),
                        when(f.created_at),
                    ]);
                }
                align_right(&mut t, &[3]);
                print_table(&t, "No feedback matches.");
                Ok(())
            })
        }
        FeedbackCommand::SetStatus { id, status } => {
            let updated = ctx
                .client
                .patch(
                    &format!("/v1/feedback/{}", seg(&id)),
                    Auth::Session,
                    &[],
                    &FeedbackChanges {
                        status: Some(status),
                        ..FeedbackChanges::default()
                    },
                )
                .await?;
            ctx.show(&updated, |entry: Feedback| {
                println!("Feedback {id} is now {}", entry.status);
                Ok(())
            })
        }
        FeedbackCommand::Delete { id } => {
            let deleted = ctx
                .client
                .delete(&format!("/v1/feedback/{}", seg(&id)), Auth::Session)
                .await?;
            ctx.done(&deleted, &format!("Deleted feedback {id}"))
        }
    }
}
