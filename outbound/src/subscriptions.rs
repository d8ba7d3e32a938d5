//! Who gets which email: members' notification settings, changelog subscribers (double opt-in),
//! voters and submitters (status updates), unsubscribes and suppressed addresses.

use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::email::{self, Kind, Template};
use shipmate_core::tokens::random_token;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::email::{
    NotificationChanges, Notifications, SubscriberCounts, Suppression,
};

/// Where links in emails point, and whether email is configured at all (nothing is queued if not).
#[derive(Clone, Copy)]
pub struct Mail<'a> {
    pub configured: bool,
    pub public_url: &'a str,
}

impl Mail<'_> {
    fn unsubscribe_url(&self, token: &str) -> String {
        format!(
            "{}/subscriptions/unsubscribe?token={token}",
            self.public_url
        )
    }
}

pub async fn notifications(
    db: &PgPool,
    project_id: Uuid,
    user_id: Uuid,
    email_configured: bool,
) -> AppResult<Notifications> {
    let row = sqlx::query!(
        r#"select coalesce(notify_new_feedback, role = 'owner') as "new_feedback!",
                  coalesce(notify_new_testimonial, role = 'owner') as "new_testimonial!",
                  notify_weekly_report, notify_analytics_alerts
           from project_members where project_id = $1 and user_id = $2"#,
        project_id,
        user_id
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("membership"))?;
    Ok(Notifications {
        new_feedback: row.new_feedback,
        new_testimonial: row.new_testimonial,
        weekly_report: row.notify_weekly_report,
        analytics_alerts: row.notify_analytics_alerts,
        email_configured,
    })
}

pub async fn set_notifications(
    db: &PgPool,
    project_id: Uuid,
    user_id: Uuid,
    changes: &NotificationChanges,
) -> AppResult<()> {
    sqlx::query!(
        "update project_members set notify_new_feedback = coalesce($3, notify_new_feedback),
            notify_new_testimonial = coalesce($4, notify_new_testimonial),
            notify_weekly_report = coalesce($5, notify_weekly_report),
            notify_analytics_alerts = coalesce($6, notify_analytics_alerts)
         where project_id = $1 and user_id = $2",
        project_id,
        user_id,
        changes.new_feedback,
        changes.new_testimonial,
        changes.weekly_report,
        changes.analytics_alerts
    )
    .execute(db)
    .await?;
    Ok(())
}

/// Queues `template` (rendered once) to every member who wants this kind of notification.
pub async fn notify_members(
    tx: &mut PgConnection,
    mail: Mail<'_>,
    project_id: Uuid,
    template: Template<'_>,
) -> AppResult<Vec<Uuid>> {
    if !mail.configured {
        return Ok(Vec::new());
    }
    let column = match template.kind {
        Kind::NewFeedback => "notify_new_feedback",
        _ => "notify_new_testimonial",
    };
    let recipients = sqlx::query_scalar::<_, String>(&format!(
        "select u.email from project_members m join users u on u.id = m.user_id
         where m.project_id = $1 and coalesce(m.{column}, m.role = 'owner') and u.disabled_at is null"
    ))
    .bind(project_id)
    .fetch_all(&mut *tx)
    .await?;
    let rendered = template.render();
    let messages = recipients
        .into_iter()
        .map(|to| (to, rendered.clone()))
        .collect();
    email::queue(tx, Some(project_id), template.kind, messages).await
}

/// Queues a message per address with that address's own unsubscribe link: `render` gets the link.
/// `kind` names the list (`changelog` or `updates`); unsubscribed addresses are skipped.
async fn to_list(
    tx: &mut PgConnection,
    mail: Mail<'_>,
    project_id: Uuid,
    kind: Kind,
    recipients: Vec<(String, String)>,
    render: impl Fn(String) -> Template<'static>,
) -> AppResult<Vec<Uuid>> {
    let messages = recipients
        .into_iter()
        .map(|(to, token)| (to, render(mail.unsubscribe_url(&token)).render()))
        .collect();
    email::queue(tx, Some(project_id), kind, messages).await
}

/// Status updates go to the entry's upvoters and its submitter, each with a token of their own
/// (made on first use, as taking part is their consent).
pub async fn notify_followers(
    tx: &mut PgConnection,
    mail: Mail<'_>,
    project_id: Uuid,
    feedback_id: Uuid,
    render: impl Fn(String) -> Template<'static>,
) -> AppResult<Vec<Uuid>> {
    if !mail.configured {
        return Ok(Vec::new());
    }
    let emails = sqlx::query_scalar!(
        r#"select distinct lower(email) as "email!" from (
            select u.email from feedback_votes v join users u on u.id = v.user_id
            where v.feedback_id = $1 and v.value > 0
            union all
            select e.email from feedback_votes v join end_users e on e.id = v.end_user_id
            where v.feedback_id = $1 and v.value > 0 and e.email is not null
            union all
            select submitter_email from feedback where id = $1 and submitter_email is not null) e"#,
        feedback_id
    )
    .fetch_all(&mut *tx)
    .await?;
    if emails.is_empty() {
        return Ok(Vec::new());
    }
    let tokens: Vec<String> = emails.iter().map(|_| new_token()).collect();
    let rows = sqlx::query!(
        "insert into subscriptions (id, project_id, email, kind, token, confirmed_at)
         select gen_random_uuid(), $1, e, 'updates', t, now() from unnest($2::text[], $3::text[]) as u(e, t)
         on conflict (project_id, kind, email) do update set email = excluded.email
         returning email, token, unsubscribed_at",
        project_id,
        &emails,
        &tokens
    )
    .fetch_all(&mut *tx)
    .await?;
    let recipients = rows
        .into_iter()
        .filter(|r| r.unsubscribed_at.is_none())
        .map(|r| (r.email, r.token))
        .collect();
    to_list(
        tx,
        mail,
        project_id,
        Kind::StatusChanged,
        recipients,
        render,
    )
    .await
}

/// A published entry goes to every confirmed, still subscribed address.
pub async fn notify_subscribers(
    tx: &mut PgConnection,
    mail: Mail<'_>,
    project_id: Uuid,
    render: impl Fn(String) -> Template<'static>,
) -> AppResult<Vec<Uuid>> {
    if !mail.configured {
        return Ok(Vec::new());
    }
    let recipients = sqlx::query!(
        "select email, token from subscriptions
         where project_id = $1 and kind = 'changelog' and confirmed_at is not null and unsubscribed_at is null",
        project_id
    )
    .fetch_all(&mut *tx)
    .await?
    .into_iter()
    .map(|r| (r.email, r.token))
    .collect();
    to_list(
        tx,
        mail,
        project_id,
        Kind::ChangelogEntry,
        recipients,
        render,
    )
    .await
}

fn new_token() -> String {
    random_token("sub_", 32)
}

/// A changelog subscription: a new or unconfirmed address gets the confirmation email; one already
/// confirmed gets nothing (and the answer is the same, so it reveals nothing).
pub async fn subscribe(
    tx: &mut PgConnection,
    mail: Mail<'_>,
    project: (Uuid, &str),
    email_address: &str,
) -> AppResult<Vec<Uuid>> {
    let (project_id, project_name) = project;
    let row = sqlx::query!(
        r#"insert into subscriptions (id, project_id, email, kind, token)
           values (gen_random_uuid(), $1, lower($2), 'changelog', $3)
           on conflict (project_id, kind, email) do update set unsubscribed_at = case
               when subscriptions.confirmed_at is null then null else subscriptions.unsubscribed_at end
           returning token, confirmed_at is not null and unsubscribed_at is null as "confirmed!""#,
        project_id,
        email_address,
        new_token()
    )
    .fetch_one(&mut *tx)
    .await?;
    let (token, confirmed) = (row.token, row.confirmed);
    if confirmed || !mail.configured {
        return Ok(Vec::new());
    }
    let confirm = format!("{}/subscriptions/confirm?token={token}", mail.public_url);
    let message = Template {
        kind: Kind::SubscriptionConfirm,
        subject: format!("Confirm your subscription to {project_name}'s changelog"),
        heading: format!("Subscribe to {project_name}'s changelog?"),
        paragraphs: vec![
            "Someone (hopefully you) asked to receive new changelog entries at this address. Nothing is sent until you confirm.".into(),
        ],
        action: Some(("Confirm subscription", confirm)),
        // Every message to a subscriber carries the one-click link, this one too.
        unsubscribe_url: Some(mail.unsubscribe_url(&token)),
    }
    .render();
    email::queue(
        tx,
        Some(project_id),
        Kind::SubscriptionConfirm,
        vec![(email_address.to_lowercase(), message)],
    )
    .await
}

/// Confirms a changelog subscription (idempotent); also undoes an earlier unsubscribe.
pub async fn confirm(db: &PgPool, token: &str) -> AppResult<String> {
    sqlx::query_scalar!(
        "update subscriptions s set confirmed_at = coalesce(confirmed_at, now()), unsubscribed_at = null
         from projects p where s.token = $1 and s.kind = 'changelog' and p.id = s.project_id
         returning p.name",
        token
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("subscription"))
}

/// Ends a subscription or status updates (idempotent); answers the project's name.
pub async fn unsubscribe(db: &PgPool, token: &str) -> AppResult<String> {
    sqlx::query_scalar!(
        "update subscriptions s set unsubscribed_at = coalesce(unsubscribed_at, now())
         from projects p where s.token = $1 and p.id = s.project_id returning p.name",
        token
    )
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("subscription"))
}

pub async fn counts(db: &PgPool, project_id: Uuid) -> AppResult<SubscriberCounts> {
    let row = sqlx::query!(
        r#"select count(*) filter (where confirmed_at is not null) as "confirmed!",
                  count(*) filter (where confirmed_at is null) as "pending!"
           from subscriptions where project_id = $1 and kind = 'changelog' and unsubscribed_at is null"#,
        project_id
    )
    .fetch_one(db)
    .await?;
    Ok(SubscriberCounts {
        confirmed: row.confirmed,
        pending: row.pending,
    })
}

/// Records a permanent failure for the address (kept lower-case).
pub async fn suppress(db: &PgPool, address: &str, reason: &str) -> AppResult<()> {
    sqlx::query!(
        "insert into email_suppressions (email, reason) values (lower($1), $2)
         on conflict (email) do update set reason = excluded.reason",
        address,
        reason
    )
    .execute(db)
    .await?;
    Ok(())
}

pub async fn suppressions(db: &PgPool) -> AppResult<Vec<Suppression>> {
    Ok(sqlx::query_as!(
        Suppression,
        "select email, reason, created_at from email_suppressions order by created_at desc limit 1000"
    )
    .fetch_all(db)
    .await?)
}

pub async fn lift(db: &PgPool, address: &str) -> AppResult<()> {
    let done = sqlx::query!(
        "delete from email_suppressions where email = lower($1)",
        address
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found("suppressed address"));
    }
    Ok(())
}
