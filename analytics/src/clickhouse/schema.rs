//! The tables, made at start and versioned like the SQL migrations: each step runs once, in order,
//! and is recorded in `schema_migrations`. Every statement runs on ClickHouse 18.16 and later: no
//! `DateTime64` (instants are microseconds in a `UInt64`), no `LowCardinality`, no `Nullable` in a
//! sorting key, no window functions.

use super::client::Client;

/// The steps, in order; a step is never edited once released (add one instead).
const STEPS: &[(u32, &str)] = &[(
    1,
    // ReplacingMergeTree on a key ending in (entry, seq): a row stored twice (an insert retried
    // after its answer was lost) is the same key, and merges keep one (`store` checks the rest).
    // Sorted by project, day and visitor: reads take one project's days, visits one visitor's
    // events in order.
    "CREATE TABLE IF NOT EXISTS events (
        project_id UUID,
        day Date,
        t UInt64,
        visitor Int64,
        entry Int64,
        seq UInt32,
        name String,
        path String,
        referrer_host String,
        utm_source String,
        utm_medium String,
        utm_campaign String,
        country String,
        device String,
        browser String,
        os String,
        screen_width Nullable(Int32),
        prop_keys Array(String),
        prop_values Array(String)
    ) ENGINE = ReplacingMergeTree
    PARTITION BY toYYYYMM(day)
    ORDER BY (project_id, day, visitor, t, entry, seq)",
)];

/// Creates the database if missing and brings its tables to the newest step.
pub async fn migrate(client: &Client) -> anyhow::Result<()> {
    client
        .execute_server(&format!(
            "CREATE DATABASE IF NOT EXISTS {}",
            client.database
        ))
        .await?;
    client
        .execute("CREATE TABLE IF NOT EXISTS schema_migrations (version UInt32) ENGINE = TinyLog")
        .await?;
    #[derive(serde::Deserialize)]
    struct Version {
        version: u32,
    }
    let done: Vec<u32> = client
        .rows::<Version>("SELECT version FROM schema_migrations")
        .await?
        .into_iter()
        .map(|v| v.version)
        .collect();
    for (version, sql) in STEPS {
        if !done.contains(version) {
            client.execute(sql).await?;
            client
                .execute(&format!(
                    "INSERT INTO schema_migrations (version) VALUES ({version})"
                ))
                .await?;
        }
    }
    Ok(())
}
