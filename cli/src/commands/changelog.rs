//! `shipmate changelog ...`

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use shipmate_types::changelog::{Entry, EntryChanges, NewEntry};
use shipmate_types::common::List;

use super::{pages, project_id, seg};
use crate::cli::{ChangelogCommand, ProjectArg};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{align_right, one_line, print_table, table, when};

pub async fn run(ctx: &Ctx, command: ChangelogCommand) -> anyhow::Result<()> {
    match command {
        ChangelogCommand::New {
            project,
            title,
            kind,
            file,
            publish,
        } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let content = match file {
                Some(path) => std::fs::read_to_string(&path)
                    .with_context(|| format!("cannot read {}", path.display()))?,
                None => from_editor().await?,
            };
            if content.trim().is_empty() {
                bail!("the entry has no content; nothing was saved");
            }
            let new = NewEntry {
                title,
                content,
                kind,
                published: Some(publish),
                feedback_ids: None,
            };
            let created = ctx
                .client
                .post(
                    &format!("/v1/changelog/dashboard/{}", seg(&pid)),
                    Auth::Session,
                    &new,
                )
                .await?;
            ctx.show(&created, |entry: Entry| {
                let state = if entry.published {
                    "Published"
                } else {
                    "Saved draft"
                };
                println!("{state} {}: {}", entry.id, entry.title);
                Ok(())
            })
        }
        ChangelogCommand::Publish { id, project } => set_published(ctx, &id, &project, true).await,
        ChangelogCommand::Unpublish { id, project } => {
            set_published(ctx, &id, &project, false).await
        }
        ChangelogCommand::List { project, pages } => {
            let pid = project_id(&ctx.client, &project.project).await?;
            let path = format!("/v1/changelog/dashboard/{}", seg(&pid));
            let list = pages::fetch(ctx, &path, Auth::Session, &[], pages).await?;
            let footer = pages::footer(&list, pages);
            ctx.show(&list, |list: List<Entry>| {
                let mut t = table(&[
                    "ID",
                    "TYPE",
                    "STATUS",
                    "TITLE",
                    "REQUESTS",
                    "PUBLISHED",
                    "CREATED",
                ]);
                for e in list.data {
                    let status = if e.published { "published" } else { "draft" };
                    t.add_row(vec![
                        e.id.to_string(),
                        e.kind.to_string(),
                        status.to_owned(),
                        one_line(&e.title, 60),
                        e.feedback_ids.len().to_string(),
                        when(e.published_at),
                        when(e.created_at),
                    ]);
                }
                align_right(&mut t, &[4]);
                print_table(&t, "No changelog entries yet.");
                if let Some(footer) = footer {
                    println!("{footer}");
                }
                Ok(())
            })
        }
    }
}

async fn set_published(
    ctx: &Ctx,
    id: &str,
    project: &ProjectArg,
    published: bool,
) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let changes = EntryChanges {
        published: Some(published),
        ..EntryChanges::default()
    };
    let updated = ctx
        .client
        .patch(
            &format!("/v1/changelog/dashboard/{}/{}", seg(&pid), seg(id)),
            Auth::Session,
            &[],
            &changes,
        )
        .await?;
    ctx.show(&updated, |entry: Entry| {
        if published {
            println!("Published {id}: {}", entry.title);
        } else {
            println!("Returned {id} to draft: {}", entry.title);
        }
        Ok(())
    })
}

/// Opens `$VISUAL`, else `$EDITOR`, else `vi` on a private temporary Markdown file; returns
/// what was saved. The editor value may carry arguments (`code --wait`).
async fn from_editor() -> anyhow::Result<String> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_owned());
    let mut words = editor.split_whitespace();
    let program = words.next().ok_or_else(|| anyhow!("$EDITOR is empty"))?;
    let path = temp_path();
    let _cleanup = RemoveOnDrop(path.clone());
    create_private(&path).with_context(|| format!("cannot create {}", path.display()))?;
    let status = tokio::process::Command::new(program)
        .args(words)
        .arg(&path)
        .status()
        .await
        .with_context(|| {
            format!("cannot run the editor `{editor}` (set $EDITOR, or use --file)")
        })?;
    if !status.success() {
        bail!("the editor `{editor}` exited with {status}; nothing was saved");
    }
    std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
}

fn temp_path() -> PathBuf {
    std::env::temp_dir().join(format!(
        "shipmate-changelog-{}.md",
        uuid::Uuid::new_v4().simple()
    ))
}

struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(unix)]
fn create_private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map(drop)
}

#[cfg(not(unix))]
fn create_private(path: &Path) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map(drop)
}
