//! Search analytics' rollups: the read gives the same figures before and after the searches are
//! rolled up (today's too, up to a minute ago), over a range reaching today and over a range of
//! past days, a click arriving after its search was rolled counts in the rollups, and purging the
//! rolled log keeps them.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use shipmate_kb::search_stats::{read, roll_up};
use sqlx::types::chrono::{NaiveDate, Utc};
use sqlx::PgPool;
use uuid::Uuid;

fn days_ago(n: u32) -> NaiveDate {
    (0..n).fold(Utc::now().date_naive(), |d, _| d.pred_opt().unwrap())
}

/// The read's figures from `from` to `to` days ago, in one comparable line.
async fn figures(db: &PgPool, index: Uuid, (from, to): (u32, u32)) -> String {
    let r = read(db, index, days_ago(from), days_ago(to), 0.3)
        .await
        .unwrap();
    let top: Vec<String> = r
        .top_queries
        .iter()
        .map(|q| {
            let score = q.avg_top_score.map(|s| (s * 1000.0).round());
            format!("{}:{}:{}:{score:?}", q.query, q.count, q.clicks)
        })
        .collect();
    let none: Vec<String> = r
        .no_result_queries
        .iter()
        .map(|q| format!("{}:{}", q.query, q.count))
        .collect();
    let low: Vec<String> = r
        .low_confidence_queries
        .iter()
        .map(|q| format!("{}:{}", q.query, q.count))
        .collect();
    format!(
        "{} {:.4} {:.4} top={top:?} none={none:?} low={low:?}",
        r.searches, r.no_result_rate, r.click_through_rate
    )
}

/// Logs a search `minutes` ago; answers its id.
async fn search(
    db: &PgPool,
    index: Uuid,
    minutes: i32,
    key: &str,
    results: i32,
    score: Option<f64>,
) -> Uuid {
    let id = Uuid::now_v7();
    sqlx::query(
        "insert into kb_searches (id, index_id, query, query_key, mode, results, top_score, created_at)
         values ($1, $2, $3, $3, 'vector', $4, $5, now() - make_interval(mins => $6))",
    )
    .bind(id)
    .bind(index)
    .bind(key)
    .bind(results)
    .bind(score)
    .bind(minutes)
    .execute(db)
    .await
    .unwrap();
    id
}

async fn click(db: &PgPool, search: Uuid, doc: Uuid) {
    sqlx::query(
        "insert into kb_search_clicks (search_id, document_id, position) values ($1, $2, 1)",
    )
    .bind(search)
    .bind(doc)
    .execute(db)
    .await
    .unwrap();
}

#[sqlx::test(migrations = "../migrations")]
async fn rollups_keep_the_figures_exact(db: PgPool) {
    let (project, index) = (Uuid::now_v7(), Uuid::now_v7());
    sqlx::query("insert into projects (id, name, slug, api_key, publishable_key) values ($1, 'p', 'p-rollup', 'pk_r1', 'pk_r2')")
        .bind(project)
        .execute(&db)
        .await
        .unwrap();
    sqlx::query("insert into kb_indexes (id, project_id, name, embedding_model, dimensions) values ($1, $2, 'docs', 'all-minilm-l6-v2', 384)")
        .bind(index)
        .bind(project)
        .execute(&db)
        .await
        .unwrap();
    let doc = Uuid::now_v7();
    let mut clicked_late = None;
    for days in [0, 1, 2, 3] {
        // Today's searches five minutes ago (rolled) and just now (not yet).
        let ago = days * 1440 + 5;
        let a = search(&db, index, ago, "reset password", 3, Some(0.8)).await;
        search(&db, index, ago, "reset password", 2, Some(0.6)).await;
        search(&db, index, ago, "invoices", 0, Some(0.1)).await;
        search(&db, index, days * 1440, "refund policy", 1, None).await;
        if days != 2 {
            click(&db, a, doc).await;
        } else {
            clicked_late = Some(a);
        }
    }
    let week = figures(&db, index, (6, 0)).await;
    assert!(week.starts_with("16 0.2500 0.1875"), "{week}");
    let past = figures(&db, index, (3, 1)).await;
    assert!(past.starts_with("12 0.2500 0.1667"), "{past}");
    assert_eq!(
        roll_up(&db).await.unwrap(),
        15,
        "all but the search of just now"
    );
    assert_eq!(roll_up(&db).await.unwrap(), 0, "each search once");
    let rolled: i64 =
        sqlx::query_scalar("select sum(searches)::int8 from kb_search_rollups where span = 0")
            .fetch_one(&db)
            .await
            .unwrap();
    assert_eq!(rolled, 15);
    assert_eq!(
        figures(&db, index, (6, 0)).await,
        week,
        "rolled up or not, the same figures"
    );
    assert_eq!(figures(&db, index, (3, 1)).await, past);

    // A click on a rolled search, through the api's path, lands in the rollups.
    let late = clicked_late.unwrap();
    let c = shipmate_types::search_analytics::SearchClick {
        document_id: doc,
        position: 1,
    };
    shipmate_kb::search_log::click(&db, index, late, &c)
        .await
        .unwrap();
    shipmate_kb::search_log::click(&db, index, late, &c)
        .await
        .unwrap();
    let after = figures(&db, index, (6, 0)).await;
    assert!(after.starts_with("16 0.2500 0.2500"), "{after}");
    assert!(
        after.contains("\"reset password:8:4:Some(700.0)\""),
        "{after}"
    );
    assert!(after.contains("low=[\"invoices:4\"]"), "{after}");
    let past = figures(&db, index, (3, 1)).await;
    assert!(past.starts_with("12 0.2500 0.2500"), "{past}");

    // Past the log's keep, rolled searches go; their figures stay. One not rolled yet stays.
    use shipmate_kb::search_stats::purge_log;
    assert_eq!(purge_log(&db, 2).await.unwrap(), 8, "days 2 and 3");
    assert_eq!(purge_log(&db, 0).await.unwrap(), 7, "all rolled");
    let left: i64 = sqlx::query_scalar("select count(*) from kb_searches")
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(left, 1, "the search of just now");
    assert_eq!(figures(&db, index, (6, 0)).await, after);
    assert_eq!(figures(&db, index, (3, 1)).await, past);
}
