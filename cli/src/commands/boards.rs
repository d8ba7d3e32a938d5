//! `shipmate feedback boards ...`: a project's boards (public, private to the team, or for a
//! segment of end users).

use serde_json::{Map, Value};
use shipmate_types::boards::{Board, NewBoard};
use shipmate_types::common::List;

use super::{project_id, seg};
use crate::cli::{BoardsCommand, ProjectArg};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{print_table, table};

pub async fn run(ctx: &Ctx, command: BoardsCommand) -> anyhow::Result<()> {
    match command {
        BoardsCommand::List { project } => {
            let list = ctx
                .client
                .get(&boards_path(ctx, &project).await?, Auth::Session, &[])
                .await?;
            ctx.show(&list, |list: List<Board>| {
                let mut t = table(&["ID", "SLUG", "NAME", "VISIBILITY", "SEGMENT"]);
                for b in list.data {
                    let segment = b
                        .segment
                        .map_or_else(|| "-".to_owned(), |s| Value::Object(s).to_string());
                    let name = if b.is_default {
                        format!("{} (default)", b.name)
                    } else {
                        b.name
                    };
                    t.add_row(vec![
                        b.id.to_string(),
                        b.slug,
                        name,
                        b.visibility.to_string(),
                        segment,
                    ]);
                }
                print_table(&t, "No boards.");
                Ok(())
            })
        }
        BoardsCommand::Create {
            name,
            slug,
            visibility,
            segment,
            project,
        } => {
            let new = NewBoard {
                name,
                slug,
                visibility,
                segment: segment_of(&segment)?,
            };
            let created = ctx
                .client
                .post(&boards_path(ctx, &project).await?, Auth::Session, &new)
                .await?;
            ctx.show(&created, |b: Board| {
                eprintln!("Created board {} ({}).", b.slug, b.visibility);
                println!("{}", b.id);
                Ok(())
            })
        }
        BoardsCommand::Delete {
            board,
            move_to,
            project,
        } => {
            let mut path = format!("{}/{}", boards_path(ctx, &project).await?, seg(&board));
            if let Some(to) = &move_to {
                path = format!("{path}?move_to={}", seg(to));
            }
            let deleted = ctx.client.delete(&path, Auth::Session).await?;
            ctx.done(&deleted, &format!("Deleted board {board}."))
        }
    }
}

/// `key=value` pairs as the segment object (a value that parses as a number is one).
fn segment_of(pairs: &[String]) -> anyhow::Result<Option<Map<String, Value>>> {
    if pairs.is_empty() {
        return Ok(None);
    }
    let mut map = Map::new();
    for pair in pairs {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--segment takes key=value, not {pair:?}"))?;
        let number = v
            .parse::<i64>()
            .ok()
            .map(serde_json::Number::from)
            .or_else(|| v.parse::<f64>().ok().and_then(serde_json::Number::from_f64));
        let value = number.map_or_else(|| Value::String(v.to_owned()), Value::Number);
        map.insert(k.to_owned(), value);
    }
    Ok(Some(map))
}

async fn boards_path(ctx: &Ctx, project: &ProjectArg) -> anyhow::Result<String> {
    let pid = project_id(&ctx.client, &project.project).await?;
    Ok(format!("/v1/projects/{pid}/boards"))
}
