//! Email: the SMTP settings, the messages (plain text and HTML from one template), queueing them as
//! deliveries, and sending one with `lettre`.

use std::fmt;

use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::AsyncSmtpTransport;
use lettre::{AsyncTransport, Message, Tokio1Executor};
use serde::{Deserialize, Serialize};
use sqlx::PgConnection;
use uuid::Uuid;

use super::outcome::Outcome;
use shipmate_core::AppResult;

/// `SHIPMATE_SMTP_URL`, checked at start; lettre's own form of it is kept (the password never prints).
#[derive(Clone)]
pub struct SmtpUrl(String);

impl fmt::Debug for SmtpUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&shipmate_core::masked::mask_url(&self.0))
    }
}

/// Takes `smtp://`, `smtp+starttls://` (STARTTLS required) and `smtps://`; anything else is a
/// start-up error that says what is wrong.
pub fn parse_smtp_url(raw: &str) -> Result<SmtpUrl, String> {
    let url = url::Url::parse(raw).map_err(|e| {
        format!("SHIPMATE_SMTP_URL is not a URL ({e}); expected smtp://host:port, smtp+starttls://user:pass@host:587 or smtps://user:pass@host:465")
    })?;
    if url.host_str().is_none_or(str::is_empty) {
        return Err("SHIPMATE_SMTP_URL names no host".into());
    }
    let lettre_form = match url.scheme() {
        "smtp" | "smtps" => raw.to_owned(),
        "smtp+starttls" => {
            let rest = &raw["smtp+starttls".len()..];
            let sep = if url.query().is_some() { '&' } else { '?' };
            format!("smtp{rest}{sep}tls=required")
        }
        other => {
            return Err(format!(
                "SHIPMATE_SMTP_URL has the scheme `{other}`; use smtp, smtp+starttls or smtps"
            ))
        }
    };
    AsyncSmtpTransport::<Tokio1Executor>::from_url(&lettre_form)
        .map_err(|e| format!("SHIPMATE_SMTP_URL is not usable: {e}"))?;
    Ok(SmtpUrl(lettre_form))
}

pub fn parse_mailbox(raw: &str) -> Result<Mailbox, String> {
    raw.parse::<Mailbox>().map_err(|e| {
        format!("SHIPMATE_MAIL_FROM is not an address ({e}); e.g. `Shipmate <noreply@example.com>`")
    })
}

/// What an email is about: notifications and subscriptions honour suppressions and carry an
/// unsubscribe link; invites, resets and verifications always go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Invite,
    PasswordReset,
    EmailVerification,
    NewFeedback,
    NewTestimonial,
    StatusChanged,
    Merged,
    ChangelogEntry,
    SubscriptionConfirm,
    WeeklyReport,
    AnalyticsAlert,
}

impl Kind {
    pub(crate) const ALL: [Kind; 11] = [
        Kind::Invite,
        Kind::PasswordReset,
        Kind::EmailVerification,
        Kind::NewFeedback,
        Kind::NewTestimonial,
        Kind::StatusChanged,
        Kind::Merged,
        Kind::ChangelogEntry,
        Kind::SubscriptionConfirm,
        Kind::WeeklyReport,
        Kind::AnalyticsAlert,
    ];

    /// The kind a delivery row names (`email.invite`).
    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Invite => "email.invite",
            Kind::PasswordReset => "email.password_reset",
            Kind::EmailVerification => "email.email_verification",
            Kind::NewFeedback => "email.new_feedback",
            Kind::NewTestimonial => "email.new_testimonial",
            Kind::StatusChanged => "email.status_changed",
            Kind::Merged => "email.merged",
            Kind::ChangelogEntry => "email.changelog_entry",
            Kind::SubscriptionConfirm => "email.subscription_confirm",
            Kind::WeeklyReport => "email.weekly_report",
            Kind::AnalyticsAlert => "email.analytics_alert",
        }
    }

    /// Whether a suppressed address is skipped.
    pub fn suppressible(self) -> bool {
        !matches!(
            self,
            Kind::Invite | Kind::PasswordReset | Kind::EmailVerification
        )
    }

    /// Whether the message holds a secret link; its body is dropped from the log once sent.
    fn sensitive(self) -> bool {
        matches!(
            self,
            Kind::Invite | Kind::PasswordReset | Kind::EmailVerification
        )
    }
}

/// A rendered message as the delivery row keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rendered {
    pub subject: String,
    pub text: String,
    pub html: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsubscribe_url: Option<String>,
    #[serde(default)]
    pub sensitive: bool,
}

/// The parts of a message: a heading, paragraphs, an optional button, and for subscriptions the
/// unsubscribe link.
pub struct Template<'a> {
    pub kind: Kind,
    pub subject: String,
    pub heading: String,
    pub paragraphs: Vec<String>,
    pub action: Option<(&'a str, String)>,
    pub unsubscribe_url: Option<String>,
}

impl Template<'_> {
    pub fn render(&self) -> Rendered {
        let mut text = format!("{}\n\n", self.heading);
        for p in &self.paragraphs {
            text.push_str(p);
            text.push_str("\n\n");
        }
        if let Some((label, url)) = &self.action {
            text.push_str(&format!("{label}: {url}\n\n"));
        }
        if let Some(u) = &self.unsubscribe_url {
            text.push_str(&format!("--\nUnsubscribe: {u}\n"));
        }
        Rendered {
            subject: self.subject.clone(),
            text,
            html: self.html(),
            unsubscribe_url: self.unsubscribe_url.clone(),
            sensitive: self.kind.sensitive(),
        }
    }

    /// Plain HTML with inline styles (what mail clients render); every value is escaped.
    fn html(&self) -> String {
        const MUTED: &str = "font-size: 12px; color: #6b7280;";
        let mut body = format!(
            r#"<h1 style="font-size: 20px;">{}</h1>"#,
            escape(&self.heading)
        );
        for p in &self.paragraphs {
            body += &format!(
                r#"<p style="white-space: pre-wrap; line-height: 1.5;">{}</p>"#,
                escape(p)
            );
        }
        if let Some((label, url)) = &self.action {
            body += &format!(
                r#"<p><a href="{url}" style="display: inline-block; background: #4f46e5; color: #fff; padding: 10px 16px; border-radius: 6px; text-decoration: none;">{label}</a></p><p style="{MUTED}">Or open {url}</p>"#,
                url = escape(url),
                label = escape(label),
            );
        }
        if let Some(u) = &self.unsubscribe_url {
            body += &format!(
                r#"<hr><p style="{MUTED}">You receive this because you subscribed or took part. <a href="{}">Unsubscribe</a></p>"#,
                escape(u)
            );
        }
        format!(
            r#"<!DOCTYPE html><html><head><meta charset="utf-8"><title>{}</title></head><body style="font-family: system-ui, sans-serif; color: #1f2937; max-width: 560px; margin: 0 auto; padding: 24px;">{body}</body></html>"#,
            escape(&self.subject)
        )
    }
}

/// Text as HTML text or attribute value.
fn escape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// Queues one message per recipient in the caller's transaction; suppressed addresses are skipped
/// for suppressible kinds. Answers the deliveries to queue after the commit.
pub async fn queue(
    tx: &mut PgConnection,
    project_id: Option<Uuid>,
    kind: Kind,
    messages: Vec<(String, Rendered)>,
) -> AppResult<Vec<Uuid>> {
    if messages.is_empty() {
        return Ok(Vec::new());
    }
    let (to, payloads): (Vec<String>, Vec<serde_json::Value>) = messages
        .into_iter()
        .map(|(to, r)| (to, serde_json::to_value(r).unwrap_or_default()))
        .unzip();
    Ok(sqlx::query_scalar!(
        "insert into deliveries (id, project_id, channel, event_id, type, payload, recipient, queued_at)
         select gen_random_uuid(), $1, 'email', $2, $3, u.p, u.r, now()
         from unnest($4::text[], $5::jsonb[]) as u(r, p)
         where not ($6 and exists (select 1 from email_suppressions s where s.email = lower(u.r)))
         returning id",
        project_id,
        Uuid::now_v7(),
        kind.as_str(),
        &to,
        &payloads,
        kind.suppressible()
    )
    .fetch_all(tx)
    .await?)
}

/// Sends queued messages over SMTP (one pooled transport per worker).
#[derive(Clone)]
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
}

impl Mailer {
    /// `None` when email is not configured.
    pub fn new(settings: &super::OutboundSettings) -> Option<Mailer> {
        let url = settings.smtp_url.as_ref()?;
        let from = settings.mail_from.clone()?;
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(&url.0)
            .ok()?
            .timeout(Some(std::time::Duration::from_secs(15)))
            .build();
        Some(Mailer { transport, from })
    }

    pub async fn send(&self, to: &str, message: &Rendered) -> Outcome {
        let permanent = |error: String| Outcome::Permanent {
            status_code: None,
            error,
        };
        let Ok(to) = to.parse::<Mailbox>() else {
            return permanent(format!("{to} is not an address"));
        };
        let mut builder = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(&message.subject);
        if let Some(u) = &message.unsubscribe_url {
            // RFC 8058: mail clients offer a one-click unsubscribe that POSTs to this link.
            builder = builder
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe"),
                    format!("<{u}>"),
                ))
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                    "List-Unsubscribe=One-Click".into(),
                ));
        }
        let email = match builder.multipart(MultiPart::alternative_plain_html(
            message.text.clone(),
            message.html.clone(),
        )) {
            Ok(m) => m,
            Err(e) => return permanent(format!("the message could not be built: {e}")),
        };
        match self.transport.send(email).await {
            Ok(r) => Outcome::Delivered {
                status_code: r.code().to_string().parse().ok(),
            },
            Err(e) => {
                let status_code = e.status().and_then(|c| c.to_string().parse().ok());
                if e.is_permanent() {
                    Outcome::Permanent {
                        status_code,
                        error: e.to_string(),
                    }
                } else {
                    Outcome::Retry {
                        status_code,
                        error: e.to_string(),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_urls_are_checked() {
        assert!(parse_smtp_url("smtp://127.0.0.1:2525").is_ok());
        assert!(parse_smtp_url("smtps://u:p@mail.example.com:465").is_ok());
        let s = parse_smtp_url("smtp+starttls://u:secret@mail.example.com:587").unwrap();
        assert_eq!(s.0, "smtp://u:secret@mail.example.com:587?tls=required");
        assert!(!format!("{s:?}").contains("secret"));
        let e = parse_smtp_url("http://mail.example.com").unwrap_err();
        assert!(e.contains("scheme `http`"), "{e}");
        assert!(parse_smtp_url("smtp//nohost").is_err());
    }

    #[test]
    fn text_and_html_carry_the_same_content() {
        let r = Template {
            kind: Kind::ChangelogEntry,
            subject: "New: <b>dark mode</b>".into(),
            heading: "Dark mode".into(),
            paragraphs: vec!["It is here & it's <great>".into()],
            action: Some(("Read it", "https://x.test/c".into())),
            unsubscribe_url: Some("https://x.test/u?token=t".into()),
        }
        .render();
        assert!(r.text.contains("It is here & it's <great>"));
        assert!(r.html.contains("It is here &amp; it's &lt;great&gt;"));
        assert!(r
            .html
            .contains("<title>New: &lt;b&gt;dark mode&lt;/b&gt;</title>"));
        assert!(r
            .html
            .contains(r#"<a href="https://x.test/u?token=t">Unsubscribe</a>"#));
        assert!(r.text.contains("Unsubscribe: https://x.test/u?token=t"));
        assert!(!r.sensitive);
    }
}
