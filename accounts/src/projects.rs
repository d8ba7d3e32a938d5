//! Projects: the tenant of every other resource, shared by its members, reached by slug or API key.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use crate::teams::Role;
use shipmate_core::error::on_constraint;
use shipmate_core::tokens::new_api_key;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::projects::{KeyProject, NewProject, ProjectChanges, ProjectView};

#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Project {
    pub id: Uuid,
    pub name: String,
    pub slug: String,
    pub api_key: String,
    /// Limited to the public scopes: the key for browser code and snippets.
    pub publishable_key: String,
    /// Board submissions wait for a member's approval.
    pub feedback_moderation: bool,
    pub created_at: DateTime<Utc>,
}

impl Project {
    pub fn view(self, role: Role) -> ProjectView {
        ProjectView {
            id: self.id,
            name: self.name,
            slug: self.slug,
            api_key: role.sees_secret_key().then_some(self.api_key),
            publishable_key: self.publishable_key,
            feedback_moderation: self.feedback_moderation,
            role,
            created_at: self.created_at,
        }
    }
}

const COLUMNS: &str = "id, name, slug, api_key, publishable_key, feedback_moderation, created_at";

/// Creates the project with its creator as owner, in one transaction.
pub async fn create(db: &PgPool, creator: Uuid, name: &str, slug: &str) -> AppResult<Project> {
    let mut tx = db.begin().await?;
    let project = sqlx::query_as::<_, Project>(&format!(
        "insert into projects (id, name, slug, api_key, publishable_key) values ($1, $2, $3, $4, $5)
         returning {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(name)
    .bind(slug)
    .bind(new_api_key())
    .bind(new_api_key())
    .fetch_one(&mut *tx)
    .await
    .map_err(on_constraint(
        "projects_slug_key",
        "conflict",
        "a project with this slug already exists",
    ))?;
    sqlx::query!(
        "insert into project_members (project_id, user_id, role) values ($1, $2, 'owner')",
        project.id,
        creator
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(project)
}

/// The projects the user is a member of, newest first, as they see them.
pub async fn list_for(db: &PgPool, user: Uuid) -> AppResult<Vec<ProjectView>> {
    let rows = sqlx::query!(
        "select p.id, p.name, p.slug, p.api_key, p.publishable_key, p.feedback_moderation, p.created_at, m.role
         from project_members m join projects p on p.id = m.project_id
         where m.user_id = $1 order by p.created_at desc",
        user
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            Project {
                id: r.id,
                name: r.name,
                slug: r.slug,
                api_key: r.api_key,
                publishable_key: r.publishable_key,
                feedback_moderation: r.feedback_moderation,
                created_at: r.created_at,
            }
            .view(crate::teams::role_of(r.role))
        })
        .collect())
}

/// The project and the user's role in it, when the role is at least `needed`: 404 when the project
/// does not exist, 403 when the user is not a member or their role is too low.
pub async fn access(db: &PgPool, user: Uuid, id: Uuid, needed: Role) -> AppResult<(Project, Role)> {
    let row = sqlx::query!(
        "select p.id, p.name, p.slug, p.api_key, p.publishable_key, p.feedback_moderation, p.created_at, m.role as \"role?\"
         from projects p left join project_members m on m.project_id = p.id and m.user_id = $2
         where p.id = $1",
        id,
        user
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("project"))?;
    let Some(role) = row.role.map(crate::teams::role_of) else {
        return Err(AppError::forbidden("you are not a member of this project"));
    };
    if role < needed {
        return Err(AppError::forbidden(format!(
            "this needs the {} role in the project; you are {}",
            needed.as_str(),
            role.as_str()
        )));
    }
    let project = Project {
        id: row.id,
        name: row.name,
        slug: row.slug,
        api_key: row.api_key,
        publishable_key: row.publishable_key,
        feedback_moderation: row.feedback_moderation,
        created_at: row.created_at,
    };
    Ok((project, role))
}

/// Changes the name and/or the board's moderation setting.
pub async fn update(db: &PgPool, id: Uuid, c: &ProjectChanges) -> AppResult<Project> {
    sqlx::query_as::<_, Project>(&format!(
        "update projects set name = coalesce($2, name),
            feedback_moderation = coalesce($3, feedback_moderation)
         where id = $1 returning {COLUMNS}"
    ))
    .bind(id)
    .bind(&c.name)
    .bind(c.feedback_moderation)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("project"))
}

pub async fn by_slug(db: &PgPool, slug: &str) -> AppResult<Project> {
    sqlx::query_as::<_, Project>(&format!("select {COLUMNS} from projects where slug = $1"))
        .bind(slug)
        .fetch_optional(db)
        .await?
        .ok_or_else(|| AppError::not_found("project"))
}

/// Which of a project's two keys.
#[derive(Debug, Clone, Copy)]
pub enum KeyKind {
    Secret,
    Publishable,
}

/// Replaces the key; the old one stops working at once.
pub async fn rotate_key(db: &PgPool, id: Uuid, kind: KeyKind) -> AppResult<Project> {
    let column = match kind {
        KeyKind::Secret => "api_key",
        KeyKind::Publishable => "publishable_key",
    };
    Ok(sqlx::query_as::<_, Project>(&format!(
        "update projects set {column} = $2 where id = $1 returning {COLUMNS}"
    ))
    .bind(id)
    .bind(new_api_key())
    .fetch_one(db)
    .await?)
}

/// Deletes the project; every resource of it goes with it (foreign keys cascade).
pub async fn delete(db: &PgPool, id: Uuid) -> AppResult<()> {
    sqlx::query!("delete from projects where id = $1", id)
        .execute(db)
        .await?;
    Ok(())
}
