//! Revenue (issue #39, part 2): events carry a decimal amount and an ISO 4217 code, a bad one is
//! 422 by field and nothing of the request is accepted; a goal with a currency reports the total
//! and average of its events' amounts in it, and counts those in other currencies as skipped.

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::analytics::{read, track, wait_page_views, CHROME, IPHONE};
use crate::helpers::*;
use crate::support::*;

#[tokio::test]
async fn goals_with_a_currency_sum_and_average_their_revenue_and_bad_amounts_are_refused() {
    let app = spawn_app_with(&["--trusted-proxies", "127.0.0.1/32"]).await;
    let _worker = start_worker(&app, &[]);
    let (token, project) = app.owner_with_project("an-revenue").await;
    let k = key(&project);
    let buy = |amount: serde_json::Value, currency: &str| {
        json!({"name": "purchase", "url": "https://acme.example/checkout",
               "revenue": {"amount": amount, "currency": currency}})
    };
    // A malformed amount or currency: 422 naming the field, and the valid events beside it are
    // not accepted either.
    for (bad, field) in [
        (buy(json!("12,50"), "EUR"), "events[1].revenue.amount"),
        (buy(json!(12.5), "EURO"), "events[1].revenue.currency"),
        (buy(json!("1e3"), "eur"), "events[1].revenue.amount"),
        (
            json!({"name": "purchase", "revenue": "12.50 EUR"}),
            "events[1].revenue",
        ),
    ] {
        let (status, body) = track(
            &app,
            k,
            "81.2.69.142",
            CHROME,
            json!({"events": [{"url": "https://acme.example/"}, bad]}),
        )
        .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(body["errors"][0]["field"], field, "{body}");
    }
    // Two purchases in EUR (one a JSON number, taken as its decimal text), one in USD.
    track(
        &app,
        k,
        "81.2.69.142",
        CHROME,
        json!({"events": [
        {"url": "https://acme.example/checkout?utm_source=newsletter", "referrer": "https://news.example/a"},
        buy(json!("12.50"), "eur")]}),
    )
    .await;
    track(
        &app,
        k,
        "8.8.8.8",
        IPHONE,
        json!({"events": [
        {"url": "https://acme.example/checkout", "referrer": "https://news.example/b"},
        buy(json!(30), "EUR")]}),
    )
    .await;
    track(
        &app,
        k,
        "8.8.4.4",
        CHROME,
        json!({"events": [
        {"url": "https://acme.example/checkout", "referrer": "https://search.example/"},
        buy(json!("9.99"), "USD")]}),
    )
    .await;
    // A visitor from a source who bought nothing.
    track(
        &app,
        k,
        "1.1.1.1",
        IPHONE,
        json!({"url": "https://acme.example/?utm_source=newsletter", "referrer": "https://search.example/"}),
    )
    .await;
    wait_page_views(&app, &token, &project, 4).await;

    let goal = |body: serde_json::Value| {
        let app = &app;
        let token = token.clone();
        async move {
            app.call(
                Method::POST,
                "/v1/analytics/goals",
                Auth::Session(&token),
                Some(body),
            )
            .await
        }
    };
    let pid = id(&project);
    let (status, eur) = goal(
        json!({"project_id": pid, "name": "Purchase", "event": "purchase", "currency": "eur"}),
    )
    .await;
    assert_eq!(
        (status, eur["currency"].clone()),
        (StatusCode::CREATED, json!("EUR")),
        "{eur}"
    );
    let (status, body) =
        goal(json!({"project_id": pid, "name": "X", "event": "purchase", "currency": "XYZ"})).await;
    assert_eq!(
        (status, body["errors"][0]["field"].clone()),
        (StatusCode::UNPROCESSABLE_ENTITY, json!("currency")),
        "{body}"
    );
    goal(json!({"project_id": pid, "name": "Checkout", "page": "/checkout"})).await;

    let goals = read(&app, &token, "goals", &project, "7d").await;
    let row = |name: &str| {
        goals["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["name"] == name)
            .cloned()
            .unwrap()
    };
    let purchase = row("Purchase");
    assert_eq!(purchase["conversions"], 3, "{goals}");
    by_source(&app, &token, &project, &purchase, &checkout_id(&goals)).await;
    assert_eq!(
        (
            purchase["revenue"].clone(),
            purchase["revenue_skipped"].clone()
        ),
        (
            json!({"total": "42.50", "average": "21.25", "currency": "EUR"}),
            json!(1)
        ),
        "{goals}"
    );
    // A goal without a currency reports no revenue.
    let checkout = row("Checkout");
    assert_eq!(checkout["conversions"], 3, "{goals}");
    assert_eq!(
        (
            checkout["revenue"].clone(),
            checkout["revenue_skipped"].clone()
        ),
        (json!(null), json!(0))
    );
}

fn checkout_id(goals: &serde_json::Value) -> String {
    goals["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["name"] == "Checkout")
        .map(|g| g["id"].as_str().unwrap().to_owned())
        .unwrap()
}

/// Referrers and UTM broken down by the goals: conversions, rate and revenue per source; an
/// unknown goal or another project's is 404.
async fn by_source(
    app: &TestApp,
    token: &str,
    project: &serde_json::Value,
    purchase: &serde_json::Value,
    checkout: &str,
) {
    let get = |read: &'static str, goal: String| async move {
        app.call(
            Method::GET,
            &format!(
                "/v1/analytics/{read}?project_id={}&period=7d&goal={goal}",
                id(project)
            ),
            Auth::Session(token),
            None,
        )
        .await
    };
    let (status, body) = get("referrers", purchase["id"].as_str().unwrap().into()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let row = |host: &str| {
        body["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["referrer"] == host)
            .cloned()
            .unwrap_or_else(|| panic!("no {host} in {body}"))
    };
    let news = row("news.example");
    assert_eq!(
        (
            &news["visitors"],
            &news["conversions"],
            &news["conversion_rate"]
        ),
        (&json!(2), &json!(2), &json!(100.0)),
        "{body}"
    );
    assert_eq!(
        news["revenue"],
        json!({"total": "42.50", "average": "21.25", "currency": "EUR"})
    );
    // One of its two visitors bought, in USD: not converted, so no revenue in EUR.
    let search = row("search.example");
    assert_eq!(
        (
            &search["visitors"],
            &search["conversions"],
            &search["conversion_rate"]
        ),
        (&json!(2), &json!(1), &json!(50.0)),
        "{body}"
    );
    assert_eq!(
        search["revenue"],
        json!({"total": "0.00", "average": "0.00", "currency": "EUR"})
    );

    // UTM by the page goal (no currency: no revenue).
    let (status, body) = get("utm", checkout.to_owned()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let newsletter = &body["sources"][0];
    assert_eq!(
        (
            &newsletter["utm_source"],
            &newsletter["visitors"],
            &newsletter["conversions"],
            &newsletter["conversion_rate"],
            &newsletter["revenue"]
        ),
        (
            &json!("newsletter"),
            &json!(2),
            &json!(1),
            &json!(50.0),
            &json!(null)
        ),
        "{body}"
    );
    // Without `goal=` the rows carry no conversions.
    let plain = read(app, token, "referrers", project, "7d").await;
    assert!(plain["data"][0].get("conversions").is_none(), "{plain}");

    // An unknown goal, a malformed one, another project's: 404.
    let (their_token, other) = app.owner_with_project("an-revenue-other").await;
    let (status, theirs) = app
        .call(
            Method::POST,
            "/v1/analytics/goals",
            Auth::Session(&their_token),
            Some(json!({"project_id": id(&other), "name": "G", "event": "purchase"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{theirs}");
    for goal in [
        uuid::Uuid::now_v7().to_string(),
        "nope".into(),
        theirs["id"].as_str().unwrap().into(),
    ] {
        let (status, body) = get("referrers", goal).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    }
}
