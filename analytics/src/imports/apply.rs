//! Applying imports (the workers). The oldest pending import is claimed under a lease (another
//! worker takes it over once the lease is out: a worker killed mid-import loses nothing), its file
//! read into daily figures on the blocking pool, and the figures stored with the import marked
//! done in one transaction. A file that cannot be read, or whose days overlap another import's,
//! is marked failed with the reason and keeps nothing.

use chrono::NaiveDate;
use shipmate_core::{AppError, AppResult};
use sqlx::PgPool;
use uuid::Uuid;

use super::{plausible, Figures, Kind};

/// Rows per insert (and per step of the progress).
const BATCH: usize = 20_000;

/// An import a worker took on.
pub struct Claimed {
    pub id: Uuid,
    pub project_id: Uuid,
    pub file_name: String,
    pub file: Vec<u8>,
}

/// The oldest pending import nobody holds (or whose holder's lease of 5 minutes is out).
pub async fn claim(db: &PgPool) -> AppResult<Option<Claimed>> {
    Ok(sqlx::query_as!(
        Claimed,
        r#"update analytics_imports set claimed_at = now()
           where id = (select id from analytics_imports
                       where status = 'pending' and file is not null
                         and (claimed_at is null or claimed_at < now() - interval '5 minutes')
                       order by created_at limit 1 for update skip locked)
           returning id, project_id, file_name, file as "file!""#
    )
    .fetch_optional(db)
    .await?)
}

/// Applies a claimed import whole: `true` when done, `false` when it failed (the reason kept) or
/// was deleted meanwhile.
pub async fn apply(db: &PgPool, claimed: Claimed) -> AppResult<bool> {
    let Claimed {
        id,
        project_id,
        file_name,
        file,
    } = claimed;
    let read = tokio::task::spawn_blocking(move || {
        let tables = plausible::tables(&file_name, file).map_err(|u| u.0)?;
        plausible::daily(&tables)
    })
    .await
    .map_err(|e| AppError::Internal(e.into()))?;
    let daily = match read {
        Ok(d) if !d.is_empty() => d,
        Ok(_) => return fail(db, id, "the export holds no rows").await,
        Err(reason) => return fail(db, id, &reason).await,
    };
    let from = daily.keys().map(|(d, _, _)| *d).min().unwrap_or_default();
    let to = daily.keys().map(|(d, _, _)| *d).max().unwrap_or_default();
    if let Some(other) = overlapping(db, project_id, id, from, to).await? {
        let reason = format!(
            "its days ({from} to {to}) overlap those of the import of {other}: delete that one first"
        );
        return fail(db, id, &reason).await;
    }
    // In the reads' order: a read's rows (one kind, a range of days) then sit on few pages.
    let mut rows: Vec<_> = daily.into_iter().collect();
    rows.sort_unstable_by_key(|r| (r.0 .1 as i16, r.0 .0));
    let mut tx = db.begin().await?;
    // A key-share lock: a delete waits for this transaction, the progress updates do not.
    let exists = sqlx::query_scalar!(
        "select 1 as \"one!\" from analytics_imports where id = $1 for key share",
        id
    )
    .fetch_optional(&mut *tx)
    .await?;
    if exists.is_none() {
        return Ok(false);
    }
    for (i, chunk) in rows.chunks(BATCH).enumerate() {
        insert(&mut tx, id, project_id, chunk).await?;
        let done = ((i + 1) * BATCH).min(rows.len()) * 100 / rows.len();
        sqlx::query!(
            "update analytics_imports set progress = $2 where id = $1",
            id,
            done.min(99) as i32
        )
        .execute(db)
        .await?;
    }
    sqlx::query!(
        "update analytics_imports set status = 'done', progress = 100, file = null,
             from_day = $2, to_day = $3, rows = $4, finished_at = now()
         where id = $1",
        id,
        from,
        to,
        rows.len() as i64
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    // Statistics now, not when autovacuum gets to them: a year of rows arrives at once, and the
    // reads' plans (the index on project, kind and day) depend on knowing it.
    sqlx::raw_sql("analyze analytics_imported")
        .execute(db)
        .await?;
    Ok(true)
}

async fn insert(
    tx: &mut sqlx::PgConnection,
    id: Uuid,
    project_id: Uuid,
    rows: &[((NaiveDate, Kind, String), Figures)],
) -> AppResult<()> {
    let mut cols: (Vec<NaiveDate>, Vec<i16>, Vec<String>) = Default::default();
    let mut n: [Vec<i64>; 5] = Default::default();
    for ((day, kind, key), f) in rows {
        cols.0.push(*day);
        cols.1.push(*kind as i16);
        cols.2.push(key.clone());
        for (v, x) in n
            .iter_mut()
            .zip([f.visitors, f.views, f.visits, f.bounces, f.duration])
        {
            v.push(x);
        }
    }
    let [visitors, views, visits, bounces, duration] = n;
    sqlx::query!(
        "insert into analytics_imported
             (import_id, project_id, day, kind, key, visitors, views, visits, bounces, duration)
         select $1, $2, * from unnest($3::date[], $4::int2[], $5::text[], $6::int8[], $7::int8[],
                                      $8::int8[], $9::int8[], $10::int8[])",
        id,
        project_id,
        &cols.0,
        &cols.1,
        &cols.2,
        &visitors,
        &views,
        &visits,
        &bounces,
        &duration
    )
    .execute(tx)
    .await?;
    Ok(())
}

/// The file name of another done import of the project with a day in `from..=to`.
async fn overlapping(
    db: &PgPool,
    project_id: Uuid,
    id: Uuid,
    from: NaiveDate,
    to: NaiveDate,
) -> AppResult<Option<String>> {
    Ok(sqlx::query_scalar!(
        "select file_name from analytics_imports
         where project_id = $1 and id <> $2 and status = 'done' and from_day <= $4 and to_day >= $3
         limit 1",
        project_id,
        id,
        from,
        to
    )
    .fetch_optional(db)
    .await?)
}

async fn fail(db: &PgPool, id: Uuid, reason: &str) -> AppResult<bool> {
    tracing::warn!(import_id = %id, reason, "import failed; nothing of it kept");
    sqlx::query!(
        "update analytics_imports set status = 'failed', error = $2, file = null, finished_at = now()
         where id = $1",
        id,
        reason
    )
    .execute(db)
    .await?;
    Ok(false)
}
