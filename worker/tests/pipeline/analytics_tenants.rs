//! A late event is one tenant's business: it makes only its own project's day dirty, and only
//! that project's summaries are rebuilt (#35: the rollups used to be keyed by day alone, so one
//! project's late event rewrote every project's summaries of the day and sent every tenant's
//! filtered reads of it back to raw scans).

use serde_json::{json, Value};
use uuid::Uuid;

use shipmate_analytics::days;
use shipmate_analytics::pg::rollup;
use shipmate_analytics::visitor::Geo;
use shipmate_worker::jobs::events::Enricher;

use crate::analytics::{batch, read, read_of};
use crate::helpers::*;

fn uuid(project: &Value) -> Uuid {
    id(project).parse().unwrap()
}

/// The project's summary state of the day, and what its summary rows were last written by.
async fn state(
    pool: &sqlx::PgPool,
    project: &Value,
    day: chrono::NaiveDate,
) -> (bool, i64, Vec<String>) {
    let (dirty, generation): (bool, i64) = sqlx::query_as(
        "select dirty, generation from analytics_rollups where project_id = $1 and day = $2",
    )
    .bind(uuid(project))
    .bind(day)
    .fetch_optional(pool)
    .await
    .unwrap()
    .unwrap_or((false, 0));
    let writers: Vec<String> = sqlx::query_scalar(
        "select xmin::text from analytics_daily where project_id = $1 and day = $2 order by dim, value",
    )
    .bind(uuid(project))
    .bind(day)
    .fetch_all(pool)
    .await
    .unwrap();
    (dirty, generation, writers)
}

#[tokio::test]
async fn a_late_event_rebuilds_only_its_own_projects_summaries() {
    let app = spawn_app().await;
    let (token_a, a) = app.owner_with_project("tenant-late-a").await;
    let (token_b, b) = app.owner_with_project("tenant-late-b").await;
    let pool = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    let mut enricher = Enricher::new(pool.clone(), Geo::open(None));
    let now = chrono::Utc::now();
    let today = now.date_naive();
    // Today as of midnight (the test must not straddle it).
    let earlier = days::bounds(today).0 + chrono::Duration::milliseconds(1);
    let current =
        || rollup::keep_current(&pool, chrono::Duration::minutes(5), chrono::Utc::now(), 7);
    enricher
        .handle(vec![
            read_of("1700000000000-0", false, batch(&a, 2, now)),
            read_of("1700000000000-1", false, batch(&b, 4, now)),
        ])
        .await
        .unwrap();
    current().await.unwrap();
    let b_before = state(&pool, &b, today).await;
    assert!(!b_before.2.is_empty(), "b's day is summarised");

    // A request of project a accepted before that roll, stored only now.
    enricher
        .handle(vec![read_of(
            "1700000000001-0",
            false,
            batch(&a, 3, earlier),
        )])
        .await
        .unwrap();
    let (a_dirty, a_generation, _) = state(&pool, &a, today).await;
    assert!(a_dirty);
    assert_eq!(a_generation, 1);
    assert_eq!(
        state(&pool, &b, today).await,
        b_before,
        "b's day is untouched"
    );

    current().await.unwrap();
    assert!(
        !state(&pool, &a, today).await.0,
        "a's day is summarised again"
    );
    // b's summary rows were not deleted and written again: the same row versions.
    assert_eq!(state(&pool, &b, today).await, b_before);
    let figures = |v: Value| (v["page_views"].clone(), v["unique_visitors"].clone());
    let overview_a = read(&app, &token_a, "overview", &a, "7d").await;
    assert_eq!(figures(overview_a), (json!(5), json!(1)));
    let overview_b = read(&app, &token_b, "overview", &b, "7d").await;
    assert_eq!(figures(overview_b), (json!(4), json!(1)));
    // A whole-day roll afresh gives a the same figures as its own roll did.
    rollup::roll_day(&pool, today, true).await.unwrap();
    let overview_a = read(&app, &token_a, "overview", &a, "7d").await;
    assert_eq!(figures(overview_a), (json!(5), json!(1)));
}
