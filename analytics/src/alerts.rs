//! Alerts: a traffic spike (visitors of the last hour above the threshold), a traffic drop (below
//! it) or a goal (its conversions of the last hour above it), checked by the workers' schedule.
//! An alert goes off once per episode: the update that sets `firing` is the claim (two workers
//! never both fire it), and it is armed again once a check finds the condition clear. Going off
//! queues an email to the members who opted in and the `analytics.alert` webhook event.

use chrono::{DateTime, Duration, Utc};
use shipmate_types::alerts::{Alert, AlertFired, NewAlert};
use shipmate_types::AlertKind;
use sqlx::PgPool;
use uuid::Uuid;

use super::goals::Target;
use super::query::Filters;
use super::seam::EventStore;
use shipmate_core::{AppError, AppResult};
use shipmate_outbound::email::{self, Kind, Template};
use shipmate_outbound::events::{emit, EventType};

/// The window each check counts.
pub const WINDOW: Duration = Duration::hours(1);

struct Record {
    id: Uuid,
    project_id: Uuid,
    kind: String,
    threshold: i64,
    goal_id: Option<Uuid>,
    firing: bool,
    value: Option<i64>,
    fired_at: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
}

impl From<Record> for Alert {
    fn from(r: Record) -> Self {
        Alert {
            id: r.id,
            project_id: r.project_id,
            kind: AlertKind::parse(&r.kind).unwrap_or(AlertKind::TrafficSpike),
            threshold: r.threshold,
            goal_id: r.goal_id,
            firing: r.firing,
            value: r.value,
            fired_at: r.fired_at,
            created_at: r.created_at,
        }
    }
}

pub async fn create(db: &PgPool, new: NewAlert) -> AppResult<Alert> {
    if let Some(goal) = new.goal_id {
        if super::goals::project_of(db, goal).await? != new.project_id {
            return Err(AppError::not_found("goal"));
        }
    }
    Ok(sqlx::query_as!(
        Record,
        "insert into analytics_alerts (id, project_id, kind, threshold, goal_id) values ($1, $2, $3, $4, $5)
         returning id, project_id, kind, threshold, goal_id, firing, value, fired_at, created_at",
        Uuid::now_v7(),
        new.project_id,
        new.kind.as_str(),
        new.threshold,
        new.goal_id
    )
    .fetch_one(db)
    .await?
    .into())
}

pub async fn list(db: &PgPool, project_id: Uuid) -> AppResult<Vec<Alert>> {
    Ok(sqlx::query_as!(
        Record,
        "select id, project_id, kind, threshold, goal_id, firing, value, fired_at, created_at
         from analytics_alerts where project_id = $1 order by created_at, id",
        project_id
    )
    .fetch_all(db)
    .await?
    .into_iter()
    .map(Alert::from)
    .collect())
}

pub async fn project_of(db: &PgPool, id: Uuid) -> AppResult<Uuid> {
    sqlx::query_scalar!("select project_id from analytics_alerts where id = $1", id)
        .fetch_optional(db)
        .await?
        .ok_or_else(|| AppError::not_found("alert"))
}

pub async fn delete(db: &PgPool, id: Uuid) -> AppResult<()> {
    sqlx::query!("delete from analytics_alerts where id = $1", id)
        .execute(db)
        .await?;
    Ok(())
}

/// Whether `value` sets the alert off.
fn goes_off(kind: AlertKind, threshold: i64, value: i64) -> bool {
    match kind {
        AlertKind::TrafficDrop => value < threshold,
        AlertKind::TrafficSpike | AlertKind::Goal => value > threshold,
    }
}

/// Checks every alert over the hour before `now`; answers the deliveries (emails, webhooks) of
/// those that went off, to be queued.
pub async fn check(
    events: &dyn EventStore,
    db: &PgPool,
    now: DateTime<Utc>,
) -> AppResult<Vec<Uuid>> {
    let alerts = sqlx::query!(
        "select a.id, a.project_id, a.kind, a.threshold, g.event, g.page, p.name as project
         from analytics_alerts a join projects p on p.id = a.project_id
         left join analytics_goals g on g.id = a.goal_id"
    )
    .fetch_all(db)
    .await?;
    let mut deliveries = Vec::new();
    for a in alerts {
        let kind = AlertKind::parse(&a.kind).unwrap_or(AlertKind::TrafficSpike);
        // A goal alert counts the visitors who reached the goal, as the goals read does.
        let target = match (a.event, a.page) {
            (Some(e), _) => Some(Target::Event(e)),
            (None, Some(p)) => Some(Target::Page(p)),
            _ => None,
        };
        let filters = target.as_ref().map_or_else(Filters::default, |t| {
            let (dim, value) = t.dim();
            Filters::default().with(dim, value)
        });
        let value = events
            .visitors_between(a.project_id, now - WINDOW, now, &filters)
            .await?;
        let off = goes_off(kind, a.threshold, value);
        let mut tx = db.begin().await?;
        // Armed again when clear; fired only by the check that flips it.
        let fired = sqlx::query_scalar!(
            r#"with old as (select firing from analytics_alerts where id = $1 for update)
               update analytics_alerts a set value = $2, firing = $3,
                   fired_at = case when $3 and not old.firing then now() else a.fired_at end
               from old where a.id = $1
               returning ($3 and not old.firing) as "fired!""#,
            a.id,
            value,
            off
        )
        .fetch_optional(&mut *tx)
        .await?
        .unwrap_or(false);
        if fired {
            let data = AlertFired {
                alert_id: a.id,
                kind,
                threshold: a.threshold,
                value,
            };
            deliveries.extend(emit(&mut tx, a.project_id, EventType::AnalyticsAlert, &data).await?);
            deliveries.extend(notify(&mut tx, a.project_id, &a.project, &data).await?);
        }
        tx.commit().await?;
    }
    Ok(deliveries)
}

/// The email to the members who opted in to alerts.
async fn notify(
    tx: &mut sqlx::PgConnection,
    project_id: Uuid,
    project: &str,
    alert: &AlertFired,
) -> AppResult<Vec<Uuid>> {
    let recipients: Vec<String> = sqlx::query_scalar!(
        "select u.email from project_members m join users u on u.id = m.user_id
         where m.project_id = $1 and m.notify_analytics_alerts and u.disabled_at is null",
        project_id
    )
    .fetch_all(&mut *tx)
    .await?;
    if recipients.is_empty() {
        return Ok(Vec::new());
    }
    let what = match alert.kind {
        AlertKind::TrafficSpike => "visitors in the last hour, above",
        AlertKind::TrafficDrop => "visitors in the last hour, below",
        AlertKind::Goal => "conversions in the last hour, above",
    };
    let rendered = Template {
        kind: Kind::AnalyticsAlert,
        subject: format!(
            "[{project}] Alert: {} {what} {}",
            alert.value, alert.threshold
        ),
        heading: format!("{project}: an analytics alert went off"),
        paragraphs: vec![format!(
            "{} {what} your threshold of {}. It goes off again once it has cleared.",
            alert.value, alert.threshold
        )],
        action: None,
        unsubscribe_url: None,
    }
    .render();
    let messages = recipients
        .into_iter()
        .map(|to| (to, rendered.clone()))
        .collect();
    email::queue(tx, Some(project_id), Kind::AnalyticsAlert, messages).await
}
