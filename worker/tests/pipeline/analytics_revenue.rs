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
        {"url": "https://acme.example/checkout"}, buy(json!("12.50"), "eur")]}),
    )
    .await;
    track(
        &app,
        k,
        "8.8.8.8",
        IPHONE,
        json!({"events": [
        {"url": "https://acme.example/checkout"}, buy(json!(30), "EUR")]}),
    )
    .await;
    track(
        &app,
        k,
        "8.8.4.4",
        CHROME,
        json!({"events": [
        {"url": "https://acme.example/checkout"}, buy(json!("9.99"), "USD")]}),
    )
    .await;
    wait_page_views(&app, &token, &project, 3).await;

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
    assert_eq!(
        (
            checkout["revenue"].clone(),
            checkout["revenue_skipped"].clone()
        ),
        (json!(null), json!(0))
    );
}
