//! `shipmate feedback ...`

use shipmate_types::common::List;
use shipmate_types::customers::Voter;
use shipmate_types::feedback::{Comment, Feedback, FeedbackChanges, GitHubHook, MergeRequest};

use super::{pages, project_id, seg};
use crate::cli::FeedbackCommand;
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{align_right, one_line, or_dash, print_table, table, when};

pub async fn run(ctx: &Ctx, command: FeedbackCommand) -> anyhow::Result<()> {
    match command {
        FeedbackCommand::List {
            project,
            pages,
            kind,
            status,
            tag,
            sort,
            board,
        } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let mut query = vec![("project_id", pid.as_str())];
            if let Some(k) = kind {
                query.push(("type", k.as_str()));
            }
            if let Some(s) = status {
                query.push(("status", s.as_str()));
            }
            let tag = tag.map(|t| t.to_string());
            if let Some(t) = &tag {
                query.push(("tag", t.as_str()));
            }
            if let Some(s) = sort {
                query.push(("sort", s.as_str()));
            }
            if let Some(b) = &board {
                query.push(("board", b.as_str()));
            }
            let list = pages::fetch(ctx, "/v1/feedback", Auth::Session, &query, pages).await?;
            let footer = pages::footer(&list, pages);
            ctx.show(&list, |list: List<Feedback>| {
                let mut t = table(&[
                    "ID",
                    "TYPE",
                    "STATUS",
                    "MODERATION",
                    "SCORE",
                    "MRR",
                    "MUST",
                    "TITLE",
                    "TAGS",
                    "FROM",
                    "CREATED",
                ]);
                for f in list.data {
                    t.add_row(vec![
                        f.id.to_string(),
                        f.kind.to_string(),
                        f.status.to_string(),
                        f.moderation.to_string(),
                        f.score.to_string(),
                        format!("{:.0}", f.mrr.unwrap_or(0.0)),
                        f.importance.map_or(0, |i| i.must_have).to_string(),
                        one_line(&f.title, 60),
                        one_line(&super::tags::names(&f.tags), 40),
                        or_dash(f.submitter_email),
                        when(f.created_at),
                    ]);
                }
                align_right(&mut t, &[4, 5, 6]);
                print_table(&t, "No feedback matches.");
                if let Some(footer) = footer {
                    println!("{footer}");
                }
                Ok(())
            })
        }
        FeedbackCommand::SetStatus { id, status } => {
            let changes = FeedbackChanges {
                status: Some(status),
                ..FeedbackChanges::default()
            };
            change(ctx, &id, &changes, |e| e.status.to_string()).await
        }
        FeedbackCommand::Moderate { id, moderation } => {
            let changes = FeedbackChanges {
                moderation: Some(moderation),
                ..FeedbackChanges::default()
            };
            change(ctx, &id, &changes, |e| e.moderation.to_string()).await
        }
        FeedbackCommand::Merge { id, into } => {
            let target = ctx
                .client
                .post(
                    &format!("{}/merge", entry_path(&id)),
                    Auth::Session,
                    &MergeRequest { into },
                )
                .await?;
            ctx.show(&target, |entry: Feedback| {
                println!(
                    "Merged {id} into {}: {} (score {})",
                    entry.id,
                    one_line(&entry.title, 60),
                    entry.score
                );
                Ok(())
            })
        }
        FeedbackCommand::Comments { id } => {
            // Public for approved entries: no session needed.
            let list = ctx
                .client
                .get(&format!("{}/comments", entry_path(&id)), Auth::None, &[])
                .await?;
            ctx.show(&list, |list: List<Comment>| {
                let mut t = table(&["ID", "AUTHOR", "OFFICIAL", "CREATED", "COMMENT"]);
                for c in list.data {
                    t.add_row(vec![
                        c.id.to_string(),
                        one_line(&c.author.name, 30),
                        if c.official { "yes" } else { "-" }.to_owned(),
                        when(c.created_at),
                        one_line(&c.body, 80),
                    ]);
                }
                print_table(&t, "No comments yet.");
                Ok(())
            })
        }
        FeedbackCommand::Link { id, urls } => {
            let changes = FeedbackChanges {
                links: Some(urls),
                ..FeedbackChanges::default()
            };
            change(ctx, &id, &changes, |e| {
                let links = e.links.clone().unwrap_or_default();
                if links.is_empty() {
                    "linked to no issue".into()
                } else {
                    format!("linked to {}", links.join(", "))
                }
            })
            .await
        }
        FeedbackCommand::Voters { id } => {
            let list = ctx
                .client
                .get(&format!("{}/voters", entry_path(&id)), Auth::Session, &[])
                .await?;
            ctx.show(&list, |list: List<Voter>| {
                let mut t = table(&["NAME", "EMAIL", "COMPANY", "MRR", "IMPORTANCE", "VOTED"]);
                for v in list.data {
                    let (company, mrr) = v.company.map_or(("-".into(), "-".into()), |c| {
                        (c.name, c.mrr.map_or("-".into(), |m| format!("{m:.0}")))
                    });
                    t.add_row(vec![
                        one_line(&v.name, 30),
                        or_dash(v.email),
                        one_line(&company, 30),
                        mrr,
                        v.importance.to_string(),
                        when(v.voted_at),
                    ]);
                }
                align_right(&mut t, &[3]);
                print_table(&t, "No upvotes yet.");
                Ok(())
            })
        }
        FeedbackCommand::Tag { id, tags } => {
            let changes = FeedbackChanges {
                tags: Some(tags),
                ..FeedbackChanges::default()
            };
            change(ctx, &id, &changes, |e| {
                format!("tagged {}", super::tags::names(&e.tags))
            })
            .await
        }
        FeedbackCommand::Tags { command } => super::tags::run(ctx, command).await,
        FeedbackCommand::Move { id, board } => {
            let changes = FeedbackChanges {
                board: Some(board.clone()),
                ..FeedbackChanges::default()
            };
            change(ctx, &id, &changes, |_| format!("on board {board}")).await
        }
        FeedbackCommand::Boards { command } => super::boards::run(ctx, command).await,
        FeedbackCommand::GithubConnect { project } => {
            let path = github_path(ctx, &project).await?;
            let hook = ctx.client.post_empty(&path, Auth::Session).await?;
            ctx.show(&hook, |hook: GitHubHook| {
                eprintln!("In the repository's Settings > Webhooks: this payload URL, content type application/json, this secret, the \"Issues\" event.");
                println!("url: {}\nsecret: {}", hook.url, hook.secret);
                Ok(())
            })
        }
        FeedbackCommand::GithubDisconnect { project } => {
            let path = github_path(ctx, &project).await?;
            let deleted = ctx.client.delete(&path, Auth::Session).await?;
            ctx.done(&deleted, "GitHub is disconnected.")
        }
        FeedbackCommand::Delete { id } => {
            let deleted = ctx.client.delete(&entry_path(&id), Auth::Session).await?;
            ctx.done(&deleted, &format!("Deleted feedback {id}"))
        }
    }
}

async fn github_path(ctx: &Ctx, project: &crate::cli::ProjectArg) -> anyhow::Result<String> {
    let pid = project_id(&ctx.client, &project.project).await?;
    Ok(format!("/v1/projects/{pid}/integrations/github"))
}

fn entry_path(id: &str) -> String {
    format!("/v1/feedback/{}", seg(id))
}

/// `PATCH /v1/feedback/:id`, then "Feedback <id> is now <what the change set>".
async fn change(
    ctx: &Ctx,
    id: &str,
    changes: &FeedbackChanges,
    now: impl FnOnce(&Feedback) -> String,
) -> anyhow::Result<()> {
    let updated = ctx
        .client
        .patch(&entry_path(id), Auth::Session, &[], changes)
        .await?;
    ctx.show(&updated, |entry: Feedback| {
        println!("Feedback {id} is now {}", now(&entry));
        Ok(())
    })
}
