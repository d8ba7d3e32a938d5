//! The HTTP surface: one module per area, each with its own `router()`.

pub mod access_tokens;
pub mod accounts;
pub mod admin;
pub mod alerts;
pub mod analytics;
pub mod answers;
pub mod api_keys;
pub mod auth;
pub mod boards;
pub mod changelog;
pub mod email;
pub mod feedback;
pub mod feedback_loop;
pub mod github;
pub mod goals;
pub mod identity;
pub mod imports;
pub mod indexes;
pub mod ingest;
mod ingest_file;
mod ingest_item;
pub mod insights;
pub mod markdown;
pub mod members;
pub mod meta;
pub mod projects;
pub mod schemas;
pub mod search;
pub mod search_analytics;
pub mod segments;
pub mod shares;
pub mod tags;
pub mod testimonials;
pub mod webhooks;

use axum::http::{header, HeaderName, Method};
use axum::Router;
use shipmate_core::error::Refusal;
use shipmate_core::AppError;
use tower_http::cors::{Any, CorsLayer};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::problem::ApiError;
use crate::state::AppState;

/// CORS open to any origin without credentials: the API-key endpoints are called from customers'
/// sites, and session endpoints take a bearer token a browser never adds on its own (the cookie is
/// never sent cross-site with credentials off), so an open policy grants nothing. A day's
/// `max-age` spares the browser script a preflight per page view.
pub fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers([
            header::CONTENT_TYPE,
            header::AUTHORIZATION,
            HeaderName::from_static("x-project-key"),
            HeaderName::from_static("x-project-id"),
        ])
        .max_age(std::time::Duration::from_secs(86_400))
}

/// Every `/v1` route.
pub fn api() -> Router<AppState> {
    Router::new()
        .merge(auth::router())
        .merge(accounts::router())
        .merge(access_tokens::router())
        .merge(admin::router())
        .merge(projects::router())
        .merge(members::router())
        .merge(api_keys::router())
        .merge(feedback::router())
        .merge(feedback_loop::router())
        .merge(github::router())
        .merge(tags::router())
        .merge(boards::router())
        .merge(search_analytics::router())
        .merge(identity::router())
        .merge(testimonials::router())
        .merge(changelog::router())
        .merge(markdown::router())
        .merge(indexes::router())
        .merge(search::router())
        .merge(answers::router())
        .merge(insights::router())
        .merge(ingest::router())
        .merge(analytics::router())
        .merge(goals::router())
        .merge(shares::router())
        .merge(segments::router())
        .merge(alerts::router())
        .merge(imports::router())
        .merge(webhooks::router())
        .merge(email::router())
        .merge(meta::api_router())
}

pub async fn not_found() -> ApiError {
    AppError::not_found("route").into()
}

pub async fn method_not_allowed() -> ApiError {
    AppError::client(
        Refusal::MethodNotAllowed,
        "method_not_allowed",
        "this method is not allowed here",
    )
    .into()
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Shipmate API", description = "Feedback, testimonials, knowledge base search, analytics and changelog for SaaS products. Errors are RFC 9457 problem details with a stable `code`."),
    paths(
        auth::providers, auth::start, auth::callback, auth::dev_login, auth::me, auth::logout,
        accounts::setup, accounts::register, accounts::login, accounts::change_password,
        accounts::request_reset, accounts::confirm_reset, accounts::verify_email, accounts::resend_verification,
        accounts::list_sessions, accounts::end_session,
        access_tokens::create, access_tokens::list, access_tokens::revoke,
        admin::list, admin::update, admin::reset_link, admin::settings,
        members::list, members::change_role, members::remove, members::invite, members::list_invites,
        members::revoke_invite, members::preview, members::accept,
        projects::create, projects::list, projects::show, projects::update, projects::rotate, projects::delete,
        projects::rotate_publishable, projects::of_key,
        api_keys::create, api_keys::list, api_keys::revoke,
        feedback::create, feedback::list_public, feedback::list_owner, feedback::update, feedback::remove,
        feedback::upvote, feedback::downvote, feedback::withdraw, feedback::voters,
        feedback_loop::submit, feedback_loop::roadmap, feedback_loop::similar, feedback_loop::add_comment, feedback_loop::list_comments,
        feedback_loop::remove_comment, feedback_loop::merge_into,
        github::connect, github::show, github::disconnect, github::receive,
        tags::create_tag, tags::list_tags, tags::delete_tag,
        boards::create_board, boards::list_boards, boards::update_board, boards::delete_board,
        boards::visible_boards,
        identity::rotate_secret, identity::identify,
        testimonials::create, testimonials::create_public, testimonials::list_approved, testimonials::list_all,
        testimonials::moderate, testimonials::remove,
        changelog::list_published, changelog::list_all, changelog::create, changelog::update, changelog::remove,
        markdown::preview,
        indexes::models, indexes::create, indexes::list, indexes::show, indexes::remove, indexes::list_documents,
        indexes::show_document, indexes::document_chunks, indexes::remove_document, search::search_index, answers::answer_question, insights::search_gaps, insights::gap_to_feedback,
        search_analytics::click, search_analytics::analytics,
        ingest::upload, ingest::upload_batch, ingest::upload_file, ingest::upsert_document,
        ingest::remove_by_external_id,
        analytics::track, analytics::overview, analytics::pages, analytics::referrers, analytics::countries,
        analytics::devices, analytics::events, analytics::timeseries, analytics::utm,
        analytics::realtime, analytics::entry_pages, analytics::exit_pages, analytics::properties,
        analytics::journeys,
        goals::create_goal, goals::goal_report, goals::delete_goal, goals::create_funnel, goals::list_funnels,
        goals::funnel_report, goals::delete_funnel, shares::create, shares::list, shares::revoke,
        segments::create_segment, segments::list_segments, segments::delete_segment,
        alerts::create_alert, alerts::list_alerts, alerts::delete_alert,
        imports::create_import, imports::list_imports, imports::delete_import,
        webhooks::events, webhooks::create, webhooks::list, webhooks::show, webhooks::update, webhooks::remove,
        webhooks::rotate_secret, webhooks::test, webhooks::deliveries, webhooks::retry,
        email::notifications, email::set_notifications, email::subscribers, email::subscribe,
        email::subscribe_public, email::suppressions, email::lift,
    ),
    // Enums used only as query parameters are listed here: the document names them by reference.
    components(schemas(
        shipmate_core::error::Problem, shipmate_core::error::FieldError,
        shipmate_types::FeedbackType, shipmate_types::FeedbackStatus, shipmate_types::FeedbackSort,
        shipmate_types::FeedbackModeration,
        shipmate_types::analytics::Period,
        shipmate_types::SearchMode, shipmate_types::ContentType,
    )),
    modifiers(&Security, &Problems, &OperationIds)
)]
pub struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-Project-Key"))),
        );
        components.add_security_scheme(
            "session",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("st_...")
                    .build(),
            ),
        );
    }
}

/// Every operation can answer the contract's errors (a body that is not JSON, a missing or wrong
/// credential, a dependency down, ...): document them all, each as a `Problem`, so clients and
/// schema-driven fuzzers know every status the API may send.
struct Problems;

impl Modify for Problems {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
        const ERRORS: [(&str, &str); 11] = [
            ("400", "malformed JSON"),
            (
                "401",
                "credential missing, unknown, revoked or of the wrong scheme",
            ),
            ("403", "not allowed for this caller"),
            ("404", "no such resource"),
            ("405", "method not allowed"),
            ("409", "conflict"),
            ("413", "payload too large"),
            ("415", "the body is not JSON"),
            ("422", "validation failed"),
            ("429", "rate limited (see Retry-After)"),
            ("503", "a dependency is unavailable; nothing was accepted"),
        ];
        for op in operations(openapi) {
            // Statuses an operation documents beyond the common ones (410, ...) are problems too.
            let own: Vec<String> = op
                .responses
                .responses
                .keys()
                .filter(|s| s.starts_with('4') && !ERRORS.iter().any(|(e, _)| e == s))
                .cloned()
                .collect();
            let statuses = ERRORS
                .iter()
                .map(|(s, d)| (s.to_string(), *d))
                .chain(own.into_iter().map(|s| (s, "error")));
            for (status, default) in statuses {
                let status = status.as_str();
                let description = op
                    .responses
                    .responses
                    .get(status)
                    .and_then(|r| match r {
                        utoipa::openapi::RefOr::T(r) => Some(r.description.clone()),
                        utoipa::openapi::RefOr::Ref(_) => None,
                    })
                    .unwrap_or_else(|| default.to_owned());
                let response = ResponseBuilder::new()
                    .description(description)
                    .content(
                        "application/problem+json",
                        ContentBuilder::new()
                            .schema(Some(Ref::from_schema_name("Problem")))
                            .build(),
                    )
                    .build();
                op.responses
                    .responses
                    .insert(status.to_owned(), response.into());
            }
        }
    }
}

/// Every operation of the document.
fn operations(
    openapi: &mut utoipa::openapi::OpenApi,
) -> impl Iterator<Item = &mut utoipa::openapi::path::Operation> {
    openapi.paths.paths.values_mut().flat_map(|item| {
        [
            &mut item.get,
            &mut item.post,
            &mut item.patch,
            &mut item.put,
            &mut item.delete,
        ]
        .into_iter()
        .flatten()
    })
}

/// Handlers are named per module (`feedback::create`, `webhooks::create`): the operation ids take
/// the tag too, so each is unique, as generated clients (the SDK's types) need.
struct OperationIds;

impl Modify for OperationIds {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for op in operations(openapi) {
            let tag = op.tags.as_ref().and_then(|t| t.first()).cloned();
            if let (Some(tag), Some(id)) = (tag, op.operation_id.as_mut()) {
                *id = format!("{}_{id}", tag.replace(' ', "_"));
            }
        }
    }
}
