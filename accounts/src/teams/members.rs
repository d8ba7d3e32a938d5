//! A project's members: listing, role changes and removal, with the rules that keep a project
//! owned: only owners touch owners, and the last owner stays.

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::Role;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::teams::{Member, RoleChange};

/// Owners first, then by when they joined.
pub async fn list(db: &PgPool, project: Uuid) -> AppResult<Vec<Member>> {
    let rows = sqlx::query!(
        "select m.user_id, u.email, u.name, m.role, m.created_at
         from project_members m join users u on u.id = m.user_id
         where m.project_id = $1
         order by array_position(array['owner', 'admin', 'member', 'viewer'], m.role), m.created_at",
        project
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| Member {
            user_id: r.user_id,
            email: r.email,
            name: r.name,
            role: super::role_of(r.role),
            created_at: r.created_at,
        })
        .collect())
}

/// Who acts on whom: the acting member and the target of a change.
pub struct Actor {
    pub user: Uuid,
    pub role: Role,
}

/// Sets a member's role. Admins manage members and admins; only an owner makes, demotes or
/// changes an owner; the last owner cannot be demoted (409 `last_owner`).
pub async fn change_role(
    db: &PgPool,
    project: Uuid,
    actor: &Actor,
    target: Uuid,
    role: Role,
) -> AppResult<Member> {
    let mut tx = db.begin().await?;
    let current = lock_target(&mut tx, project, target).await?;
    if (current == Role::Owner || role == Role::Owner) && actor.role < Role::Owner {
        return Err(AppError::forbidden(
            "only an owner can make or change an owner",
        ));
    }
    if current == Role::Owner && role != Role::Owner {
        ensure_another_owner(&mut tx, project, target).await?;
    }
    let row = sqlx::query!(
        "update project_members m set role = $3 from users u
         where m.project_id = $1 and m.user_id = $2 and u.id = m.user_id
         returning m.user_id, u.email, u.name, m.role, m.created_at",
        project,
        target,
        role.as_str()
    )
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Member {
        user_id: row.user_id,
        email: row.email,
        name: row.name,
        role: super::role_of(row.role),
        created_at: row.created_at,
    })
}

/// Removes a member: anyone may leave; admins remove members, viewers and admins; only an owner
/// removes an owner; the last owner stays (409 `last_owner`).
pub async fn remove(db: &PgPool, project: Uuid, actor: &Actor, target: Uuid) -> AppResult<()> {
    let mut tx = db.begin().await?;
    let current = lock_target(&mut tx, project, target).await?;
    if actor.user != target {
        if actor.role < Role::Admin {
            return Err(AppError::forbidden(
                "this needs the admin role in the project",
            ));
        }
        if current == Role::Owner && actor.role < Role::Owner {
            return Err(AppError::forbidden("only an owner can remove an owner"));
        }
    }
    if current == Role::Owner {
        ensure_another_owner(&mut tx, project, target).await?;
    }
    sqlx::query!(
        "delete from project_members where project_id = $1 and user_id = $2",
        project,
        target
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Locks the project's member rows (so two owners cannot demote each other at once) and answers
/// the target's role; 404 when the target is not a member.
async fn lock_target(conn: &mut PgConnection, project: Uuid, target: Uuid) -> AppResult<Role> {
    let rows = sqlx::query!(
        "select user_id, role from project_members where project_id = $1 order by user_id for update",
        project
    )
    .fetch_all(&mut *conn)
    .await?;
    rows.into_iter()
        .find(|r| r.user_id == target)
        .map(|r| super::role_of(r.role))
        .ok_or_else(|| AppError::not_found("member"))
}

async fn ensure_another_owner(
    conn: &mut PgConnection,
    project: Uuid,
    target: Uuid,
) -> AppResult<()> {
    let others = sqlx::query_scalar!(
        "select count(*) as \"n!\" from project_members
         where project_id = $1 and role = 'owner' and user_id <> $2",
        project,
        target
    )
    .fetch_one(conn)
    .await?;
    if others == 0 {
        return Err(AppError::conflict(
            "last_owner",
            "a project keeps at least one owner: make someone else owner first",
        ));
    }
    Ok(())
}
