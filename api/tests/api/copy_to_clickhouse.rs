//! `shipmate-api analytics copy-to-clickhouse` as an operator runs it: the binary, against the
//! app's database and the test's own clickhouse-server. The copy's own rules (resumable,
//! idempotent, counted) are tested in `analytics/tests/clickhouse.rs`.

use std::process::Command;

use crate::helpers::*;

#[path = "../../../analytics/tests/support/clickhouse.rs"]
mod server;

fn copy(app: &TestApp, clickhouse: Option<&str>) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shipmate-api"));
    cmd.args(["analytics", "copy-to-clickhouse"])
        .env("DATABASE_URL", &app.db_url)
        .env_remove("SHIPMATE_CLICKHOUSE_URL");
    if let Some(url) = clickhouse {
        cmd.env("SHIPMATE_CLICKHOUSE_URL", url);
    }
    let out = cmd.output().expect("the api binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test]
async fn the_copy_command_copies_once_and_says_what_it_counted() {
    let app = spawn_app().await;
    let (_, project) = app.owner_with_project("ch-copy").await;
    let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
    // Three events in one whole hour (three minutes back from now could straddle two).
    sqlx::query(
        "insert into analytics_events (project_id, ts, visitor, device, browser, os, name, path)
         select $1::uuid, date_trunc('hour', now()) - interval '3 hours' + n * interval '1 minute', n, 0, 0,
                0, 'page_view', '/'
         from generate_series(1, 3) n",
    )
    .bind(id(&project))
    .execute(&db)
    .await
    .unwrap();

    let (ok, said) = copy(&app, None);
    assert!(!ok && said.contains("SHIPMATE_CLICKHOUSE_URL"), "{said}");

    let server = server::ClickHouse::start();
    let url = server.url("shipmate_copy_cli");
    let (ok, said) = copy(&app, Some(&url));
    assert!(ok, "{said}");
    assert!(said.contains("copied 3 events in 1 hours"), "{said}");
    assert!(said.contains("PostgreSQL holds 3 events"), "{said}");
    assert!(said.contains("ClickHouse 3 copies"), "{said}");
    let (ok, said) = copy(&app, Some(&url));
    assert!(
        ok && said.contains("copied 0 events in 0 hours (1 hours copied before)"),
        "{said}"
    );
}
