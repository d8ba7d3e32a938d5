//! The daily salts visitor hashes are made with: one per UTC day, shared by every process through
//! Postgres, and deleted once the day has ended so a hash can no longer be linked to an address.

use chrono::NaiveDate;
use sqlx::PgPool;

use shipmate_core::AppResult;

/// The salt of `day`, made on first use (every process that asks gets the same one).
pub async fn salt_for(db: &PgPool, day: NaiveDate) -> AppResult<Vec<u8>> {
    let fresh: [u8; 32] = rand::random();
    sqlx::query!(
        "insert into analytics_salts (day, salt) values ($1, $2) on conflict (day) do nothing",
        day,
        fresh.as_slice()
    )
    .execute(db)
    .await?;
    Ok(
        sqlx::query_scalar!("select salt from analytics_salts where day = $1", day)
            .fetch_one(db)
            .await?,
    )
}

/// Deletes the salts of every day that has ended (UTC, by Postgres's clock, which all processes
/// share). Run by the workers' housekeeping once a minute, whether or not events arrive: a day's
/// visitor hashes can no longer be linked to an address or to another day within a minute of its
/// end. Answers how many went.
pub async fn purge_salts(db: &PgPool) -> AppResult<u64> {
    Ok(
        sqlx::query!("delete from analytics_salts where day < (now() at time zone 'UTC')::date")
            .execute(db)
            .await?
            .rows_affected(),
    )
}
