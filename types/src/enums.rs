//! Every enum of the API, each a closed set of lowercase strings on the wire. The Postgres check
//! constraints on the matching columns list the same values (a test compares them).

/// What every string enum offers: its names, parsing, and the wire string.
pub trait StringEnum: Sized + Copy + 'static {
    const ALL: &'static [Self];
    const NAMES: &'static [&'static str];
    fn as_str(self) -> &'static str;
    fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.as_str() == s)
    }
}

macro_rules! string_enum {
    // `$wire:tt`, not `literal`: a `literal` fragment reaches derive macros wrapped in an invisible
    // group, which serde reads but utoipa does not (the document would list the variant names).
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $wire:tt),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash,
            serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
        #[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(type_name = "text"))]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $wire)] #[cfg_attr(feature = "sqlx", sqlx(rename = $wire))] $variant),+
        }

        impl $crate::StringEnum for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];
            const NAMES: &'static [&'static str] = &[$($wire),+];
            fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire),+ }
            }
        }

        impl $name {
            pub fn as_str(self) -> &'static str {
                $crate::StringEnum::as_str(self)
            }

            pub fn parse(s: &str) -> Option<Self> {
                <Self as $crate::StringEnum>::parse(s)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                <Self as $crate::StringEnum>::parse(s)
                    .ok_or_else(|| format!("must be one of: {}", <Self as $crate::StringEnum>::NAMES.join(", ")))
            }
        }
    };
}

string_enum! {
    /// What a feedback entry is; the type decides its status set.
    FeedbackType { Bug = "bug", Feature = "feature", Feedback = "feedback" }
}

string_enum! {
    /// A feedback entry's status. Bugs and general feedback move through `new`, `in_progress`,
    /// `done`, `dismissed`; feature requests through `planned`, `in_progress`, `shipped`, `cancelled`.
    FeedbackStatus {
        New = "new",
        Planned = "planned",
        InProgress = "in_progress",
        Done = "done",
        Dismissed = "dismissed",
        Shipped = "shipped",
        Cancelled = "cancelled",
    }
}

impl FeedbackType {
    /// The statuses an entry of this type may take; the first is the one it starts in.
    pub fn statuses(self) -> &'static [FeedbackStatus] {
        use FeedbackStatus::*;
        match self {
            FeedbackType::Feature => &[Planned, InProgress, Shipped, Cancelled],
            FeedbackType::Bug | FeedbackType::Feedback => &[New, InProgress, Done, Dismissed],
        }
    }
}

string_enum! {
    /// Where a feedback list is ordered from.
    #[derive(Default)]
    FeedbackSort {
        /// Highest score first (the default).
        #[default]
        Top = "top",
        /// Newest first.
        New = "new",
        /// Members' list only: the most summed MRR of the upvoters' companies first.
        Mrr = "mrr",
        /// Members' list only: the most "must have" votes first.
        MustHave = "must_have",
    }
}

impl FeedbackSort {
    /// The orders that read the customer value behind entries: members only.
    pub fn by_value(self) -> bool {
        matches!(self, FeedbackSort::Mrr | FeedbackSort::MustHave)
    }
}

string_enum! {
    /// How much a vote matters to the voter.
    Importance { NiceToHave = "nice_to_have", Important = "important", MustHave = "must_have" }
}

string_enum! {
    /// Where a feedback entry stands in moderation: only `approved` entries are public.
    FeedbackModeration { Approved = "approved", Pending = "pending", Spam = "spam" }
}

string_enum! {
    ChangelogType { Feature = "feature", Improvement = "improvement", Fix = "fix", Breaking = "breaking" }
}

string_enum! {
    TestimonialStatus { Pending = "pending", Approved = "approved", Rejected = "rejected" }
}

string_enum! {
    /// A moderation decision on a testimonial.
    Moderation { Approved = "approved", Rejected = "rejected" }
}

impl From<Moderation> for TestimonialStatus {
    fn from(m: Moderation) -> Self {
        match m {
            Moderation::Approved => TestimonialStatus::Approved,
            Moderation::Rejected => TestimonialStatus::Rejected,
        }
    }
}

string_enum! {
    /// A member's role in a project, ordered by what it may do (`viewer < member < admin < owner`).
    Role { Viewer = "viewer", Member = "member", Admin = "admin", Owner = "owner" }
}

impl Role {
    /// Owners and admins hold the project's keys; members and viewers never see the secret key.
    pub fn sees_secret_key(self) -> bool {
        self >= Role::Admin
    }
}

string_enum! {
    /// What an API key may do. The project's secret key holds them all; its publishable key only
    /// the public ones (see [`Scope::is_public`]).
    Scope {
        AnalyticsWrite = "analytics:write",
        FeedbackWrite = "feedback:write",
        TestimonialsRead = "testimonials:read",
        TestimonialsWrite = "testimonials:write",
        ChangelogRead = "changelog:read",
        KbRead = "kb:read",
        KbWrite = "kb:write",
    }
}

impl Scope {
    /// Scopes browser code may hold: what a publishable key can do, and no more.
    pub fn is_public(self) -> bool {
        !matches!(self, Scope::KbRead | Scope::KbWrite)
    }
}

string_enum! {
    /// Who may create an account (`SHIPMATE_REGISTRATION`).
    #[derive(Default)]
    Registration {
        /// Only with a live invite for that same email.
        #[default]
        Invite = "invite",
        /// Anyone.
        Open = "open",
        /// Nobody; the setup link still makes the first account.
        Closed = "closed",
    }
}

string_enum! {
    DocumentStatus { Pending = "pending", Ready = "ready", Failed = "failed" }
}

string_enum! {
    /// How a document's content is read: HTML keeps its visible text, headings as Markdown headings.
    ContentType { Markdown = "text/markdown", Plain = "text/plain", Html = "text/html" }
}

string_enum! {
    /// Search by meaning (`vector`), by words (`keyword`, PostgreSQL full text), or both fused (`hybrid`).
    SearchMode { Vector = "vector", Keyword = "keyword", Hybrid = "hybrid" }
}

string_enum! {
    /// What an analytics alert watches over the last hour.
    AlertKind { TrafficSpike = "traffic_spike", TrafficDrop = "traffic_drop", Goal = "goal" }
}

string_enum! {
    DeliveryStatus { Pending = "pending", Delivered = "delivered", Failed = "failed" }
}

string_enum! {
    /// What a webhook posts: the signed JSON event (Standard Webhooks), or a chat tool's
    /// incoming-webhook message (Slack `{text, blocks}`, Discord `{content, embeds}`).
    WebhookFormat { Standard = "standard", Slack = "slack", Discord = "discord" }
}

string_enum! {
    /// Who sees a feedback board: everyone, the project's team, or end users whose identify
    /// token's attributes match the board's segment (and the team).
    BoardVisibility { Public = "public", Private = "private", Segment = "segment" }
}

string_enum! {
    /// A webhook event. `ping` is sent only by the test endpoint, to the webhook asked.
    EventType {
        FeedbackCreated = "feedback.created",
        FeedbackStatusChanged = "feedback.status_changed",
        FeedbackMerged = "feedback.merged",
        CommentCreated = "comment.created",
        TestimonialCreated = "testimonial.created",
        TestimonialApproved = "testimonial.approved",
        DocumentReady = "document.ready",
        DocumentFailed = "document.failed",
        ChangelogPublished = "changelog.published",
        AnalyticsAlert = "analytics.alert",
        Ping = "ping",
    }
}

impl EventType {
    /// Every event a webhook can subscribe to (`ping` goes to whoever asks for it).
    pub fn subscribable() -> impl Iterator<Item = EventType> {
        EventType::ALL
            .iter()
            .copied()
            .filter(|e| *e != EventType::Ping)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_round_trip() {
        for s in FeedbackStatus::ALL {
            let json = serde_json::to_string(s).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", s.as_str()));
            assert_eq!(json.trim_matches('"').parse::<FeedbackStatus>(), Ok(*s));
        }
        assert_eq!("kb:read".parse::<Scope>(), Ok(Scope::KbRead));
        assert!("nope".parse::<Role>().is_err());
    }

    #[test]
    fn roles_are_ordered_by_power() {
        assert!(
            Role::Viewer < Role::Member && Role::Member < Role::Admin && Role::Admin < Role::Owner
        );
        assert!(Role::Admin.sees_secret_key() && !Role::Member.sees_secret_key());
    }

    #[test]
    fn each_type_starts_in_its_first_status() {
        assert_eq!(FeedbackType::Feature.statuses()[0], FeedbackStatus::Planned);
        assert_eq!(FeedbackType::Bug.statuses()[0], FeedbackStatus::New);
    }
}
