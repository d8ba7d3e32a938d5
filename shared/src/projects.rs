//! Projects: the tenant of every other resource, owned by one user, reached by slug or API key.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use crate::error::on_constraint;
use crate::tokens::new_api_key;
use crate::{AppError, AppResult};

#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Project {
    pub id: Uuid,
    pub name: String,
    pub slug: String,
    pub api_key: String,
    #[serde(skip)]
    pub owner_id: Uuid,
    pub created_at: DateTime<Utc>,
}

const COLUMNS: &str = "id, name, slug, api_key, owner_id, created_at";

/// A slug: 3 to 48 of `a-z 0-9 -`, starting and ending with a letter or digit.
pub fn is_valid_slug(s: &str) -> bool {
    let ok_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    (3..=48).contains(&s.len())
        && s.chars().all(|c| ok_char(c) || c == '-')
        && s.starts_with(ok_char)
        && s.ends_with(ok_char)
}

pub async fn create(db: &PgPool, owner: Uuid, name: &str, slug: &str) -> AppResult<Project> {
    let project = sqlx::query_as::<_, Project>(&format!(
        "insert into projects (id, owner_id, name, slug, api_key) values ($1, $2, $3, $4, $5) returning {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(owner)
    .bind(name)
    .bind(slug)
    .bind(new_api_key())
    .fetch_one(db)
    .await
    .map_err(on_constraint("projects_slug_key", "conflict", "a project with this slug already exists"))?;
    Ok(project)
}

pub async fn list_owned(db: &PgPool, owner: Uuid) -> AppResult<Vec<Project>> {
    Ok(sqlx::query_as::<_, Project>(&format!(
        "select {COLUMNS} from projects where owner_id = $1 order by created_at desc"
    ))
    .bind(owner)
    .fetch_all(db)
    .await?)
}

/// The project, if the user owns it: 404 when it does not exist, 403 when someone else owns it.
pub async fn get_owned(db: &PgPool, owner: Uuid, id: Uuid) -> AppResult<Project> {
    let project =
        sqlx::query_as::<_, Project>(&format!("select {COLUMNS} from projects where id = $1"))
            .bind(id)
            .fetch_optional(db)
            .await?
            .ok_or_else(|| AppError::not_found("project"))?;
    if project.owner_id != owner {
        return Err(AppError::forbidden());
    }
    Ok(project)
}

pub async fn by_slug(db: &PgPool, slug: &str) -> AppResult<Project> {
    sqlx::query_as::<_, Project>(&format!("select {COLUMNS} from projects where slug = $1"))
        .bind(slug)
        .fetch_optional(db)
        .await?
        .ok_or_else(|| AppError::not_found("project"))
}

/// Replaces the key; the old one stops working at once.
pub async fn rotate_key(db: &PgPool, id: Uuid) -> AppResult<Project> {
    Ok(sqlx::query_as::<_, Project>(&format!(
        "update projects set api_key = $2 where id = $1 returning {COLUMNS}"
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

#[cfg(test)]
mod tests {
    use super::is_valid_slug;

    #[test]
    fn slugs() {
        for ok in ["abc", "my-app-2", "a1b"] {
            assert!(is_valid_slug(ok), "{ok}");
        }
        for bad in ["ab", "-abc", "abc-", "ABC", "a_b", "a b c", &"a".repeat(49)] {
            assert!(!is_valid_slug(bad), "{bad}");
        }
    }
}
