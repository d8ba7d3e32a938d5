use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

fn valid() -> Value {
    json!({"author_name": "Ada", "author_email": "ada@example.com", "content": "Great product!", "rating": 5, "author_title": "CTO", "tweet_url": "https://twitter.com/ada/status/1"})
}

#[tokio::test]
async fn testimonials_start_pending_and_only_approved_ones_are_listed_by_key() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("tm-flow").await;
    let k = key(&project);
    let (code, t1) = app
        .call(
            Method::POST,
            "/v1/testimonials",
            Auth::Key(k),
            Some(valid()),
        )
        .await;
    assert_eq!(code, StatusCode::CREATED);
    assert_eq!(t1["status"], "pending");
    assert_eq!(t1["author_title"], "CTO");
    assert_eq!(t1["rating"], 5);
    assert!(
        t1.get("author_email").is_none(),
        "addresses are for the owner's views only"
    );
    let (_, t2) = app.call(Method::POST, "/v1/testimonials", Auth::Key(k), Some(json!({"author_name": "Bob", "author_email": "bob@example.com", "content": "Meh", "rating": 2}))).await;
    let (_, t3) = app.call(Method::POST, "/v1/testimonials/by-project/tm-flow", Auth::None, Some(json!({"author_name": "Cy", "author_email": "cy@example.com", "content": "Nice", "rating": 4}))).await;
    assert_eq!(t3["status"], "pending");
    assert!(
        t3.get("author_email").is_none(),
        "the public form's answer never carries the email"
    );

    let (_, listed) = app
        .call(Method::GET, "/v1/testimonials", Auth::Key(k), None)
        .await;
    assert_eq!(listed["data"], json!([]), "pending ones are never listed");

    let q = format!("?project_id={}", id(&project));
    let (code, approved) = app
        .call(
            Method::PATCH,
            &format!("/v1/testimonials/{}{q}", id(&t1)),
            Auth::Session(&owner),
            Some(json!({"status": "approved"})),
        )
        .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(approved["status"], "approved");
    app.call(
        Method::PATCH,
        &format!("/v1/testimonials/{}{q}", id(&t3)),
        Auth::Session(&owner),
        Some(json!({"status": "approved"})),
    )
    .await;
    let (_, rejected) = app
        .call(
            Method::PATCH,
            &format!("/v1/testimonials/{}{q}", id(&t2)),
            Auth::Session(&owner),
            Some(json!({"status": "rejected"})),
        )
        .await;
    assert_eq!(rejected["status"], "rejected");

    let (_, listed) = app
        .call(Method::GET, "/v1/testimonials", Auth::Key(k), None)
        .await;
    let data = listed["data"].as_array().unwrap();
    assert_eq!(data.len(), 2);
    assert!(data
        .iter()
        .all(|t| t["status"] == "approved" && t.get("author_email").is_none()));
    assert!(
        !data.iter().any(|t| t["id"] == t2["id"]),
        "a rejected one is never listed"
    );

    let (code, all) = app
        .call(
            Method::GET,
            &format!("/v1/testimonials/all{q}"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(all["data"].as_array().unwrap().len(), 3);
    assert!(all["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["author_email"].is_string()));
    assert_eq!(
        all["stats"],
        json!({"total": 3, "pending": 0, "approved": 2, "rejected": 1, "average_rating": 4.5})
    );

    // Moves are allowed from any state: a rejected one can be approved, an approved one rejected.
    let (_, again) = app
        .call(
            Method::PATCH,
            &format!("/v1/testimonials/{}{q}", id(&t1)),
            Auth::Session(&owner),
            Some(json!({"status": "rejected"})),
        )
        .await;
    assert_eq!(again["status"], "rejected");

    let (code, del) = app
        .call(
            Method::DELETE,
            &format!("/v1/testimonials/{}{q}", id(&t2)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(code, StatusCode::OK);
    assert_eq!(del, json!({"id": t2["id"], "deleted": true}));
    let res = app
        .send(
            Method::DELETE,
            &format!("/v1/testimonials/{}{q}", id(&t2)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn average_rating_is_null_without_approved_testimonials() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("tm-empty").await;
    let (_, all) = app
        .call(
            Method::GET,
            &format!("/v1/testimonials/all?project_id={}", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(
        all["stats"],
        json!({"total": 0, "pending": 0, "approved": 0, "rejected": 0, "average_rating": null})
    );
}

#[tokio::test]
async fn invalid_testimonials_are_refused_and_nothing_is_stored() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("tm-invalid").await;
    let k = key(&project);
    let cases = [
        ("rating", json!({"rating": 6})),
        ("rating", json!({"rating": 0})),
        ("rating", json!({"rating": 4.5})),
        ("rating", json!({"rating": "5"})),
        ("author_email", json!({"author_email": "not-an-email"})),
        ("author_name", json!({"author_name": "   "})),
        ("author_name", json!({"author_name": "x".repeat(101)})),
        ("content", json!({"content": "x".repeat(5001)})),
        ("tweet_url", json!({"tweet_url": "javascript:alert(1)"})),
    ];
    for (field, patch) in cases {
        let mut body = valid();
        for (k2, v) in patch.as_object().unwrap() {
            body[k2] = v.clone();
        }
        let res = app
            .send(Method::POST, "/v1/testimonials", Auth::Key(k), Some(body))
            .await;
        let problem =
            assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
        assert_eq!(problem["errors"][0]["field"], field, "{patch}");
    }
    let res = app
        .send(
            Method::POST,
            "/v1/testimonials",
            Auth::Key(k),
            Some(json!({})),
        )
        .await;
    let problem = assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    assert_eq!(problem["errors"].as_array().unwrap().len(), 4);
    let res = app
        .send(
            Method::POST,
            "/v1/testimonials/by-project/nobody-here",
            Auth::None,
            Some(valid()),
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
    let (_, all) = app
        .call(
            Method::GET,
            &format!("/v1/testimonials/all?project_id={}", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(all["stats"]["total"], 0);
}

#[tokio::test]
async fn moderation_is_for_the_owner_of_the_named_project_only() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("tm-owner").await;
    let (_, other_project) = app.owner_with_project("tm-other").await;
    let (_, t) = app
        .call(
            Method::POST,
            "/v1/testimonials",
            Auth::Key(key(&project)),
            Some(valid()),
        )
        .await;
    let stranger = app.login("stranger@example.com").await;
    let q = format!("?project_id={}", id(&project));
    let res = app
        .send(
            Method::GET,
            &format!("/v1/testimonials/all{q}"),
            Auth::Session(&stranger),
            None,
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = app
        .send(
            Method::PATCH,
            &format!("/v1/testimonials/{}{q}", id(&t)),
            Auth::Session(&stranger),
            Some(json!({"status": "approved"})),
        )
        .await;
    assert_problem(res, StatusCode::FORBIDDEN, "forbidden").await;
    let res = app
        .send(
            Method::GET,
            "/v1/testimonials/all",
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    let res = app
        .send(
            Method::PATCH,
            &format!("/v1/testimonials/{}{q}", id(&t)),
            Auth::Session(&owner),
            Some(json!({"status": "pending"})),
        )
        .await;
    assert_problem(res, StatusCode::UNPROCESSABLE_ENTITY, "validation_failed").await;
    // The testimonial is not in the other project, even for that project's owner.
    let other_owner = app.login("owner-tm-other@example.com").await;
    let res = app
        .send(
            Method::PATCH,
            &format!(
                "/v1/testimonials/{}?project_id={}",
                id(&t),
                id(&other_project)
            ),
            Auth::Session(&other_owner),
            Some(json!({"status": "approved"})),
        )
        .await;
    assert_problem(res, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn the_public_form_is_rate_limited_per_ip_and_drops_honeypot_hits() {
    let app = spawn_app_with(&["--rate-writes-per-minute", "3"]).await;
    let (owner, project) = app.owner_with_project("tm-spam").await;
    let mut bot = valid();
    bot["website"] = json!("http://spam.example");
    let (code, _) = app
        .call(
            Method::POST,
            "/v1/testimonials/by-project/tm-spam",
            Auth::None,
            Some(bot),
        )
        .await;
    assert_eq!(code, StatusCode::CREATED, "bots are told nothing");
    for _ in 0..2 {
        let (code, _) = app
            .call(
                Method::POST,
                "/v1/testimonials/by-project/tm-spam",
                Auth::None,
                Some(valid()),
            )
            .await;
        assert_eq!(code, StatusCode::CREATED);
    }
    let res = app
        .send(
            Method::POST,
            "/v1/testimonials/by-project/tm-spam",
            Auth::None,
            Some(valid()),
        )
        .await;
    let retry: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry >= 1);
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    let (_, all) = app
        .call(
            Method::GET,
            &format!("/v1/testimonials/all?project_id={}", id(&project)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(all["stats"]["total"], 2, "the honeypot hit was not stored");
}
