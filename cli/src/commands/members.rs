//! `shipmate members ...`: a project's team (docs/accounts.md, "Teams and roles").

use anyhow::anyhow;
use serde_json::json;

use shipmate_types::Role;

use super::{field, project_id, seg, Ctx};
use crate::cli::{MembersCommand, ProjectArg};
use crate::client::Auth;
use crate::output::{items, print_json, print_table, table, text, when};

pub async fn run(ctx: &Ctx, command: MembersCommand) -> anyhow::Result<()> {
    match command {
        MembersCommand::List { project } => list(ctx, &project).await,
        MembersCommand::Invite {
            email,
            project,
            role,
        } => invite(ctx, &project, &email, role).await,
        MembersCommand::Role {
            user,
            role,
            project,
        } => set_role(ctx, &project, &user, role).await,
        MembersCommand::Remove { user, project } => remove(ctx, &project, &user).await,
    }
}

fn members_path(pid: &str) -> String {
    format!("/v1/projects/{pid}/members")
}

fn member_path(pid: &str, user_id: &str) -> String {
    format!("{}/{}", members_path(pid), seg(user_id))
}

async fn list(ctx: &Ctx, project: &ProjectArg) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let list = ctx
        .client
        .get(&members_path(&pid), Auth::Session, &[])
        .await?;
    if ctx.json {
        return print_json(&list);
    }
    let mut t = table(&["EMAIL", "NAME", "ROLE", "SINCE"]);
    for m in items(&list, "data") {
        t.add_row(vec![
            text(&m["email"]),
            text(&m["name"]),
            text(&m["role"]),
            when(&m["created_at"]),
        ]);
    }
    print_table(&t, "No members.");
    Ok(())
}

async fn invite(ctx: &Ctx, project: &ProjectArg, email: &str, role: Role) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let invite = ctx
        .client
        .post(
            &format!("/v1/projects/{pid}/invites"),
            Auth::Session,
            Some(&json!({ "email": email, "role": role })),
        )
        .await?;
    if ctx.json {
        return print_json(&invite);
    }
    // The link alone on stdout, so `url=$(shipmate members invite ...)` works; the rest is for people.
    eprintln!(
        "Invited {} as {}. Send them this link; it works once, only for that email, until {} UTC:",
        text(&invite["email"]),
        text(&invite["role"]),
        when(&invite["expires_at"]),
    );
    println!("{}", field(&invite, "url")?);
    Ok(())
}

async fn set_role(ctx: &Ctx, project: &ProjectArg, user: &str, role: Role) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let user_id = member_id(ctx, &pid, user).await?;
    let member = ctx
        .client
        .patch(
            &member_path(&pid, &user_id),
            Auth::Session,
            &[],
            &json!({ "role": role }),
        )
        .await?;
    if ctx.json {
        return print_json(&member);
    }
    println!(
        "{} is now {}",
        text(&member["email"]),
        text(&member["role"])
    );
    Ok(())
}

async fn remove(ctx: &Ctx, project: &ProjectArg, user: &str) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let user_id = member_id(ctx, &pid, user).await?;
    let deleted = ctx
        .client
        .delete(&member_path(&pid, &user_id), Auth::Session, &[])
        .await?;
    if ctx.json {
        return print_json(&deleted);
    }
    println!("Removed {user} from {}", project.project);
    Ok(())
}

/// A user id is taken as is (the api answers for unknown ones); an email is looked up in the
/// members list, since the endpoints are keyed by user id.
async fn member_id(ctx: &Ctx, pid: &str, user: &str) -> anyhow::Result<String> {
    if uuid::Uuid::parse_str(user).is_ok() {
        return Ok(user.to_owned());
    }
    if !user.contains('@') {
        anyhow::bail!("`{user}` is neither a user id nor an email address");
    }
    let list = ctx
        .client
        .get(&members_path(pid), Auth::Session, &[])
        .await?;
    let wanted = user.trim();
    items(&list, "data")
        .iter()
        .find(|m| {
            m["email"]
                .as_str()
                .is_some_and(|e| e.eq_ignore_ascii_case(wanted))
        })
        .map(|m| field(m, "user_id"))
        .transpose()?
        .ok_or_else(|| {
            anyhow!("{wanted} is not a member of this project (`shipmate members list` shows them)")
        })
}
