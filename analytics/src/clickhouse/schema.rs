//! The tables, made at start and versioned like the SQL migrations: each step runs once, in order,
//! and is recorded in `schema_migrations`. Every statement runs on ClickHouse 18.16 and later: no
//! `DateTime64` (instants are microseconds in a `UInt64`), no `LowCardinality`, no `Nullable` in a
//! sorting key, no window functions.
//!
//! On a cluster (`SHIPMATE_CLICKHOUSE_CLUSTER`) every statement runs `ON CLUSTER`: each shard's
//! replicas keep `events_local` as a `ReplicatedReplacingMergeTree` (ZooKeeper paths from the
//! servers' `{shard}` and `{replica}` macros), and `events` is a `Distributed` table over them,
//! sharded by visitor so a visitor's day (their visits, their funnel) lives on one shard.
//! `schema_migrations` is replicated to every server.

use super::client::Client;

/// The events' columns, and their order (the same in both layouts).
const COLUMNS: &str = "(
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
)";

// A replacing engine on a key ending in (entry, seq): a row stored twice (an insert retried after
// its answer was lost) has its twin's key, and merges keep one (`store` checks the rest; on a
// cluster, replicated inserts also drop a block sent again). Sorted by project, day and visitor:
// reads take one project's days, visits one visitor's events in order.
const LAYOUT: &str =
    "PARTITION BY toYYYYMM(day) ORDER BY (project_id, day, visitor, t, entry, seq)";

/// The statements of each step, in order; a step is never edited once released (add one instead).
fn steps(db: &str, cluster: Option<&str>) -> Vec<(u32, Vec<String>)> {
    // Sharded by visitor: a visitor's day (their visits, their funnel) is whole on one shard.
    let events = table(
        (db, cluster),
        "events",
        COLUMNS,
        "ReplacingMergeTree",
        LAYOUT,
        "intHash64(visitor)",
    );
    vec![
        (1, events),
        (2, day_summaries(db, cluster)),
        (3, revenue(db, cluster)),
        (4, filtered_summaries(db, cluster)),
        (5, funnel_days(db, cluster)),
        (6, sorted_copy(db, cluster)),
        (7, open_day(db, cluster)),
        (8, paired_days(db, cluster)),
    ]
}

/// One table: on a cluster, each shard's replicas keep `{name}_local` (the replicated `engine`, its
/// ZooKeeper path from the servers' `{shard}` and `{replica}` macros) and `{name}` is a
/// `Distributed` table over them, its rows spread by `shard_by`.
fn table(
    (db, cluster): (&str, Option<&str>),
    name: &str,
    columns: &str,
    engine: &str,
    layout: &str,
    shard_by: &str,
) -> Vec<String> {
    let Some(c) = cluster else {
        return vec![format!(
            "CREATE TABLE IF NOT EXISTS {db}.{name} {columns} ENGINE = {engine} {layout}"
        )];
    };
    vec![
        format!(
            "CREATE TABLE IF NOT EXISTS {db}.{name}_local ON CLUSTER {c} {columns}
             ENGINE = Replicated{engine}('/clickhouse/tables/{{shard}}/{db}/{name}', '{{replica}}') {layout}"
        ),
        format!(
            "CREATE TABLE IF NOT EXISTS {db}.{name} ON CLUSTER {c} AS {db}.{name}_local
             ENGINE = Distributed({c}, {db}, {name}_local, {shard_by})"
        ),
    ]
}

/// Closed days' figures (`summaries`): per project, day and dimension (a column of the events,
/// or `total`, `entry`, `exit`, `duration`), each key's views and that day's visitors, each row of
/// the summary run (`run`) that wrote it; the days' visits, for filtered visit reads; and each
/// summarised day's current run, with the number of events it was made from (on every server of a
/// cluster).
fn day_summaries(db: &str, cluster: Option<&str>) -> Vec<String> {
    let columns = "(project_id UUID, day Date, dim String, key String, views UInt64,
                    visitors UInt64, run UInt64)";
    let layout = "PARTITION BY toYYYYMM(day) ORDER BY (project_id, dim, day, key)";
    let mut statements = table(
        (db, cluster),
        "daily",
        columns,
        "MergeTree",
        layout,
        "cityHash64(key)",
    );
    // Each visit with a page view, and its events' dimensions as arrays in event order (`d_path`,
    // ... `d_name`): a filtered read asks whether one event of the visit matches every filter.
    let dims: String = crate::query::Dim::ALL
        .iter()
        .map(|d| format!(", d_{} Array(String)", d.column()))
        .collect();
    let visits = format!(
        "(project_id UUID, day Date, visitor Int64, started UInt64, ended UInt64, page_views UInt32,
          entry String, exit String, run UInt64{dims})"
    );
    statements.extend(table(
        (db, cluster),
        "visits",
        &visits,
        "MergeTree",
        "PARTITION BY toYYYYMM(day) ORDER BY (project_id, day, visitor, started)",
        "intHash64(visitor)",
    ));
    statements.push(days_table(db, cluster, "summarised_days"));
    statements
}

/// Creates the database if missing and brings its tables to the newest step.
pub async fn migrate(client: &Client) -> anyhow::Result<()> {
    let db = &client.database;
    let on = client
        .cluster
        .as_deref()
        .map(|c| format!(" ON CLUSTER {c}"))
        .unwrap_or_default();
    client
        .execute_server(&format!("CREATE DATABASE IF NOT EXISTS {db}{on}"))
        .await?;
    let versions = match &client.cluster {
        None => format!("CREATE TABLE IF NOT EXISTS {db}.schema_migrations (version UInt32) ENGINE = TinyLog"),
        Some(_) => format!(
            "CREATE TABLE IF NOT EXISTS {db}.schema_migrations{on} (version UInt32)
             ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/{db}/schema_migrations', '{{replica}}') ORDER BY version"
        ),
    };
    client.execute(&versions).await?;
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
    for (version, statements) in steps(db, client.cluster.as_deref()) {
        if !done.contains(&version) {
            for sql in statements {
                client.execute(&sql).await?;
            }
            client
                .execute(&format!(
                    "INSERT INTO schema_migrations (version) VALUES ({version})"
                ))
                .await?;
        }
    }
    Ok(())
}

/// Revenue on events (step 3): whole millionths of the unit and the ISO 4217 code, 0 and '' for
/// the events without. On a cluster the replicated tables change `ON CLUSTER`; 18.16 alters no
/// `Distributed` table that way, so it is made again over them (it holds no rows: inserts through
/// it are synchronous; a read or insert in that instant fails and is retried).
fn revenue(db: &str, cluster: Option<&str>) -> Vec<String> {
    let columns =
        "ADD COLUMN revenue_micros Int64 DEFAULT 0, ADD COLUMN revenue_currency String DEFAULT ''";
    match cluster {
        None => vec![format!("ALTER TABLE {db}.events {columns}")],
        Some(c) => vec![
            format!("ALTER TABLE {db}.events_local ON CLUSTER {c} {columns}"),
            format!("DROP TABLE IF EXISTS {db}.events ON CLUSTER {c}"),
            format!(
                "CREATE TABLE IF NOT EXISTS {db}.events ON CLUSTER {c} AS {db}.events_local
                 ENGINE = Distributed({c}, {db}, events_local, intHash64(visitor))"
            ),
        ],
    }
}

/// Closed days' figures under one filter (step 4): per project, day, filter (a dimension's column
/// and a value) and dimension, each key's views and visitors over the events matching the filter,
/// and the entry, exit and duration rows of the visits holding such an event, sorted by filter
/// first (a read with one filter takes one filter's rows); and the goals' conversions per source.
/// The summarised days are named in `closed_days` from here on (as `summarised_days` was, which
/// stays, unread): a day summarised before this step is summarised again by the upkeep, its reads
/// taken from the events until then.
fn filtered_summaries(db: &str, cluster: Option<&str>) -> Vec<String> {
    let columns = "(project_id UUID, day Date, fdim String, fval String, dim String, key String,
                    views UInt64, visitors UInt64, run UInt64)";
    let layout = "PARTITION BY toYYYYMM(day) ORDER BY (project_id, fdim, fval, dim, day, key)";
    let mut statements = table(
        (db, cluster),
        "daily_by",
        columns,
        "MergeTree",
        layout,
        "cityHash64(fval, key)",
    );
    // Goals' conversions per source (`conversions`): per goal (an event name or a path), source
    // dimension and key, the visitor days with both (`currency` ''), and the revenue of the goal's
    // events in each currency those days.
    statements.extend(table(
        (db, cluster),
        "goal_daily",
        "(project_id UUID, day Date, gdim String, gval String, dim String, key String,
          currency String, conversions UInt64, revenue_micros Int64, revenue_events UInt64,
          run UInt64)",
        "MergeTree",
        "PARTITION BY toYYYYMM(day) ORDER BY (project_id, gdim, gval, dim, day, key, currency)",
        "cityHash64(gval, key)",
    ));
    statements.push(days_table(db, cluster, "closed_days"));
    statements
}

/// Funnels' counts per closed day (step 5, `funnels`): per project, funnel (its steps'
/// conditions) and day, the visitors at each step, under the day's summary run.
fn funnel_days(db: &str, cluster: Option<&str>) -> Vec<String> {
    table(
        (db, cluster),
        "funnel_daily",
        "(project_id UUID, funnel String, day Date, run UInt64, reached Array(Int64))",
        "MergeTree",
        "PARTITION BY toYYYYMM(day) ORDER BY (project_id, funnel, day)",
        "cityHash64(funnel)",
    )
}

/// The closed days' events sorted by each filter (step 6, `by_filter`), for reads with two
/// filters or more, sharded by visitor as the events are. Their days are named in `summary_days`
/// from here on: a day summarised before this step has no copy, so the upkeep summarises it again
/// (its reads with two filters come from the events until then). `closed_days` stays, unread, and
/// so does `visits` (step 2), which the copy replaces and no run writes any more.
fn sorted_copy(db: &str, cluster: Option<&str>) -> Vec<String> {
    let mut statements = table(
        (db, cluster),
        "events_by",
        super::by_filter::TABLE,
        "MergeTree",
        "PARTITION BY toYYYYMM(day) ORDER BY (project_id, fdim, fval, day, visitor, hour)",
        "intHash64(visitor)",
    );
    statements.push(days_table(db, cluster, "summary_days"));
    statements
}

/// The days summarised with rows under pairs of a value and a visitor's (step 8, `sql::paired`):
/// a day summarised before has none, so the upkeep summarises it again (its reads come from the
/// events until then); `summary_days` stays, unread.
fn paired_days(db: &str, cluster: Option<&str>) -> Vec<String> {
    vec![days_table(db, cluster, super::summaries::DAYS)]
}

/// The open day's ended visits (step 7, `open_day`): `open_visits`, each visit of a step's run,
/// sharded by visitor as the events are; and `open_cuts`, per day each step's run, the run it
/// adds to, its cutoff and the events before it, on every server of a cluster. Both by day, so the
/// upkeep drops a day's partition once the day is summarised.
fn open_day(db: &str, cluster: Option<&str>) -> Vec<String> {
    let mut statements = table(
        (db, cluster),
        super::open_day::VISITS,
        "(project_id UUID, day Date, visitor Int64, started UInt64, ended UInt64,
          page_views UInt32, entry String, exit String, run UInt64)",
        "MergeTree",
        "PARTITION BY day ORDER BY (project_id, day, visitor, started)",
        "intHash64(visitor)",
    );
    let (name, columns) = (
        super::open_day::CUTS,
        "(day Date, run UInt64, prev UInt64, cutoff UInt64, events UInt64)",
    );
    let layout = "PARTITION BY day ORDER BY (day, run)";
    statements.push(match cluster {
        None => format!(
            "CREATE TABLE IF NOT EXISTS {db}.{name} {columns} ENGINE = MergeTree {layout}"
        ),
        Some(c) => format!(
            "CREATE TABLE IF NOT EXISTS {db}.{name} ON CLUSTER {c} {columns}
             ENGINE = ReplicatedMergeTree('/clickhouse/tables/all/{db}/{name}', '{{replica}}') {layout}"
        ),
    });
    statements
}

/// The summarised days, each with its current run (the latest), on every server of a cluster.
fn days_table(db: &str, cluster: Option<&str>, name: &str) -> String {
    let days = "(day Date, events UInt64, run UInt64)";
    match cluster {
        None => format!("CREATE TABLE IF NOT EXISTS {db}.{name} {days} ENGINE = ReplacingMergeTree(run) ORDER BY day"),
        Some(c) => format!(
            "CREATE TABLE IF NOT EXISTS {db}.{name} ON CLUSTER {c} {days}
             ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/all/{db}/{name}', '{{replica}}', run) ORDER BY day"
        ),
    }
}
