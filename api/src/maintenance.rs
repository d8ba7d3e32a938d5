//! Commands an operator runs beside the service (`shipmate-api analytics ...`).

use std::io::{IsTerminal, Write};

use anyhow::Context;
use chrono::{DurationRound, TimeDelta, Utc};
use shipmate_analytics::clickhouse::{copy, ClickHouse};

use crate::settings::ApiSettings;

/// `analytics copy-to-clickhouse`: the hours that ended before now, with a progress bar on a
/// terminal (a line per tenth otherwise) and the final count. Fails when the counts differ.
pub async fn copy_to_clickhouse(
    settings: &ApiSettings,
    hours: Option<usize>,
) -> anyhow::Result<()> {
    let url = settings
        .common
        .analytics
        .clickhouse_url
        .as_deref()
        .context(
            "set SHIPMATE_CLICKHOUSE_URL (or --clickhouse-url) to the ClickHouse to copy into",
        )?;
    let db = shipmate_core::db::connect(&settings.common.database_url, 2).await?;
    let cluster = settings.common.analytics.clickhouse_cluster.as_deref();
    let ch = ClickHouse::connect(url, cluster, db.clone()).await?;
    // An hour still going on may get more events: it is copied by a later run.
    let before = Utc::now().duration_trunc(TimeDelta::hours(1))?;
    let terminal = std::io::stderr().is_terminal();
    let mut shown = 0;
    let run = copy::copy(&ch, &db, before, hours, |done, total| {
        let percent = (done * 100).checked_div(total).unwrap_or(100);
        let mut err = std::io::stderr();
        if terminal {
            let bar = "#".repeat(percent as usize / 4);
            let _ = write!(err, "\r[{bar:<25}] {percent:>3}%  {done} of {total} events");
        } else if percent >= shown + 10 || done == total {
            shown = percent - percent % 10;
            let _ = writeln!(
                err,
                "copy-to-clickhouse: {percent}% ({done} of {total} events)"
            );
        }
    })
    .await?;
    if terminal {
        eprintln!();
    }
    eprintln!(
        "copy-to-clickhouse: copied {} events in {} hours ({} hours copied before); PostgreSQL holds {} events before {before}, ClickHouse {} copies",
        run.events, run.hours, run.skipped, run.in_postgres, run.in_clickhouse
    );
    if hours.is_none() && run.in_postgres != run.in_clickhouse {
        anyhow::bail!(
            "the counts differ: {} in PostgreSQL, {} in ClickHouse",
            run.in_postgres,
            run.in_clickhouse
        );
    }
    Ok(())
}
