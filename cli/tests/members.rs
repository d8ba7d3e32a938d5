use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::*;
use crate::support::*;

/// The emails in `members list --json`, with their roles, sorted.
async fn roster(cli: &Shipmate, project: &str) -> Vec<(String, String)> {
    let list = cli.json(&["members", "list", "--project", project]).await;
    let mut rows: Vec<(String, String)> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert!(
                m["user_id"].is_string() && m["created_at"].is_string(),
                "{m}"
            );
            (
                m["email"].as_str().unwrap().to_owned(),
                m["role"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    rows.sort();
    rows
}

/// An app with two people signed up through dev login: Ada, signed in with the CLI, and Bob's
/// session token (he accepts invites through the api, as the invite page would).
async fn two_people() -> (TestApp, Shipmate, String) {
    let app = spawn_app().await;
    let ada_token = app.login("ada@example.com").await;
    let bob_token = app.login("bob@example.com").await;
    let ada = Shipmate::new(&app);
    ada.login_with_token(&ada_token).await;
    (app, ada, bob_token)
}

/// Accepts the invite link (its token is the last path segment) with a session; the answer.
async fn accept(app: &TestApp, url: &str, session: &str) -> Value {
    let token = url.trim().rsplit('/').next().unwrap();
    let (status, accepted) = app
        .call(
            Method::POST,
            &format!("/v1/invites/{token}/accept"),
            Auth::Session(session),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    accepted
}

fn pair(email: &str, role: &str) -> (String, String) {
    (email.to_owned(), role.to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_invites_lists_changes_roles_and_removes_members() {
    let (app, ada, bob_token) = two_people().await;
    create_project(&ada, "crew").await;

    let run = ada
        .run(&["members", "invite", "bob@example.com", "--project", "crew"])
        .await;
    assert!(run.stderr.contains("as member"), "{run:#?}");
    let url = run.ok().trim().to_owned();
    assert!(url.contains("/invite/"), "only the link on stdout: {url}");
    assert_eq!(accept(&app, &url, &bob_token).await["role"], "member");

    let out = ada.ok(&["members", "list", "--project", "crew"]).await;
    for expected in [
        "EMAIL",
        "ROLE",
        "SINCE",
        "ada@example.com",
        "bob@example.com",
        "owner",
        "member",
    ] {
        assert!(out.contains(expected), "{expected} missing: {out}");
    }
    assert_eq!(
        roster(&ada, "crew").await,
        [
            pair("ada@example.com", "owner"),
            pair("bob@example.com", "member")
        ]
    );

    let out = ada
        .ok(&[
            "members",
            "role",
            "BOB@example.com",
            "admin",
            "--project",
            "crew",
        ])
        .await;
    assert!(out.contains("bob@example.com is now admin"), "{out}");
    let invite: Value = ada
        .json(&[
            "members",
            "invite",
            "cy@example.com",
            "--role",
            "viewer",
            "--project",
            "crew",
        ])
        .await;
    assert_eq!(invite["role"], "viewer");
    assert!(invite["url"].as_str().unwrap().contains("/invite/"));

    let out = ada
        .ok(&["members", "remove", "bob@example.com", "--project", "crew"])
        .await;
    assert!(out.contains("Removed bob@example.com"), "{out}");
    assert_eq!(
        roster(&ada, "crew").await,
        [pair("ada@example.com", "owner")]
    );

    let err = ada
        .run(&["members", "remove", "bob@example.com", "--project", "crew"])
        .await
        .fails(1);
    assert!(
        err.starts_with("error: bob@example.com is not a member"),
        "{err}"
    );
    let err = ada
        .run(&["members", "remove", "bob", "--project", "crew"])
        .await
        .fails(1);
    assert!(err.contains("neither a user id nor an email"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_owner_stays_and_lesser_roles_are_refused_with_the_apis_reason() {
    let (app, ada, bob_token) = two_people().await;
    let project = create_project(&ada, "solo").await;
    let project_id = id(&project).to_owned();

    let err = ada
        .run(&["members", "remove", "ada@example.com", "--project", "solo"])
        .await
        .fails(1);
    // The api's last_owner detail.
    assert!(
        err.starts_with("error: a project keeps at least one owner"),
        "{err}"
    );
    let err = ada
        .run(&[
            "members",
            "role",
            "ada@example.com",
            "admin",
            "--project",
            "solo",
        ])
        .await
        .fails(1);
    assert!(
        err.starts_with("error: a project keeps at least one owner"),
        "{err}"
    );

    // Bob joins as a viewer: he may read the team, not change it.
    let url = ada
        .ok(&[
            "members",
            "invite",
            "bob@example.com",
            "--role",
            "viewer",
            "--project",
            "solo",
        ])
        .await;
    assert_eq!(accept(&app, &url, &bob_token).await["role"], "viewer");
    let bob = Shipmate::new(&app);
    bob.login_with_token(&bob_token).await;
    let out = bob.ok(&["projects", "list"]).await;
    assert!(out.contains("solo") && out.contains("viewer"), "{out}");
    // Projects one is a member of resolve by slug as by id.
    let out = bob.ok(&["members", "list", "--project", "solo"]).await;
    assert!(out.contains("ada@example.com"), "{out}");
    let err = bob
        .run(&[
            "members",
            "invite",
            "eve@example.com",
            "--project",
            &project_id,
        ])
        .await
        .fails(1);
    // The api's forbidden detail, not a bare status.
    assert!(err.starts_with("error: this needs the admin role"), "{err}");

    // Leaving is open to anyone.
    let out = bob
        .ok(&[
            "members",
            "remove",
            "bob@example.com",
            "--project",
            &project_id,
        ])
        .await;
    assert!(out.contains("Removed bob@example.com"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_work_in_the_knowledge_base_without_the_secret_key() {
    let (app, ada, bob_token) = two_people().await;
    create_project(&ada, "kb-team").await;
    let url = ada
        .ok(&[
            "members",
            "invite",
            "bob@example.com",
            "--project",
            "kb-team",
        ])
        .await;
    accept(&app, &url, &bob_token).await;
    let bob = Shipmate::new(&app);
    bob.login_with_token(&bob_token).await;

    let shown = bob.json(&["projects", "show", "kb-team"]).await;
    assert!(
        shown.get("api_key").is_none(),
        "members never see it: {shown}"
    );
    let index = bob
        .json(&[
            "indexes",
            "create",
            "--project",
            "kb-team",
            "--name",
            "docs",
            "--model",
            LOCAL_MODEL,
        ])
        .await;
    assert_eq!(index["name"], "docs");

    // A viewer reads, and is refused writes with the api's reason.
    ada.ok(&[
        "members",
        "role",
        "bob@example.com",
        "viewer",
        "--project",
        "kb-team",
    ])
    .await;
    let out = bob.ok(&["indexes", "list", "--project", "kb-team"]).await;
    assert!(out.contains("docs"), "{out}");
    let err = bob
        .run(&[
            "indexes",
            "create",
            "--project",
            "kb-team",
            "--name",
            "more",
        ])
        .await
        .fails(1);
    assert!(
        err.starts_with("error: this needs the member role"),
        "{err}"
    );
}
