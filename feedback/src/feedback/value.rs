//! The customer value behind entries: the summed MRR of the upvoters' distinct companies (kept on
//! the entry, so members sort by it with an index), the companies themselves, and the voters.

use std::collections::HashMap;

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::{Feedback, Importance};
use shipmate_core::AppResult;
use shipmate_types::customers::{Company, Voter};

/// Sets `mrr` of the entries from their upvoters' companies as they are now (the `feedback_mrr` SQL
/// function).
async fn refresh_mrr(db: &mut PgConnection, ids: &[Uuid]) -> AppResult<()> {
    sqlx::query!(
        "update feedback f set mrr = feedback_mrr(f.id) where f.id = any($1)",
        ids
    )
    .execute(db)
    .await?;
    Ok(())
}

/// After an identify changed who the end user works for or what their company pays: the entries
/// they, or anyone of the company, upvoted, recomputed under their row locks (in id order, as
/// votes take them one at a time).
pub async fn refresh_for_customer(
    db: &PgPool,
    end_user_id: Uuid,
    company_id: Option<Uuid>,
) -> AppResult<()> {
    let mut tx = db.begin().await?;
    let ids = sqlx::query_scalar!(
        "select id from feedback where id in (
            select v.feedback_id from feedback_votes v
            where v.value = 1 and (v.end_user_id = $1 or v.end_user_id in (
                select e.id from end_users e where e.company_id = $2)))
         order by id for update",
        end_user_id,
        company_id
    )
    .fetch_all(&mut *tx)
    .await?;
    if !ids.is_empty() {
        refresh_mrr(&mut tx, &ids).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Fills `companies` of members' entries: the upvoters' distinct companies, by MRR.
pub async fn fill_companies(db: &PgPool, entries: &mut [Feedback]) -> AppResult<()> {
    let ids: Vec<Uuid> = entries.iter().map(|e| e.id).collect();
    let rows = sqlx::query!(
        r#"select distinct v.feedback_id, c.external_id, c.name, c.mrr, c.plan
           from feedback_votes v join end_users e on e.id = v.end_user_id
           join companies c on c.id = e.company_id
           where v.feedback_id = any($1) and v.value = 1"#,
        &ids
    )
    .fetch_all(db)
    .await?;
    let mut by_entry: HashMap<Uuid, Vec<Company>> = HashMap::new();
    for r in rows {
        by_entry.entry(r.feedback_id).or_default().push(Company {
            id: r.external_id,
            name: r.name,
            mrr: r.mrr,
            plan: r.plan,
        });
    }
    for e in entries {
        let mut companies = by_entry.remove(&e.id).unwrap_or_default();
        companies.sort_by(|a, b| {
            b.mrr
                .unwrap_or(0.0)
                .total_cmp(&a.mrr.unwrap_or(0.0))
                .then_with(|| a.name.cmp(&b.name))
        });
        e.companies = Some(companies);
    }
    Ok(())
}

/// The entry's upvoters, newest vote first, with their company and how much it matters to them.
pub async fn voters(db: &PgPool, id: Uuid) -> AppResult<Vec<Voter>> {
    let rows = sqlx::query!(
        r#"select coalesce(e.name, u.name) as "name!", coalesce(e.email, u.email) as email,
              c.external_id as "company_id?", c.name as "company_name?", c.mrr as "mrr?", c.plan as "plan?",
              v.importance as "importance: Importance", v.created_at
           from feedback_votes v
           left join end_users e on e.id = v.end_user_id
           left join users u on u.id = v.user_id
           left join companies c on c.id = e.company_id
           where v.feedback_id = $1 and v.value = 1
           order by v.created_at desc, coalesce(e.name, u.name)
           limit 1000"#,
        id
    )
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| Voter {
            name: r.name,
            email: r.email,
            company: r.company_id.zip(r.company_name).map(|(id, name)| Company {
                id,
                name,
                mrr: r.mrr,
                plan: r.plan,
            }),
            importance: r.importance,
            voted_at: r.created_at,
        })
        .collect())
}
