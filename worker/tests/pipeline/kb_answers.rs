//! Answers (contract part 3, "Knowledge base, further"): the index's best chunks numbered in the
//! prompt sent to an OpenAI-compatible chat API (a fake one here), citations mapped back to those
//! chunks, whole and streamed as Server-Sent Events; and what is refused: no chat API, an empty
//! question, a provider that fails, hangs or breaks mid-stream, too many answers of one project.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::fake_chat::{Behaviour, FakeChat, CHAT_MODEL};
use crate::helpers::*;
use crate::support::*;

const QUESTION: &str = "How do I reset my password?";

async fn app_with(chat: &FakeChat, extra: &[&str]) -> TestApp {
    let flags = chat.flags();
    let mut args: Vec<&str> = flags.iter().map(String::as_str).collect();
    args.extend_from_slice(extra);
    spawn_app_with(&args).await
}

fn answer_path(index: &Value) -> String {
    format!("/v1/indexes/{}/answer", id(index))
}

/// Asks with `Accept: text/event-stream`: (status, the response).
async fn ask_streamed(app: &TestApp, key: &str, index: &Value, body: Value) -> reqwest::Response {
    let send = app
        .client
        .post(app.url(&answer_path(index)))
        .header("X-Project-Key", key)
        .header("Accept", "text/event-stream")
        .json(&body)
        .send();
    tokio::time::timeout(Duration::from_secs(30), send)
        .await
        .expect("answered before the test's deadline")
        .expect("request")
}

/// The events of a whole Server-Sent Events body: (event name, data as JSON).
async fn events(res: reqwest::Response) -> Vec<(String, Value)> {
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    let text = tokio::time::timeout(Duration::from_secs(30), res.text())
        .await
        .expect("the stream ends")
        .expect("body");
    text.split("\n\n")
        .filter_map(|block| {
            let field = |name: &str| {
                block
                    .lines()
                    .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_owned()))
            };
            Some((
                field("event:")?,
                serde_json::from_str(&field("data:")?).ok()?,
            ))
        })
        .collect()
}

#[tokio::test]
async fn an_answer_cites_the_chunks_it_used_whole_and_streamed() {
    let reply = "Open settings, then security [2]. Press reset [1][2]. Or ask support [7].";
    let chat = FakeChat::start(reply).await;
    let app = app_with(&chat, &[]).await;
    let (_, key, index) = project_with_index(&app, "kb-answers", LOCAL_MODEL).await;
    let (_, other_key, other_index) =
        project_with_index(&app, "kb-answers-other", LOCAL_MODEL).await;
    let _worker = start_worker(&app, &[]);
    for (key, index, text, title) in [
        (
            &key,
            &index,
            "How to reset your password: open settings, choose security, and press reset.",
            "Passwords",
        ),
        (
            &key,
            &index,
            "Security settings hold your password, two-factor codes and sessions.",
            "Security",
        ),
        (
            &other_key,
            &other_index,
            "Password reset for zebra accounts: the zebra tenant's own secret steps.",
            "Zebra",
        ),
    ] {
        let doc = upload(&app, key, index, text, json!({"title": title})).await;
        assert_eq!(wait_done(&app, key, index, &doc).await["status"], "ready");
    }

    // The chunks a hybrid search ranks, in order: the prompt's [1] and [2].
    let (_, found) = app
        .call(
            Method::POST,
            &format!("/v1/indexes/{}/search", id(&index)),
            Auth::Key(&key),
            Some(json!({"query": QUESTION, "mode": "hybrid"})),
        )
        .await;
    let ranked = found["results"].as_array().unwrap().clone();
    assert_eq!(ranked.len(), 2, "{found}");

    let (status, answer) = app
        .call(
            Method::POST,
            &answer_path(&index),
            Auth::Key(&key),
            Some(json!({"question": QUESTION})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["answer"], reply);
    assert!(answer["search_id"].is_string());
    let cited: Vec<_> = answer["citations"].as_array().unwrap().clone();
    assert_eq!(cited.len(), 2, "[7] names no source: {answer}");
    for (citation, result) in cited.iter().zip([&ranked[1], &ranked[0]]) {
        for field in ["document_id", "chunk_index", "chunk_content", "metadata"] {
            assert_eq!(citation[field], result[field], "{field} of {citation}");
        }
    }

    let sent = &chat.received()[0];
    assert_eq!(sent["model"], CHAT_MODEL);
    assert_eq!(sent["stream"], false);
    assert_eq!(sent["messages"][0]["role"], "system");
    let content = |r: &Value| r["chunk_content"].as_str().unwrap().to_owned();
    assert_eq!(
        chat.prompt(0),
        format!(
            "Sources:\n\n[1] {}\n\n[2] {}\n\nQuestion: {QUESTION}",
            content(&ranked[0]),
            content(&ranked[1])
        )
    );
    assert!(
        !chat.prompt(0).to_lowercase().contains("zebra"),
        "another project's chunk reached the prompt"
    );

    // Streamed: the pieces as the model writes them, then the whole answer.
    let res = ask_streamed(&app, &key, &index, json!({"question": QUESTION})).await;
    let streamed = events(res).await;
    let (last, deltas) = streamed.split_last().unwrap();
    assert!(deltas.len() > 2, "{streamed:?}");
    assert!(deltas.iter().all(|(name, _)| name == "delta"));
    let text: String = deltas
        .iter()
        .map(|(_, d)| d["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, reply);
    assert_eq!(last.0, "done");
    assert_eq!(last.1["answer"], reply);
    assert_eq!(last.1["citations"], answer["citations"]);
    assert!(last.1["search_id"].is_string());
    assert_eq!(chat.received()[1]["stream"], true);

    // Answers' retrievals are searches of the index's analytics.
    let stats = app
        .ok(
            Method::GET,
            &format!("/v1/indexes/{}/analytics?period=7d", id(&index)),
            Auth::Key(&key),
            None,
        )
        .await;
    assert_eq!(stats["searches"], 3, "{stats}");
}

#[tokio::test]
async fn answers_refuse_what_they_cannot_do() {
    // No chat API configured.
    let plain = spawn_app().await;
    let (_, key, index) = project_with_index(&plain, "kb-no-chat", LOCAL_MODEL).await;
    plain
        .refused(
            (Method::POST, &answer_path(&index)),
            Auth::Key(&key),
            Some(json!({"question": QUESTION})),
            (StatusCode::SERVICE_UNAVAILABLE, "chat_not_configured"),
        )
        .await;

    let chat = FakeChat::start("Nothing to cite [2].").await;
    let app = app_with(&chat, &["--chat-timeout-seconds", "1"]).await;
    let (_, key, index) = project_with_index(&app, "kb-answer-refusals", LOCAL_MODEL).await;
    let path = answer_path(&index);
    for (body, field) in [
        (json!({"question": "   "}), "question"),
        (json!({"question": QUESTION, "top_k": 0}), "top_k"),
        (json!({"question": QUESTION, "mode": "psychic"}), "mode"),
    ] {
        let problem = app
            .refused(
                (Method::POST, &path),
                Auth::Key(&key),
                Some(body),
                (StatusCode::UNPROCESSABLE_ENTITY, "validation_failed"),
            )
            .await;
        assert_eq!(problem["errors"][0]["field"], field, "{problem}");
    }
    app.refused(
        (
            Method::POST,
            &answer_path(&json!({"id": uuid::Uuid::now_v7()})),
        ),
        Auth::Key(&key),
        Some(json!({"question": QUESTION})),
        (StatusCode::NOT_FOUND, "not_found"),
    )
    .await;
    assert!(
        chat.received().is_empty(),
        "no refusal reached the provider"
    );

    // An empty index: the model is told so, and nothing is cited.
    let answer = app
        .ok(
            Method::POST,
            &path,
            Auth::Key(&key),
            Some(json!({"question": QUESTION})),
        )
        .await;
    assert_eq!(answer["citations"], json!([]));
    assert!(chat.prompt(0).contains("(no source matches the question)"));

    // Rate limited twice, then served: the client waits and retries.
    chat.set(Behaviour::ThrottleFirst(2));
    let before = chat.received().len();
    app.ok(
        Method::POST,
        &path,
        Auth::Key(&key),
        Some(json!({"question": QUESTION})),
    )
    .await;
    assert_eq!(chat.received().len(), before + 3);

    // Failing, hanging (cut at the one-second timeout), whole or streamed: 502.
    for behaviour in [Behaviour::Fail, Behaviour::Hang] {
        chat.set(behaviour);
        let ask = app.refused(
            (Method::POST, &path),
            Auth::Key(&key),
            Some(json!({"question": QUESTION})),
            (StatusCode::BAD_GATEWAY, "upstream_failed"),
        );
        tokio::time::timeout(Duration::from_secs(30), ask)
            .await
            .expect("cut at the timeout");
        let res = ask_streamed(&app, &key, &index, json!({"question": QUESTION})).await;
        assert_problem(res, StatusCode::BAD_GATEWAY, "upstream_failed").await;
    }

    // Broken after the first piece: the stream ends with an error event, and no `done`.
    chat.set(Behaviour::BreakMidStream);
    let streamed =
        events(ask_streamed(&app, &key, &index, json!({"question": QUESTION})).await).await;
    let names: Vec<_> = streamed.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["delta", "error"], "{streamed:?}");
    assert_eq!(streamed[1].1["code"], "upstream_failed");
    assert_eq!(streamed[1].1["status"], 502);
}

#[tokio::test]
async fn one_project_has_a_bounded_number_of_answers_in_flight() {
    let chat = FakeChat::start("A slow answer, written piece by piece [1].").await;
    chat.script.lock().unwrap().gap = Duration::from_millis(150);
    let app = app_with(&chat, &["--chat-project-concurrency", "1"]).await;
    let (_, key, index) = project_with_index(&app, "kb-answer-busy", LOCAL_MODEL).await;
    let (_, other_key, other_index) = project_with_index(&app, "kb-answer-calm", LOCAL_MODEL).await;
    let question = json!({"question": QUESTION});

    // The first answer streams (headers in, pieces still coming) and holds the project's one slot.
    let first = ask_streamed(&app, &key, &index, question.clone()).await;
    assert_eq!(first.status(), StatusCode::OK);
    let res = app
        .send(
            Method::POST,
            &answer_path(&index),
            Auth::Key(&key),
            Some(question.clone()),
        )
        .await;
    assert_eq!(res.headers()["retry-after"], "1");
    assert_problem(res, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    app.ok(
        Method::POST,
        &answer_path(&other_index),
        Auth::Key(&other_key),
        Some(question.clone()),
    )
    .await;

    // Once it has ended, the project answers again.
    assert_eq!(events(first).await.last().unwrap().0, "done");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, body) = app
            .call(
                Method::POST,
                &answer_path(&index),
                Auth::Key(&key),
                Some(question.clone()),
            )
            .await;
        if status == StatusCode::OK {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{status} {body}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
