//! `shipmate feedback tags ...` and `shipmate feedback tag`: a project's tags, and an entry's.

use shipmate_types::common::List;
use shipmate_types::tags::{NewTag, Tag};

use super::{project_id, seg};
use crate::cli::{ProjectArg, TagsCommand};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{print_table, table};

pub async fn run(ctx: &Ctx, command: TagsCommand) -> anyhow::Result<()> {
    match command {
        TagsCommand::List { project } => {
            let list = ctx
                .client
                .get(&tags_path(ctx, &project).await?, Auth::Session, &[])
                .await?;
            ctx.show(&list, |list: List<Tag>| {
                let mut t = table(&["ID", "NAME", "COLOR"]);
                for tag in list.data {
                    t.add_row(vec![tag.id.to_string(), tag.name, tag.color]);
                }
                print_table(
                    &t,
                    "No tags. Add one with `shipmate feedback tags create --name <name>`.",
                );
                Ok(())
            })
        }
        TagsCommand::Create {
            name,
            color,
            project,
        } => {
            let created = ctx
                .client
                .post(
                    &tags_path(ctx, &project).await?,
                    Auth::Session,
                    &NewTag { name, color },
                )
                .await?;
            ctx.show(&created, |tag: Tag| {
                eprintln!("Created tag {} ({}).", tag.name, tag.color);
                println!("{}", tag.id);
                Ok(())
            })
        }
        TagsCommand::Delete { tag, project } => {
            let path = format!("{}/{}", tags_path(ctx, &project).await?, seg(&tag));
            let deleted = ctx.client.delete(&path, Auth::Session).await?;
            ctx.done(&deleted, &format!("Deleted tag {tag}."))
        }
    }
}

async fn tags_path(ctx: &Ctx, project: &ProjectArg) -> anyhow::Result<String> {
    let pid = project_id(&ctx.client, &project.project).await?;
    Ok(format!("/v1/projects/{pid}/tags"))
}

/// The entry's tags as a list prints them.
pub fn names(tags: &[Tag]) -> String {
    if tags.is_empty() {
        return "-".into();
    }
    tags.iter()
        .map(|t| t.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
