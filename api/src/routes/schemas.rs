//! The names the OpenAPI document gives to list answers: each a `List` of one shape.

use shipmate_types::accounts::{Account, SessionInfo};
pub use shipmate_types::accounts::{ProviderList, SignedIn};
pub use shipmate_types::common::{Accepted, Deleted, Link, Queued};
use shipmate_types::common::{List, Page};
use shipmate_types::email::Suppression;
pub use shipmate_types::kb::SearchResults;
use shipmate_types::kb::{Document, Index, ModelInfo};
use shipmate_types::projects::{ApiKey, ProjectView};
use shipmate_types::teams::{Invite, Member};
pub use shipmate_types::testimonials::TestimonialsWithStats;
use shipmate_types::webhooks::{Delivery, Webhook};
use shipmate_types::EventType;

pub type ProjectList = List<ProjectView>;
pub type ApiKeyList = List<ApiKey>;
pub type ModelList = List<ModelInfo>;
pub type IndexList = List<Index>;
pub type DocumentPage = Page<Document>;
pub type DocumentList = List<Document>;
pub type SessionList = List<SessionInfo>;
pub type MemberList = List<Member>;
pub type InviteList = List<Invite>;
pub type AccountList = List<Account>;
pub type EventList = List<EventType>;
pub type WebhookList = List<Webhook>;
pub type DeliveryList = List<Delivery>;
pub type SuppressionList = List<Suppression>;
