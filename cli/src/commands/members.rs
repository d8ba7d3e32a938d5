//! `shipmate members ...`: a project's team (docs/accounts.md, "Teams and roles").

use anyhow::anyhow;
use shipmate_types::common::List;
use shipmate_types::teams::{Invite, Member, NewInvite, RoleChange};
use shipmate_types::Role;

use super::{project_id, seg};
use crate::cli::{MembersCommand, ProjectArg};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{print_table, table, when};

pub async fn run(ctx: &Ctx, command: MembersCommand) -> anyhow::Result<()> {
    match command {
        MembersCommand::List { project } => list(ctx, &project).await,
        MembersCommand::Invite {
            email,
            project,
            role,
        } => invite(ctx, &project, NewInvite { email, role }).await,
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
    ctx.show(&list, |list: List<Member>| {
        let mut t = table(&["EMAIL", "NAME", "ROLE", "SINCE"]);
        for m in list.data {
            t.add_row(vec![
                m.email,
                m.name,
                m.role.to_string(),
                when(m.created_at),
            ]);
        }
        print_table(&t, "No members.");
        Ok(())
    })
}

async fn invite(ctx: &Ctx, project: &ProjectArg, new: NewInvite) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let created = ctx
        .client
        .post(&format!("/v1/projects/{pid}/invites"), Auth::Session, &new)
        .await?;
    ctx.show(&created, |invite: Invite| {
        let url = invite
            .url
            .ok_or_else(|| anyhow!("the server made the invite but sent no link for it"))?;
        // The link alone on stdout, so `url=$(shipmate members invite ...)` works; the rest is for people.
        eprintln!(
            "Invited {} as {}. Send them this link; it works once, only for that email, until {} UTC:",
            invite.email,
            invite.role,
            when(invite.expires_at),
        );
        println!("{url}");
        Ok(())
    })
}

async fn set_role(ctx: &Ctx, project: &ProjectArg, user: &str, role: Role) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let user_id = member_id(ctx, &pid, user).await?;
    let updated = ctx
        .client
        .patch(
            &member_path(&pid, &user_id),
            Auth::Session,
            &[],
            &RoleChange { role },
        )
        .await?;
    ctx.show(&updated, |member: Member| {
        println!("{} is now {}", member.email, member.role);
        Ok(())
    })
}

async fn remove(ctx: &Ctx, project: &ProjectArg, user: &str) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let user_id = member_id(ctx, &pid, user).await?;
    let deleted = ctx
        .client
        .delete(&member_path(&pid, &user_id), Auth::Session)
        .await?;
    ctx.done(
        &deleted,
        &format!("Removed {user} from {}", project.project),
    )
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
    let list: List<Member> = ctx
        .client
        .get_as(&members_path(pid), Auth::Session, &[])
        .await?;
    let wanted = user.trim();
    list.data
        .into_iter()
        .find(|m| m.email.eq_ignore_ascii_case(wanted))
        .map(|m| m.user_id.to_string())
        .ok_or_else(|| {
            anyhow!("{wanted} is not a member of this project (`shipmate members list` shows them)")
        })
}
