//! Chat webhooks: an event told as one sentence with a link, in the shape of Slack's and Discord's
//! incoming webhooks, for teams who want the news where they talk rather than a signed JSON body.

use serde_json::{json, Value};

use shipmate_types::{EventType, WebhookFormat};

/// Where the links of a project's messages lead.
pub struct Place<'a> {
    /// The api's public address, without a trailing slash.
    pub public_url: &'a str,
    pub project_id: uuid::Uuid,
    pub project_name: &'a str,
    pub project_slug: &'a str,
}

impl Place<'_> {
    /// An entry on the public board.
    fn entry(&self, id: &str) -> String {
        format!("{}/f/{}#entry-{id}", self.public_url, self.project_slug)
    }

    fn dashboard(&self, section: &str) -> String {
        format!(
            "{}/dashboard/p/{}/{section}",
            self.public_url, self.project_id
        )
    }
}

fn text<'a>(data: &'a Value, field: &str) -> &'a str {
    data[field].as_str().unwrap_or_default()
}

/// The sentence, the title its link reads as, and the link, for one event body (`{type, data}`).
pub fn tell(event: &Value, place: &Place<'_>) -> (String, String, String) {
    let data = &event["data"];
    let project = place.project_name;
    let kind = EventType::parse(text(event, "type"));
    let title = text(data, "title").to_owned();
    match kind {
        Some(EventType::FeedbackCreated) => (
            format!("New {} on {project}'s board: {title}", text(data, "type")),
            title,
            place.entry(text(data, "id")),
        ),
        Some(EventType::FeedbackStatusChanged) => (
            format!(
                "{title} moved from {} to {} on {project}'s board",
                text(data, "previous_status").replace('_', " "),
                text(data, "status").replace('_', " ")
            ),
            title,
            place.entry(text(data, "id")),
        ),
        Some(EventType::FeedbackMerged) => (
            format!("{title} was merged into another entry on {project}'s board"),
            title,
            place.entry(text(data, "merged_into")),
        ),
        Some(EventType::CommentCreated) => (
            format!(
                "{} commented on {project}'s board: {}",
                text(&data["author"], "name"),
                text(data, "body")
            ),
            "See the entry".into(),
            place.entry(text(data, "feedback_id")),
        ),
        Some(EventType::TestimonialCreated) => (
            format!(
                "{} left a {}-star testimonial for {project}",
                text(data, "author_name"),
                data["rating"]
            ),
            "Moderate".into(),
            place.dashboard("testimonials"),
        ),
        Some(EventType::TestimonialApproved) => (
            format!(
                "{}'s testimonial for {project} was approved",
                text(data, "author_name")
            ),
            "Testimonials".into(),
            place.dashboard("testimonials"),
        ),
        Some(EventType::DocumentReady) => (
            format!("{title} is ready in {project}'s knowledge base"),
            title,
            place.dashboard("knowledge"),
        ),
        Some(EventType::DocumentFailed) => (
            format!(
                "{title} could not be added to {project}'s knowledge base: {}",
                text(data, "error")
            ),
            title,
            place.dashboard("knowledge"),
        ),
        Some(EventType::ChangelogPublished) => (
            format!("{project} published {title}"),
            title,
            format!("{}/c/{}", place.public_url, place.project_slug),
        ),
        Some(EventType::AnalyticsAlert) => (
            format!(
                "Analytics alert on {project}: {} visitors in the last hour (threshold {}, {})",
                data["value"],
                data["threshold"],
                text(data, "kind").replace('_', " ")
            ),
            "Analytics".into(),
            place.dashboard("analytics"),
        ),
        Some(EventType::Ping) | None => (
            format!("A test message from Shipmate for {project}: this webhook works"),
            "Webhooks".into(),
            place.dashboard("webhooks"),
        ),
    }
}

/// The body a chat webhook posts; `None` for `standard`, which posts the event itself.
pub fn message(format: WebhookFormat, event: &Value, place: &Place<'_>) -> Option<Value> {
    let (sentence, title, link) = tell(event, place);
    match format {
        WebhookFormat::Standard => None,
        // https://api.slack.com/messaging/webhooks: `text` is the notification's fallback.
        WebhookFormat::Slack => {
            let text = format!(
                "{} <{link}|{}>",
                slack_escape(&sentence),
                slack_escape(&title)
            );
            Some(json!({
                "text": text,
                "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]
            }))
        }
        // https://discord.com/developers/docs/resources/webhook#execute-webhook
        WebhookFormat::Discord => Some(json!({
            "content": truncate(&sentence, 2000),
            "embeds": [{"title": truncate(&title, 256), "url": link}]
        })),
    }
}

/// Slack's mrkdwn reads `&`, `<` and `>` as markup.
fn slack_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Discord refuses a message over its limits (2,000 characters of content, 256 of a title).
fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place() -> Place<'static> {
        Place {
            public_url: "https://shipmate.example.com",
            project_id: uuid::Uuid::nil(),
            project_name: "Acme",
            project_slug: "acme",
        }
    }

    #[test]
    fn a_status_change_reads_as_a_sentence_with_the_entry_link() {
        let event = json!({"type": "feedback.status_changed", "data": {
            "id": "e1", "title": "Dark <mode>", "status": "in_progress", "previous_status": "open"}});
        let slack = message(WebhookFormat::Slack, &event, &place()).unwrap();
        assert_eq!(
            slack["blocks"][0]["text"]["text"],
            "Dark &lt;mode&gt; moved from open to in progress on Acme's board <https://shipmate.example.com/f/acme#entry-e1|Dark &lt;mode&gt;>"
        );
        let discord = message(WebhookFormat::Discord, &event, &place()).unwrap();
        assert_eq!(
            discord["content"],
            "Dark <mode> moved from open to in progress on Acme's board"
        );
        assert_eq!(
            discord["embeds"][0]["url"],
            "https://shipmate.example.com/f/acme#entry-e1"
        );
        assert!(message(WebhookFormat::Standard, &event, &place()).is_none());
    }

    #[test]
    fn discord_limits_hold() {
        let long = "x".repeat(3000);
        let event = json!({"type": "changelog.published", "data": {"title": long}});
        let discord = message(WebhookFormat::Discord, &event, &place()).unwrap();
        assert_eq!(discord["content"].as_str().unwrap().chars().count(), 2000);
        assert_eq!(
            discord["embeds"][0]["title"]
                .as_str()
                .unwrap()
                .chars()
                .count(),
            256
        );
    }
}
