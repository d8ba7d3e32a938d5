//! GitHub sync: entries link to issues; GitHub's `issues` events, verified with the project's secret
//! (`X-Hub-Signature-256`), move the linked entries when an issue closes or reopens.

use hmac::{Hmac, Mac};
use rand::RngCore;
use serde::Deserialize;
use sha2::Sha256;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::{Feedback, FeedbackStatus, FeedbackType, COLUMNS};
use shipmate_core::{AppError, AppResult};

/// Replaces the entry's links (already in `github_issue`'s spelling).
pub async fn set_links(
    db: &mut PgConnection,
    project_id: Uuid,
    id: Uuid,
    links: &[String],
) -> AppResult<Feedback> {
    super::set_one(db, project_id, id, "links", links.to_vec()).await
}

/// A new secret for the project's GitHub webhook (the previous one stops verifying).
pub async fn connect(db: &PgPool, project_id: Uuid) -> AppResult<String> {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    let secret = hex::encode(bytes);
    sqlx::query!(
        "insert into github_integrations (project_id, secret) values ($1, $2)
         on conflict (project_id) do update set secret = excluded.secret, created_at = now()",
        project_id,
        secret
    )
    .execute(db)
    .await?;
    Ok(secret)
}

/// When the project connected GitHub, if it did.
pub async fn connected_at(
    db: &PgPool,
    project_id: Uuid,
) -> AppResult<Option<chrono::DateTime<chrono::Utc>>> {
    Ok(sqlx::query_scalar!(
        "select created_at from github_integrations where project_id = $1",
        project_id
    )
    .fetch_optional(db)
    .await?)
}

pub async fn disconnect(db: &PgPool, project_id: Uuid) -> AppResult<()> {
    let done = sqlx::query!(
        "delete from github_integrations where project_id = $1",
        project_id
    )
    .execute(db)
    .await?;
    if done.rows_affected() == 0 {
        return Err(AppError::not_found("GitHub integration"));
    }
    Ok(())
}

/// Whether `header` (`sha256=<hex HMAC-SHA256 of the body>`) was made with the project's secret;
/// false for a project without GitHub. The comparison takes constant time.
pub async fn verify(db: &PgPool, project_id: Uuid, body: &[u8], header: &str) -> AppResult<bool> {
    let secret = sqlx::query_scalar!(
        "select secret from github_integrations where project_id = $1",
        project_id
    )
    .fetch_optional(db)
    .await?;
    Ok(secret.is_some_and(|s| signed_with(&s, body, header)))
}

fn signed_with(secret: &str, body: &[u8], header: &str) -> bool {
    let Some(sig) = header
        .strip_prefix("sha256=")
        .and_then(|h| hex::decode(h).ok())
    else {
        return false;
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(body);
    mac.verify_slice(&sig).is_ok()
}

/// The part of GitHub's `issues` event that moves entries.
#[derive(Debug, Deserialize)]
pub struct IssuesEvent {
    pub action: String,
    pub issue: Issue,
}

#[derive(Debug, Deserialize)]
pub struct Issue {
    pub html_url: String,
    /// `completed`, `not_planned`, `reopened`, `duplicate` or null (older events).
    #[serde(default)]
    pub state_reason: Option<String>,
}

/// Where an entry of `kind` goes for this event: `closed` as completed (or without a reason) to
/// shipped / done, as not planned to cancelled / dismissed, `reopened` to in progress; other actions
/// and reasons (a duplicate) leave it.
pub fn status_for(kind: FeedbackType, event: &IssuesEvent) -> Option<FeedbackStatus> {
    let feature = kind == FeedbackType::Feature;
    match (event.action.as_str(), event.issue.state_reason.as_deref()) {
        ("closed", None | Some("completed")) if feature => Some(FeedbackStatus::Shipped),
        ("closed", None | Some("completed")) => Some(FeedbackStatus::Done),
        ("closed", Some("not_planned")) if feature => Some(FeedbackStatus::Cancelled),
        ("closed", Some("not_planned")) => Some(FeedbackStatus::Dismissed),
        ("reopened", _) => Some(FeedbackStatus::InProgress),
        _ => None,
    }
}

/// The project's entries (not merged away) linked to the issue, locked for the move.
pub async fn linked(
    db: &mut PgConnection,
    project_id: Uuid,
    issue_url: &str,
) -> AppResult<Vec<Feedback>> {
    let Some(link) = shipmate_types::feedback::github_issue(issue_url) else {
        return Ok(Vec::new());
    };
    Ok(sqlx::query_as::<_, Feedback>(&format!(
        "select {COLUMNS} from feedback
         where project_id = $1 and links @> array[$2] and merged_into is null
         order by id for update"
    ))
    .bind(project_id)
    .bind(link)
    .fetch_all(db)
    .await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GitHub's documented example (docs.github.com, "Validating webhook deliveries").
    #[test]
    fn verifies_like_github_documents() {
        let header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        assert!(signed_with(
            "It's a Secret to Everybody",
            b"Hello, World!",
            header
        ));
        assert!(!signed_with("another secret", b"Hello, World!", header));
        assert!(!signed_with(
            "It's a Secret to Everybody",
            b"Hello, World?",
            header
        ));
        assert!(!signed_with(
            "It's a Secret to Everybody",
            b"Hello, World!",
            "sha1=00"
        ));
    }

    fn event(action: &str, reason: Option<&str>) -> IssuesEvent {
        IssuesEvent {
            action: action.into(),
            issue: Issue {
                html_url: String::new(),
                state_reason: reason.map(Into::into),
            },
        }
    }

    #[test]
    fn closing_and_reopening_move_each_type_within_its_set() {
        use FeedbackStatus::*;
        let cases = [
            ("closed", Some("completed"), Shipped, Done),
            ("closed", None, Shipped, Done),
            ("closed", Some("not_planned"), Cancelled, Dismissed),
            ("reopened", None, InProgress, InProgress),
        ];
        for (action, reason, feature, bug) in cases {
            let e = event(action, reason);
            assert_eq!(status_for(FeedbackType::Feature, &e), Some(feature));
            assert_eq!(status_for(FeedbackType::Bug, &e), Some(bug));
        }
        assert_eq!(
            status_for(FeedbackType::Bug, &event("closed", Some("duplicate"))),
            None
        );
        assert_eq!(status_for(FeedbackType::Bug, &event("labeled", None)), None);
    }
}
