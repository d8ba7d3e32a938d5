use reqwest::{Method, StatusCode};

use crate::helpers::*;
use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn projects_are_created_listed_shown_and_their_keys_rotated() {
    let (app, cli) = signed_in().await;

    let acme = create_project(&cli, "acme").await;
    let acme_id = id(&acme).to_owned();
    let old_key = key(&acme).to_owned();
    let out = cli
        .ok(&[
            "projects", "create", "--name", "Beta App", "--slug", "beta-app",
        ])
        .await;
    assert!(out.contains("Created project Beta App (beta-app)"), "{out}");
    assert!(
        out.contains("pk_"),
        "the new key is shown once created: {out}"
    );

    let out = cli.ok(&["projects", "list"]).await;
    for expected in [
        "ID",
        "SLUG",
        "acme",
        "beta-app",
        "Beta App",
        "owner",
        acme_id.as_str(),
    ] {
        assert!(out.contains(expected), "{expected} missing: {out}");
    }
    assert!(!out.contains("pk_"), "the list never prints keys: {out}");
    let list = cli.json(&["projects", "list"]).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 2);

    for by in ["acme", acme_id.as_str()] {
        let out = cli.ok(&["projects", "show", by]).await;
        assert!(out.contains(&old_key) && out.contains(&acme_id), "{out}");
    }

    let out = cli.ok(&["projects", "rotate-key", "acme"]).await;
    let shown = cli.json(&["projects", "show", "acme"]).await;
    let new_key = key(&shown).to_owned();
    assert_ne!(new_key, old_key);
    assert!(out.contains(&new_key), "{out}");
    let res = app
        .send(Method::GET, "/v1/indexes", Auth::Key(&old_key), None)
        .await;
    assert_eq!(
        res.status(),
        StatusCode::UNAUTHORIZED,
        "the old key is dead"
    );
    let res = app
        .send(Method::GET, "/v1/indexes", Auth::Key(&new_key), None)
        .await;
    assert_eq!(res.status(), StatusCode::OK);

    // The snippet carries the publishable key, never the secret one; that key rotates on its own.
    let publishable = shown["publishable_key"].as_str().unwrap().to_owned();
    let snippet = cli.ok(&["projects", "snippet", "acme"]).await;
    assert!(
        snippet.contains(&format!("data-project=\"{publishable}\""))
            && snippet.contains("/sdk/sm.js"),
        "{snippet}"
    );
    assert!(!snippet.contains(&new_key), "{snippet}");
    let out = cli
        .ok(&["projects", "rotate-key", "acme", "--publishable"])
        .await;
    let shown = cli.json(&["projects", "show", "acme"]).await;
    let rotated = shown["publishable_key"].as_str().unwrap();
    assert_ne!(rotated, publishable);
    assert!(out.contains(rotated), "{out}");
    assert_eq!(key(&shown), new_key, "the secret key stays");

    let err = cli
        .run(&["projects", "create", "--name", "Again", "--slug", "acme"])
        .await
        .fails(1);
    assert!(
        err.starts_with("error: ") && err.contains("already exists"),
        "{err}"
    );
    let err = cli.run(&["projects", "show", "nope"]).await.fails(1);
    assert!(
        err.starts_with("error: you have no project `nope`"),
        "{err}"
    );
    let err = cli
        .run(&["projects", "create", "--name", "Bad", "--slug", "ab"])
        .await
        .fails(1);
    assert!(err.starts_with("error: slug must be"), "{err}");
}
