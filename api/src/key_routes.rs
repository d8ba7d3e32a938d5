//! Which scope each API-key route needs, by method and route template: the api's table, which
//! the domain's `Access::check` applies. A route missing here is refused to every scoped key
//! (fail closed), so a new endpoint cannot leak to them by accident.

use shipmate_accounts::api_keys::KeyRoute;
use shipmate_types::Scope;

/// Routes any key of the project may call, whatever its scopes (they reveal only what a
/// publishable key's owner already shows on its site; identify needs the secret its JWT is signed
/// with, which no browser holds).
const ANY_KEY_ROUTES: &[(&str, &str)] = &[("GET", "/v1/project"), ("POST", "/v1/auth/identify")];

pub fn key_route(method: &str, route: &str) -> KeyRoute {
    if ANY_KEY_ROUTES.contains(&(method, route)) {
        return KeyRoute::AnyKey;
    }
    KeyRoute::Needs(match (method, route) {
        ("POST", "/v1/analytics/events") => Scope::AnalyticsWrite,
        ("POST", "/v1/feedback") => Scope::FeedbackWrite,
        ("GET", "/v1/testimonials") => Scope::TestimonialsRead,
        ("POST", "/v1/testimonials") => Scope::TestimonialsWrite,
        ("GET", "/v1/changelog") => Scope::ChangelogRead,
        ("GET", "/v1/indexes")
        | ("GET", "/v1/indexes/{index_id}/documents")
        | ("GET", "/v1/indexes/{index_id}/documents/{doc_id}")
        | ("GET", "/v1/indexes/{index_id}/documents/{doc_id}/chunks")
        | ("POST", "/v1/indexes/{index_id}/search")
        | ("POST", "/v1/indexes/{index_id}/answer")
        | ("POST", "/v1/indexes/{index_id}/searches/{search_id}/click") => Scope::KbRead,
        ("POST", "/v1/indexes")
        | ("DELETE", "/v1/indexes/{index_id}")
        | ("POST", "/v1/indexes/{index_id}/documents")
        | ("POST", "/v1/indexes/{index_id}/documents/batch")
        | ("POST", "/v1/indexes/{index_id}/documents/file")
        | ("PUT", "/v1/indexes/{index_id}/documents/by-external-id/{external_id}")
        | ("DELETE", "/v1/indexes/{index_id}/documents/by-external-id/{external_id}")
        | ("DELETE", "/v1/indexes/{index_id}/documents/{doc_id}") => Scope::KbWrite,
        _ => return KeyRoute::Unlisted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_name_their_scopes() {
        assert_eq!(key_route("GET", "/v1/project"), KeyRoute::AnyKey);
        assert_eq!(
            key_route("POST", "/v1/analytics/events"),
            KeyRoute::Needs(Scope::AnalyticsWrite)
        );
        assert_eq!(
            key_route("POST", "/v1/indexes/{index_id}/search"),
            KeyRoute::Needs(Scope::KbRead)
        );
        assert_eq!(
            key_route("DELETE", "/v1/indexes/{index_id}"),
            KeyRoute::Needs(Scope::KbWrite)
        );
        assert_eq!(key_route("GET", "/v1/unlisted"), KeyRoute::Unlisted);
    }
}
