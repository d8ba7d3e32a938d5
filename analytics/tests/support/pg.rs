//! A fresh PostgreSQL database for each test (its funnels, goals and projects), and projects in it.

use uuid::Uuid;

pub async fn fresh_pg() -> sqlx::PgPool {
    let _ = dotenvy::from_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../.env"));
    let base = std::env::var("DATABASE_URL")
        .unwrap_or_else(|_| "postgres://127.0.0.1:5432/shipmate".into());
    let mut url = url::Url::parse(&base).unwrap();
    url.set_path(&format!("shipmate_test_{}", Uuid::new_v4().simple()));
    shipmate_core::db::create_and_migrate(url.as_str(), 4)
        .await
        .unwrap()
}

pub async fn project(db: &sqlx::PgPool) -> Uuid {
    let project = Uuid::new_v4();
    sqlx::query(
        "insert into projects (id, name, slug, api_key, publishable_key) values ($1, 'p', $2, $2, $3)",
    )
    .bind(project)
    .bind(project.to_string())
    .bind(format!("pk-{project}"))
    .execute(db)
    .await
    .unwrap();
    project
}
