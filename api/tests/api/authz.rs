//! The authorization matrix: every endpoint against eight callers (no credential, the wrong
//! scheme, another project's key, a signed-in stranger, and the project's viewer, member, admin
//! and owner) gives the contract's status. Rows run in order, the owner's call last in each, so
//! destructive rows sit at the end; in a destructive row, an allowed caller after the first one
//! that succeeded finds the resource gone (404).

use reqwest::Method;
use serde_json::{json, Value};

use crate::authz_callers::{post, Access, Fixture, Resources, ROLES};
use crate::helpers::*;

#[tokio::test]
async fn every_endpoint_answers_each_caller_as_the_contract_says() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("authz-a").await;
    let (_, other) = app.owner_with_project("authz-b").await;
    let stranger = app.login("stranger@example.com").await;
    let (pid, slug) = (id(&project).to_owned(), "authz-a");
    let mut roles = Vec::new();
    for role in &ROLES[..3] {
        let email = format!("{role}@example.com");
        roles.push(app.member_with_role(&owner, &pid, &email, role).await);
    }
    roles.push(owner.clone());
    let f = Fixture {
        roles: roles.try_into().unwrap(),
        key: key(&project).to_owned(),
        other_key: key(&other).to_owned(),
        stranger,
    };
    // Someone for the admins to remove, and an invite to revoke.
    let leaver = app
        .member_with_role(&owner, &pid, "leaver@example.com", "viewer")
        .await;
    let (_, me) = app
        .call(Method::GET, "/v1/me", Auth::Session(&leaver), None)
        .await;
    let leaver_id = id(&me).to_owned();
    let viewer_id = {
        let (_, me) = app
            .call(Method::GET, "/v1/me", Auth::Session(&f.roles[0]), None)
            .await;
        id(&me).to_owned()
    };
    let pending = post(
        &app,
        &format!("/v1/projects/{pid}/invites"),
        Auth::Session(&owner),
        json!({"email": "pending@example.com", "role": "viewer"}),
    )
    .await;
    let invite_id = id(&pending).to_owned();
    let r = Resources::create(&app, &pid, &f.key, &owner).await;
    let (fid, tid, cid) = (
        r.feedback.as_str(),
        r.testimonial.as_str(),
        r.change.as_str(),
    );
    let (iid, did, kid) = (r.index.as_str(), r.document.as_str(), r.api_key.as_str());
    let (dup, comment_id) = (&r.duplicate, &r.comment);
    let (wid, dlv) = (&r.webhook, &r.delivery);
    let hooks = format!("/v1/projects/{pid}/webhooks/{wid}");

    use Access::*;
    let event = json!({"name": "pageview", "url": "https://example.com/"});
    let rows: Vec<(Method, String, Access, Option<Value>)> = vec![
        (Method::GET, "/v1/auth/providers".into(), Public, None),
        (Method::GET, "/v1/indexes/models".into(), Public, None),
        (
            Method::POST,
            "/v1/auth/dev-login".into(),
            Public,
            Some(json!({"email": "someone@example.com"})),
        ),
        (
            Method::GET,
            format!("/v1/feedback/by-project/{slug}"),
            Public,
            None,
        ),
        (Method::GET, "/v1/me".into(), Session, None),
        (Method::GET, "/v1/projects".into(), Session, None),
        (
            Method::POST,
            "/v1/markdown/preview".into(),
            Session,
            Some(json!({"markdown": "**b**"})),
        ),
        (
            Method::POST,
            "/v1/projects".into(),
            Session,
            Some(json!({"name": "N", "slug": "authz-new-{caller}"})),
        ),
        (
            Method::GET,
            format!("/v1/projects/{pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::GET,
            format!("/v1/projects/{pid}/api-keys"),
            Role("admin"),
            None,
        ),
        (
            Method::POST,
            format!("/v1/projects/{pid}/api-keys"),
            Role("admin"),
            Some(json!({"name": "ro", "scopes": ["kb:read"]})),
        ),
        (
            Method::POST,
            "/v1/feedback".into(),
            KeyCollection,
            Some(json!({"title": "Idea", "type": "feedback"})),
        ),
        (
            Method::GET,
            format!("/v1/feedback?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::PATCH,
            format!("/v1/feedback/{fid}"),
            Role("member"),
            Some(json!({"status": "in_progress"})),
        ),
        (
            Method::POST,
            format!("/v1/feedback/{fid}/upvote"),
            Session,
            None,
        ),
        (
            Method::POST,
            format!("/v1/feedback/{fid}/downvote"),
            Session,
            None,
        ),
        (
            Method::DELETE,
            format!("/v1/feedback/{fid}/vote"),
            Session,
            None,
        ),
        (
            Method::POST,
            "/v1/testimonials".into(),
            KeyCollection,
            Some(
                json!({"author_name": "Bo", "author_email": "bo@example.com", "content": "Nice", "rating": 4}),
            ),
        ),
        (Method::GET, "/v1/testimonials".into(), KeyCollection, None),
        (
            Method::GET,
            format!("/v1/testimonials/all?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::PATCH,
            format!("/v1/testimonials/{tid}?project_id={pid}"),
            Role("member"),
            Some(json!({"status": "approved"})),
        ),
        (Method::GET, "/v1/changelog".into(), KeyCollection, None),
        (
            Method::GET,
            format!("/v1/changelog/dashboard/{pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::POST,
            format!("/v1/changelog/dashboard/{pid}"),
            Role("member"),
            Some(json!({"title": "T2", "content": "C", "type": "feature"})),
        ),
        (
            Method::PATCH,
            format!("/v1/changelog/dashboard/{pid}/{cid}"),
            Role("member"),
            Some(json!({"published": true})),
        ),
        (
            Method::POST,
            "/v1/analytics/events".into(),
            KeyCollection,
            Some(event),
        ),
        (
            Method::GET,
            format!("/v1/analytics/overview?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::GET,
            format!("/v1/analytics/pages?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::GET,
            format!("/v1/analytics/referrers?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::GET,
            format!("/v1/analytics/countries?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::GET,
            format!("/v1/analytics/devices?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::GET,
            format!("/v1/analytics/events?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::GET,
            format!("/v1/analytics/timeseries?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::GET,
            format!("/v1/analytics/utm?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (
            Method::GET,
            format!("/v1/analytics/realtime?project_id={pid}"),
            Role("viewer"),
            None,
        ),
        (Method::GET, "/v1/indexes".into(), KeyCollection, None),
        (
            Method::POST,
            "/v1/indexes".into(),
            KeyCollection,
            Some(json!({"name": "more", "embedding_model": "all-minilm-l6-v2"})),
        ),
        (
            Method::GET,
            format!("/v1/indexes/{iid}/documents"),
            KeyResource,
            None,
        ),
        (
            Method::POST,
            format!("/v1/indexes/{iid}/documents"),
            KeyResource,
            Some(json!({"content": "More text."})),
        ),
        (
            Method::GET,
            format!("/v1/indexes/{iid}/documents/{did}"),
            KeyResource,
            None,
        ),
        (
            Method::GET,
            format!("/v1/indexes/{iid}/documents/{did}/chunks"),
            KeyResource,
            None,
        ),
        (
            Method::POST,
            format!("/v1/indexes/{iid}/search"),
            KeyResource,
            Some(json!({"query": "contract"})),
        ),
        (
            Method::POST,
            format!("/v1/indexes/{iid}/search"),
            KeyResource,
            Some(json!({"query": "contract", "mode": "keyword", "filter": {"a": [1, "b"]}})),
        ),
        (
            Method::PUT,
            format!("/v1/indexes/{iid}/documents/by-external-id/ext-1"),
            KeyResource,
            Some(json!({"content": "Replaced text."})),
        ),
        (
            Method::POST,
            format!("/v1/indexes/{iid}/documents/batch"),
            KeyResource,
            Some(json!({"documents": [{"content": "Batch text."}]})),
        ),
        (
            Method::POST,
            format!("/v1/indexes/{iid}/documents/file"),
            KeyResource,
            Some(json!({"$file": {"name": "notes.md", "content": "# Notes"}})),
        ),
        (
            Method::GET,
            format!("/v1/projects/{pid}/members"),
            Role("viewer"),
            None,
        ),
        (
            Method::PATCH,
            format!("/v1/projects/{pid}/members/{viewer_id}"),
            Role("admin"),
            Some(json!({"role": "viewer"})),
        ),
        (
            Method::POST,
            format!("/v1/projects/{pid}/invites"),
            Role("admin"),
            Some(json!({"email": "invitee-{caller}@example.com", "role": "member"})),
        ),
        (
            Method::GET,
            format!("/v1/projects/{pid}/invites"),
            Role("admin"),
            None,
        ),
        (Method::GET, "/v1/auth/sessions".into(), Session, None),
        (Method::GET, "/v1/project".into(), KeyCollection, None),
        (Method::GET, "/v1/admin/users".into(), InstanceAdmin, None),
        (
            Method::GET,
            "/v1/admin/settings".into(),
            InstanceAdmin,
            None,
        ),
        (
            Method::PATCH,
            format!("/v1/admin/users/{leaver_id}"),
            InstanceAdmin,
            Some(json!({"is_admin": false})),
        ),
        (
            Method::POST,
            format!("/v1/admin/users/{leaver_id}/password-reset"),
            InstanceAdmin,
            None,
        ),
        (Method::GET, "/v1/webhooks/events".into(), Public, None),
        (
            Method::POST,
            format!("/v1/projects/{pid}/webhooks"),
            Role("admin"),
            Some(json!({"url": "https://93.184.216.34/{caller}", "events": ["feedback.created"]})),
        ),
        (
            Method::GET,
            format!("/v1/projects/{pid}/webhooks"),
            Role("admin"),
            None,
        ),
        (Method::GET, hooks.clone(), Role("admin"), None),
        (
            Method::PATCH,
            hooks.clone(),
            Role("admin"),
            Some(json!({"description": "by {caller}"})),
        ),
        (
            Method::POST,
            format!("{hooks}/rotate-secret"),
            Role("admin"),
            None,
        ),
        (Method::POST, format!("{hooks}/test"), Role("admin"), None),
        (
            Method::GET,
            format!("{hooks}/deliveries"),
            Role("admin"),
            None,
        ),
        (
            Method::POST,
            format!("{hooks}/deliveries/{dlv}/retry"),
            Role("admin"),
            None,
        ),
        (
            Method::GET,
            format!("/v1/projects/{pid}/notifications"),
            Role("viewer"),
            None,
        ),
        (
            Method::PUT,
            format!("/v1/projects/{pid}/notifications"),
            Role("viewer"),
            Some(json!({"new_feedback": true})),
        ),
        (
            Method::GET,
            format!("/v1/projects/{pid}/changelog/subscribers"),
            Role("member"),
            None,
        ),
        (
            Method::POST,
            "/v1/changelog/subscribe".into(),
            KeyCollection,
            Some(json!({"email": "reader{caller}@example.com"})),
        ),
        (
            Method::POST,
            format!("/v1/changelog/by-project/{slug}/subscribe"),
            Public,
            Some(json!({"email": "public{caller}@example.com"})),
        ),
        (
            Method::POST,
            format!("/v1/feedback/by-project/{slug}"),
            Public,
            Some(json!({"title": "From the board {caller}", "type": "feature"})),
        ),
        (
            Method::GET,
            format!("/v1/feedback/by-project/{slug}/roadmap"),
            Public,
            None,
        ),
        (
            Method::GET,
            format!("/v1/feedback/by-project/{slug}/similar?q=dark%20theme"),
            Public,
            None,
        ),
        (
            Method::GET,
            format!("/v1/feedback/{fid}/comments"),
            Public,
            None,
        ),
        (
            Method::POST,
            format!("/v1/feedback/{fid}/comments"),
            Session,
            Some(json!({"body": "Comment by {caller}"})),
        ),
        (
            Method::PATCH,
            format!("/v1/projects/{pid}"),
            Role("admin"),
            Some(json!({"feedback_moderation": false})),
        ),
        (
            Method::POST,
            format!("/v1/projects/{pid}/identify-secret/rotate"),
            Role("admin"),
            None,
        ),
        (
            Method::GET,
            "/v1/admin/suppressions".into(),
            InstanceAdmin,
            None,
        ),
        // Destructive rows from here on.
        (
            Method::DELETE,
            format!("/v1/feedback/comments/{comment_id}"),
            Role("member"),
            None,
        ),
        (
            Method::POST,
            format!("/v1/feedback/{dup}/merge"),
            Role("member"),
            Some(json!({"into": fid})),
        ),
        (
            Method::DELETE,
            "/v1/admin/suppressions/gone@example.com".into(),
            InstanceAdmin,
            None,
        ),
        (Method::DELETE, hooks.clone(), Role("admin"), None),
        (
            Method::DELETE,
            format!("/v1/projects/{pid}/invites/{invite_id}"),
            Role("admin"),
            None,
        ),
        (
            Method::DELETE,
            format!("/v1/projects/{pid}/members/{leaver_id}"),
            Role("admin"),
            None,
        ),
        (
            Method::DELETE,
            format!("/v1/indexes/{iid}/documents/by-external-id/ext-1"),
            KeyResource,
            None,
        ),
        (
            Method::DELETE,
            format!("/v1/indexes/{iid}/documents/{did}"),
            KeyResource,
            None,
        ),
        (
            Method::DELETE,
            format!("/v1/indexes/{iid}"),
            KeyResource,
            None,
        ),
        (
            Method::DELETE,
            format!("/v1/feedback/{fid}"),
            Role("member"),
            None,
        ),
        (
            Method::DELETE,
            format!("/v1/testimonials/{tid}?project_id={pid}"),
            Role("member"),
            None,
        ),
        (
            Method::DELETE,
            format!("/v1/changelog/dashboard/{pid}/{cid}"),
            Role("member"),
            None,
        ),
        (
            Method::DELETE,
            format!("/v1/projects/{pid}/api-keys/{kid}"),
            Role("admin"),
            None,
        ),
        (
            Method::POST,
            format!("/v1/projects/{pid}/api-key/rotate"),
            Role("admin"),
            None,
        ),
        (
            Method::POST,
            format!("/v1/projects/{pid}/publishable-key/rotate"),
            Role("admin"),
            None,
        ),
        (
            Method::DELETE,
            format!("/v1/projects/{pid}"),
            Role("owner"),
            None,
        ),
        (Method::POST, "/v1/auth/logout".into(), Session, None),
    ];
    f.check(&app, rows).await;
}
