//! The feedback board.

use crate::input::{FromInput, Input};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

use crate::{FeedbackModeration, FeedbackStatus, FeedbackType};

/// The entry a duplicate is merged into, by id.
fn merge_target(input: &mut Input, field: &str) -> Option<Uuid> {
    let into = input.string(field, 1, 100)?;
    match Uuid::parse_str(&into) {
        Ok(into) => Some(into),
        Err(_) => {
            input.error(field, "must be the id of a feedback entry");
            None
        }
    }
}

/// `https://github.com/<owner>/<repo>/issues/<n>` in one spelling (lowercase: GitHub's owners and
/// repositories are case-insensitive), or `None` for anything else.
pub fn github_issue(url: &str) -> Option<String> {
    let rest = url.trim().strip_prefix("https://github.com/")?;
    let parts: Vec<&str> = rest.split('/').collect();
    let name = |s: &str| {
        !s.is_empty()
            && s.len() <= 100
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    match parts.as_slice() {
        [owner, repo, "issues", n]
            if name(owner)
                && name(repo)
                && !n.starts_with('0')
                && n.len() <= 10
                && n.chars().all(|c| c.is_ascii_digit()) =>
        {
            Some(format!("https://github.com/{rest}").to_ascii_lowercase())
        }
        _ => None,
    }
}

/// Up to 20 GitHub issue links, each in `github_issue`'s spelling.
fn github_links(input: &mut Input, field: &str) -> Option<Vec<String>> {
    input.present(field, |i| {
        let links = i.string_list(
            field,
            false,
            |u| github_issue(u).is_some(),
            "must list GitHub issue URLs (https://github.com/<owner>/<repo>/issues/<n>)",
        );
        if links.len() > 20 {
            i.error(field, "may list at most 20 links");
        }
        let mut out: Vec<String> = Vec::with_capacity(links.len());
        for link in links.iter().filter_map(|u| github_issue(u)) {
            if !out.contains(&link) {
                out.push(link);
            }
        }
        Some(out)
    })
}

/// Up to 20 tag ids (whether they are the project's is the handler's check).
fn tag_ids(input: &mut Input, field: &str) -> Option<Vec<Uuid>> {
    input.present(field, |i| {
        let ids = i.string_list(
            field,
            false,
            |s| Uuid::parse_str(s).is_ok(),
            "must list tag ids",
        );
        if ids.len() > 20 {
            i.error(field, "may list at most 20 tags");
        }
        let mut out: Vec<Uuid> = Vec::with_capacity(ids.len());
        for id in ids.iter().filter_map(|s| Uuid::parse_str(s).ok()) {
            if !out.contains(&id) {
                out.push(id);
            }
        }
        Some(out)
    })
}

/// A change names at least one of its fields; an unknown status is `invalid_status`, as the
/// contract has it, rather than `validation_failed`.
fn some_change(input: &mut Input) -> Option<()> {
    let unknown_status = input
        .raw("status")
        .and_then(|v| v.as_str())
        .is_some_and(|s| FeedbackStatus::parse(s.trim()).is_none());
    if unknown_status {
        input.set_code("invalid_status");
    }
    if ![
        "status",
        "moderation",
        "on_roadmap",
        "links",
        "tags",
        "board",
    ]
    .iter()
    .any(|f| input.has(f))
    {
        input.error(
            "status",
            "is required (or `moderation`, `on_roadmap`, `links`, `tags` or `board`)",
        );
        return None;
    }
    Some(())
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Feedback {
    pub id: Uuid,
    pub project_id: Uuid,
    /// The board the entry is on (`GET /v1/projects/:id/boards`).
    pub board_id: Uuid,
    pub title: String,
    pub description: Option<String>,
    #[serde(rename = "type")]
    #[cfg_attr(feature = "sqlx", sqlx(rename = "type"))]
    pub kind: FeedbackType,
    pub status: FeedbackStatus,
    /// Only in the owner's views.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitter_email: Option<String>,
    pub upvotes: i32,
    pub downvotes: i32,
    pub score: i32,
    /// Only `approved` entries are public; with moderation on, board submissions start `pending`.
    pub moderation: FeedbackModeration,
    /// The entry this duplicate was merged into (it then leaves every listing).
    pub merged_into: Option<Uuid>,
    /// Accepted by the team: only these entries are on the roadmap. Entries from the secret key or
    /// a member start on it; public submissions wait until a member puts them on it (or changes
    /// their status).
    pub on_roadmap: bool,
    /// The project's tags on the entry, by name.
    #[cfg_attr(feature = "sqlx", sqlx(json))]
    pub tags: Vec<crate::tags::Tag>,
    /// Members' views: the distinct companies of the upvoters, by MRR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "sqlx", sqlx(skip))]
    pub companies: Option<Vec<crate::customers::Company>>,
    /// Members' views: the summed MRR of those companies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mrr: Option<f64>,
    /// Members' views: upvotes per importance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "sqlx", sqlx(json))]
    pub importance: Option<crate::customers::ImportanceCounts>,
    /// Linked GitHub issues (closing or reopening one moves the entry); only in the owner's views.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<String>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Feedback {
    /// The public view: never the submitter's address nor the team's issue links.
    pub fn public(mut self) -> Self {
        self.submitter_email = None;
        self.links = None;
        self.companies = None;
        self.mrr = None;
        self.importance = None;
        self
    }
}

/// `POST /v1/feedback`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewFeedback {
    /// 1 to 200 characters.
    #[schema(min_length = 1, max_length = 200)]
    pub title: String,
    #[serde(rename = "type")]
    pub kind: FeedbackType,
    /// At most 10,000 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 10000)]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(format = "email")]
    pub submitter_email: Option<String>,
    /// The slug of the board to post on (the default board, `feedback`, when left out); a board
    /// the caller may not see is 404.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 48)]
    pub board: Option<String>,
}

// Whether the status fits the entry's type is the handler's check; a status string that is no
// status at all is `invalid_status` too, as the contract says.
/// `PATCH /v1/feedback/:id`: a status of the entry's type's set, a moderation decision, whether it
/// is on the roadmap, or any of them together.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, FromInput)]
#[input(before = some_change)]
pub struct FeedbackChanges {
    /// Changing the status also puts the entry on the roadmap (unless `on_roadmap` says otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<FeedbackStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moderation: Option<FeedbackModeration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_roadmap: Option<bool>,
    /// GitHub issue URLs (`https://github.com/<owner>/<repo>/issues/<n>`, up to 20): replaces the
    /// entry's links; `[]` removes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = github_links)]
    pub links: Option<Vec<String>>,
    /// Tag ids of the entry's project (up to 20): replaces the entry's tags; `[]` removes them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[input(with = tag_ids)]
    pub tags: Option<Vec<Uuid>>,
    /// The slug of a board of the entry's project to move it to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 1, max_length = 48)]
    #[input(present)]
    pub board: Option<String>,
}

/// `POST /v1/feedback/:id/merge`: the entry that absorbs this one (same project, not itself).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct MergeRequest {
    #[input(with = merge_target)]
    pub into: Uuid,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct CommentAuthor {
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Comment {
    pub id: Uuid,
    pub feedback_id: Uuid,
    pub author: CommentAuthor,
    pub body: String,
    /// Written by a member of the project: the team's answer.
    pub official: bool,
    pub created_at: DateTime<Utc>,
}

/// `POST /v1/feedback/:id/comments`.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, FromInput)]
pub struct NewComment {
    #[schema(min_length = 1, max_length = 5000)]
    pub body: String,
}

/// The public roadmap: approved feature requests on the roadmap, by stage (`shipped`: the last 90
/// days).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Roadmap {
    pub planned: Vec<Feedback>,
    pub in_progress: Vec<Feedback>,
    pub shipped: Vec<Feedback>,
}

#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct VoteState {
    pub feedback_id: Uuid,
    pub upvotes: i32,
    pub downvotes: i32,
    pub score: i32,
    /// 1, -1, or 0 when the caller has no vote.
    pub user_vote: i32,
}

/// An entry like a draft's text, for the "is this already asked?" hint.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SimilarEntry {
    pub id: Uuid,
    pub title: String,
    #[serde(rename = "type")]
    pub kind: FeedbackType,
    pub status: FeedbackStatus,
    pub score: i32,
    /// Cosine similarity of the meanings, 0 to 1: higher is closer.
    pub similarity: f64,
}

/// `POST /v1/projects/:id/integrations/github`: what to paste into the repository's webhook settings
/// (payload URL, content type `application/json`, secret, the "Issues" event).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GitHubHook {
    pub url: String,
    /// A new secret on every call; the previous one stops verifying.
    pub secret: String,
}

/// `GET /v1/projects/:id/integrations/github`: whether GitHub is connected (the secret is shown
/// only when made).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GitHubIntegration {
    pub url: String,
    pub connected: bool,
    pub connected_at: Option<DateTime<Utc>>,
}

/// The answer to GitHub's delivery: the entries an `issues` event moved.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct GitHubReceived {
    pub moved: Vec<Uuid>,
}

#[cfg(test)]
mod tests {
    use super::github_issue;

    #[test]
    fn github_issue_links_are_one_spelling_of_one_shape() {
        assert_eq!(
            github_issue(" https://github.com/Acme/Web.App/issues/42 ").as_deref(),
            Some("https://github.com/acme/web.app/issues/42")
        );
        for bad in [
            "http://github.com/acme/app/issues/1",
            "https://github.com/acme/app/pull/1",
            "https://github.com/acme/app/issues/01",
            "https://github.com/acme/app/issues/1/",
            "https://github.com/acme/app/issues/x",
            "https://github.com/acme/issues/1",
            "https://github.com.evil.example/acme/app/issues/1",
            "https://github.com/a%2f/app/issues/1",
        ] {
            assert_eq!(github_issue(bad), None, "{bad}");
        }
    }
}
