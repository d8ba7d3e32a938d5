//! What each change sends, recorded in the change's own transaction: its webhook event, and the
//! emails that go with it. Each answers the deliveries to queue once the transaction commits.

use sqlx::PgConnection;
use uuid::Uuid;

use super::email::{Kind, Template};
use super::events::{emit, EventType};
use super::subscriptions::{notify_followers, notify_members, notify_subscribers, Mail};
use shipmate_core::AppResult;
use shipmate_types::changelog::Entry;
use shipmate_types::feedback::{Comment, Feedback};
use shipmate_types::testimonials::Testimonial;
use shipmate_types::{FeedbackStatus, TestimonialStatus};

async fn project_name(tx: &mut PgConnection, project_id: Uuid) -> AppResult<String> {
    Ok(
        sqlx::query_scalar!("select name from projects where id = $1", project_id)
            .fetch_one(&mut *tx)
            .await?,
    )
}

fn dashboard(mail: Mail<'_>, project_id: Uuid, section: &str) -> String {
    format!("{}/dashboard/p/{project_id}/{section}", mail.public_url)
}

pub async fn feedback_created(
    tx: &mut PgConnection,
    mail: Mail<'_>,
    entry: &Feedback,
) -> AppResult<Vec<Uuid>> {
    let mut ids = emit(tx, entry.project_id, EventType::FeedbackCreated, entry).await?;
    if mail.configured {
        let name = project_name(tx, entry.project_id).await?;
        let template = Template {
            kind: Kind::NewFeedback,
            subject: format!("[{name}] New {}: {}", entry.kind, entry.title),
            heading: entry.title.clone(),
            paragraphs: [
                Some(format!("New {} on {name}'s board.", entry.kind)),
                entry.description.clone(),
            ]
            .into_iter()
            .flatten()
            .collect(),
            action: Some((
                "Open the board",
                dashboard(mail, entry.project_id, "feedback"),
            )),
            unsubscribe_url: None,
        };
        ids.extend(notify_members(tx, mail, entry.project_id, template).await?);
    }
    Ok(ids)
}

/// The project's public board (`/f/<slug>`), for links in emails.
async fn board_url(tx: &mut PgConnection, mail: Mail<'_>, project_id: Uuid) -> AppResult<String> {
    let slug = sqlx::query_scalar!("select slug from projects where id = $1", project_id)
        .fetch_one(&mut *tx)
        .await?;
    Ok(format!("{}/f/{slug}", mail.public_url))
}

pub async fn feedback_status_changed(
    tx: &mut PgConnection,
    mail: Mail<'_>,
    entry: &Feedback,
    previous: FeedbackStatus,
) -> AppResult<Vec<Uuid>> {
    if previous == entry.status {
        return Ok(Vec::new());
    }
    let mut data = serde_json::to_value(entry).map_err(anyhow::Error::from)?;
    data["previous_status"] = previous.as_str().into();
    let mut ids = emit(tx, entry.project_id, EventType::FeedbackStatusChanged, data).await?;
    if mail.configured {
        let name = project_name(tx, entry.project_id).await?;
        let (title, status) = (entry.title.clone(), entry.status.as_str().replace('_', " "));
        let board = board_url(tx, mail, entry.project_id).await?;
        ids.extend(
            notify_followers(tx, mail, entry.project_id, entry.id, move |unsubscribe| Template {
                kind: Kind::StatusChanged,
                subject: format!("[{name}] {title}: now {status}"),
                heading: format!("{title} is now {status}"),
                paragraphs: vec![format!(
                    "You voted for or submitted this on {name}'s board, so we let you know when its status changes."
                )],
                action: Some(("See the board", board.clone())),
                unsubscribe_url: Some(unsubscribe),
            })
            .await?,
        );
    }
    Ok(ids)
}

/// `feedback.merged` (the merged entry as an owner sees it, `merged_into` the target's id, as
/// every event's `data` is its resource), and an email to the source's voters and submitter, who
/// now follow the target.
pub async fn feedback_merged(
    tx: &mut PgConnection,
    mail: Mail<'_>,
    source: &Feedback,
    target: &Feedback,
) -> AppResult<Vec<Uuid>> {
    let data = Feedback {
        merged_into: Some(target.id),
        ..source.clone()
    };
    let mut ids = emit(tx, target.project_id, EventType::FeedbackMerged, &data).await?;
    if mail.configured {
        let name = project_name(tx, target.project_id).await?;
        let (from, into) = (source.title.clone(), target.title.clone());
        let board = board_url(tx, mail, target.project_id).await?;
        ids.extend(
            notify_followers(tx, mail, source.project_id, source.id, move |unsubscribe| Template {
                kind: Kind::Merged,
                subject: format!("[{name}] {from}: merged into {into}"),
                heading: format!("{from} was merged into {into}"),
                paragraphs: vec![format!(
                    "It asked for the same thing as \"{into}\" on {name}'s board, so the two are one entry now: your vote counts there, and you will hear when its status changes."
                )],
                action: Some(("See the board", board.clone())),
                unsubscribe_url: Some(unsubscribe),
            })
            .await?,
        );
    }
    Ok(ids)
}

pub async fn comment_created(tx: &mut PgConnection, comment: &Comment) -> AppResult<Vec<Uuid>> {
    let project_id = sqlx::query_scalar!(
        "select project_id from feedback where id = $1",
        comment.feedback_id
    )
    .fetch_one(&mut *tx)
    .await?;
    emit(tx, project_id, EventType::CommentCreated, comment).await
}

pub async fn testimonial_created(
    tx: &mut PgConnection,
    mail: Mail<'_>,
    t: &Testimonial,
) -> AppResult<Vec<Uuid>> {
    let mut ids = emit(tx, t.project_id, EventType::TestimonialCreated, t).await?;
    if mail.configured {
        let name = project_name(tx, t.project_id).await?;
        let template = Template {
            kind: Kind::NewTestimonial,
            subject: format!(
                "[{name}] New testimonial from {} ({}/5)",
                t.author_name, t.rating
            ),
            heading: format!("{} left a testimonial", t.author_name),
            paragraphs: vec![t.content.clone(), "It waits for moderation.".into()],
            action: Some(("Moderate", dashboard(mail, t.project_id, "testimonials"))),
            unsubscribe_url: None,
        };
        ids.extend(notify_members(tx, mail, t.project_id, template).await?);
    }
    Ok(ids)
}

/// Only the move into `approved` is an event.
pub async fn testimonial_moderated(
    tx: &mut PgConnection,
    t: &Testimonial,
    previous: TestimonialStatus,
) -> AppResult<Vec<Uuid>> {
    if t.status == TestimonialStatus::Approved && previous != TestimonialStatus::Approved {
        emit(tx, t.project_id, EventType::TestimonialApproved, t).await
    } else {
        Ok(Vec::new())
    }
}

/// Only the first move into published is an event (a typo fix after publishing sends nothing).
pub async fn changelog_saved(
    tx: &mut PgConnection,
    mail: Mail<'_>,
    entry: &Entry,
    was_published: bool,
) -> AppResult<Vec<Uuid>> {
    if !entry.published || was_published {
        return Ok(Vec::new());
    }
    let mut ids = emit(tx, entry.project_id, EventType::ChangelogPublished, entry).await?;
    if mail.configured {
        let name = project_name(tx, entry.project_id).await?;
        let (title, content) = (entry.title.clone(), entry.content.clone());
        ids.extend(
            notify_subscribers(tx, mail, entry.project_id, move |unsubscribe| Template {
                kind: Kind::ChangelogEntry,
                subject: format!("{name}: {title}"),
                heading: title.clone(),
                paragraphs: vec![content.clone()],
                action: None,
                unsubscribe_url: Some(unsubscribe),
            })
            .await?,
        );
    }
    Ok(ids)
}

/// The invite email (its link is the credential: the message body leaves the log once sent).
pub async fn invite(
    db: &sqlx::PgPool,
    mail: Mail<'_>,
    project_id: Uuid,
    to: &str,
    role: &str,
    url: &str,
) -> AppResult<Vec<Uuid>> {
    if !mail.configured {
        return Ok(Vec::new());
    }
    let mut conn = db.acquire().await?;
    let name = project_name(&mut conn, project_id).await?;
    let message = Template {
        kind: Kind::Invite,
        subject: format!("You are invited to {name} on Shipmate"),
        heading: format!("Join {name}"),
        paragraphs: vec![format!(
            "You are invited to {name} as {role}. The link works once, for this address, for 7 days."
        )],
        action: Some(("Accept the invite", url.to_owned())),
        unsubscribe_url: None,
    }
    .render();
    super::email::queue(
        &mut conn,
        Some(project_id),
        Kind::Invite,
        vec![(to.to_owned(), message)],
    )
    .await
}

/// The password reset email.
pub async fn password_reset(db: &sqlx::PgPool, to: &str, url: &str) -> AppResult<Vec<Uuid>> {
    let message = Template {
        kind: Kind::PasswordReset,
        subject: "Reset your Shipmate password".into(),
        heading: "Reset your password".into(),
        paragraphs: vec![
            "Someone asked to reset the password of this account. The link works once, within an hour. If it was not you, ignore this email.".into(),
        ],
        action: Some(("Choose a new password", url.to_owned())),
        unsubscribe_url: None,
    };
    account_email(db, to, message).await
}

pub async fn email_verification(db: &sqlx::PgPool, to: &str, url: &str) -> AppResult<Vec<Uuid>> {
    let message = Template {
        kind: Kind::EmailVerification,
        subject: "Confirm your email address for Shipmate".into(),
        heading: "Confirm your email address".into(),
        paragraphs: vec![
            "Confirm that this address is yours to finish setting up your Shipmate account. The link works once, within 24 hours. If you did not sign up, ignore this email.".into(),
        ],
        action: Some(("Confirm my address", url.to_owned())),
        unsubscribe_url: None,
    };
    account_email(db, to, message).await
}

/// An email about the account itself (no project, no unsubscribe link), queued at once.
async fn account_email(db: &sqlx::PgPool, to: &str, message: Template<'_>) -> AppResult<Vec<Uuid>> {
    let kind = message.kind;
    let rendered = message.render();
    let mut conn = db.acquire().await?;
    super::email::queue(&mut conn, None, kind, vec![(to.to_owned(), rendered)]).await
}
