//! Customer value (contract part 3, "Feedback, further"): the identify token's company and
//! attributes, votes' importance, and what members see of them: companies, summed MRR, importance
//! counts, the value sorts, and the voters.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;
use crate::identity::{identify, jwt, now, rotate};

/// An end-user session for `sub`, with the token's other claims.
async fn customer(
    app: &TestApp,
    project: &Value,
    secret: &str,
    sub: &str,
    claims: Value,
) -> String {
    let mut c = json!({"sub": sub, "name": sub, "exp": now() + 600});
    c.as_object_mut()
        .unwrap()
        .extend(claims.as_object().unwrap().clone());
    let (status, body) = identify(app, project, &jwt(secret, c)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["token"].as_str().unwrap().to_owned()
}

async fn upvote(
    app: &TestApp,
    token: &str,
    entry: &str,
    body: Option<Value>,
) -> (StatusCode, Value) {
    app.call(
        Method::POST,
        &format!("/v1/feedback/{entry}/upvote"),
        Auth::Session(token),
        body,
    )
    .await
}

async fn members_list(app: &TestApp, owner: &str, pid: &str, sort: &str) -> Value {
    let (status, list) = app
        .call(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}&sort={sort}"),
            Auth::Session(owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list
}

#[tokio::test]
async fn votes_carry_the_customer_value_members_sort_by() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("value-a").await;
    let pid = id(&project).to_owned();
    let secret = rotate(&app, &owner, &project).await;
    let mut entries = Vec::new();
    for title in ["SSO", "Dark mode", "CSV export"] {
        let (_, e) = app
            .call(
                Method::POST,
                "/v1/feedback",
                Auth::Key(key(&project)),
                Some(json!({"title": title, "type": "feature"})),
            )
            .await;
        entries.push(id(&e).to_owned());
    }
    let (sso, dark, csv) = (&entries[0], &entries[1], &entries[2]);
    let acme = json!({"company": {"id": "acme", "name": "Acme", "mrr": 500, "plan": "pro"}, "attributes": {"plan": "pro", "seats": 12, "nested": {"x": 1}}});
    let ann = customer(&app, &project, &secret, "ann", acme.clone()).await;
    let bob = customer(&app, &project, &secret, "bob", acme).await;
    let cat = customer(
        &app,
        &project,
        &secret,
        "cat",
        json!({"company": {"id": 7, "name": "Initech", "mrr": 2000}}),
    )
    .await;
    let dan = customer(&app, &project, &secret, "dan", json!({})).await;

    // Importance: optional (nice to have), validated; repeating an upvote updates it.
    let (status, _) = upvote(&app, &ann, sso, Some(json!({"importance": "must_have"}))).await;
    assert_eq!(status, StatusCode::OK);
    let (status, err) = upvote(&app, &bob, sso, Some(json!({"importance": "urgent"}))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    assert_eq!(err["errors"][0]["field"], "importance");
    assert_eq!(upvote(&app, &bob, sso, None).await.0, StatusCode::OK);
    assert_eq!(
        upvote(&app, &bob, sso, Some(json!({"importance": "important"})))
            .await
            .0,
        StatusCode::OK
    );
    assert_eq!(
        upvote(
            &app,
            &cat,
            dark,
            Some(json!({"importance": "nice_to_have"}))
        )
        .await
        .0,
        StatusCode::OK
    );
    assert_eq!(
        upvote(&app, &dan, csv, Some(json!({"importance": "must_have"})))
            .await
            .0,
        StatusCode::OK
    );
    assert_eq!(upvote(&app, &dan, dark, None).await.0, StatusCode::OK);

    // Members: companies (distinct, by MRR), summed MRR, importance counts; sorts by them.
    let list = members_list(&app, &owner, &pid, "mrr").await;
    let titles: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Dark mode", "SSO", "CSV export"]);
    let sso_row = &list["data"][1];
    assert_eq!(sso_row["mrr"], 500.0);
    assert_eq!(
        sso_row["companies"],
        json!([{"id": "acme", "name": "Acme", "mrr": 500.0, "plan": "pro"}])
    );
    assert_eq!(
        sso_row["importance"],
        json!({"nice_to_have": 0, "important": 1, "must_have": 1})
    );
    let list = members_list(&app, &owner, &pid, "must_have").await;
    assert_eq!(list["data"][0]["title"], "CSV export", "{list}");

    // The public sees none of it, and may not sort by it.
    let (_, board) = app
        .call(
            Method::GET,
            "/v1/feedback/by-project/value-a",
            Auth::None,
            None,
        )
        .await;
    for e in board["data"].as_array().unwrap() {
        assert!(
            e.get("mrr").is_none() && e.get("companies").is_none() && e.get("importance").is_none(),
            "{e}"
        );
    }
    let (status, _) = app
        .call(
            Method::GET,
            "/v1/feedback/by-project/value-a?sort=mrr",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);

    // A company's MRR changing in a later token moves its entries' value.
    customer(
        &app,
        &project,
        &secret,
        "ann",
        json!({"company": {"id": "acme", "name": "Acme", "mrr": 5000}}),
    )
    .await;
    let list = members_list(&app, &owner, &pid, "mrr").await;
    assert_eq!(list["data"][0]["title"], "SSO");
    assert_eq!(list["data"][0]["mrr"], 5000.0);

    // Voters: members only, with company and importance; attributes only ever from the token.
    let path = format!("/v1/feedback/{sso}/voters");
    let (status, voters) = app
        .call(Method::GET, &path, Auth::Session(&owner), None)
        .await;
    assert_eq!(status, StatusCode::OK, "{voters}");
    let mut rows: Vec<(String, String)> = voters["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap().to_owned(),
                v["importance"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    rows.sort();
    assert_eq!(
        rows,
        [
            ("ann".to_owned(), "must_have".to_owned()),
            ("bob".to_owned(), "important".to_owned())
        ]
    );
    assert_eq!(voters["data"][0]["company"]["name"], "Acme");
    assert!(voters["data"][0]["voted_at"].is_string());
    let (status, _) = app
        .call(Method::GET, &path, Auth::Session(&ann), None)
        .await;
    assert!(
        status == StatusCode::FORBIDDEN || status == StatusCode::UNAUTHORIZED,
        "{status}"
    );

    // A malformed company refuses the token.
    let bad = jwt(
        &secret,
        json!({"sub": "eve", "exp": now() + 600, "company": {"name": "No id"}}),
    );
    let (status, err) = identify(&app, &project, &bad).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{err}");
}
