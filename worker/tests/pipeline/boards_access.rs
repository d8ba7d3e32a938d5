//! Boards' visibility (contract part 3, "Feedback, further"): one entry on a public board, one on
//! a private board, one on a segment board (`plan: enterprise`); four callers (anonymous, an end
//! user in the segment, one outside it, a member of the team) walk every feedback read path, and
//! each sees exactly what its boards allow: an entry it may not see is 404 wherever it is asked
//! for, and never appears in a listing, the roadmap, `similar` or a page. A worker runs so that
//! `similar` answers from real vectors.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::helpers::*;
use crate::support::*;

const SLUG: &str = "boards-walk";

/// An HS256 identify token, as a customer's backend signs it.
fn identify_token(secret: &str, claims: &Value) -> String {
    let part = |v: &Value| URL_SAFE_NO_PAD.encode(v.to_string());
    let signing = format!(
        "{}.{}",
        part(&json!({"alg": "HS256", "typ": "JWT"})),
        part(claims)
    );
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(signing.as_bytes());
    format!(
        "{signing}.{}",
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    )
}

async fn end_user(app: &TestApp, project: &Value, secret: &str, sub: &str, plan: &str) -> String {
    let exp = chrono::Utc::now().timestamp() + 600;
    let claims = json!({"sub": sub, "name": sub, "exp": exp, "attributes": {"plan": plan}});
    let (status, body) = app
        .call(
            Method::POST,
            "/v1/auth/identify",
            Auth::Key(project["publishable_key"].as_str().unwrap()),
            Some(json!({"token": identify_token(secret, &claims)})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["token"].as_str().unwrap().to_owned()
}

fn titles(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap().to_owned())
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

async fn read(app: &TestApp, auth: Auth<'_>, path: &str) -> (StatusCode, Value) {
    app.call(Method::GET, path, auth, None).await
}

struct Caller<'a> {
    name: &'a str,
    auth: Auth<'a>,
    /// The titles this caller may see.
    sees: BTreeSet<String>,
}

#[tokio::test]
async fn every_read_path_shows_each_caller_its_boards_only() {
    // Its 30-odd public writes and look-ups come from one client to one project, past the
    // per-minute limit on a fast machine (a 429 on the last submissions): the limit is not what
    // is tested here (api/tests/api/limits.rs is), so it is off.
    let app = spawn_app_with(&["--rate-writes-per-minute", "0"]).await;
    let _worker = start_worker(&app, &[]);
    let (owner, project) = app.owner_with_project(SLUG).await;
    let pid = id(&project).to_owned();
    for (name, slug, extra) in [
        ("Team only", "internal", json!({"visibility": "private"})),
        (
            "Enterprise",
            "enterprise",
            json!({"visibility": "segment", "segment": {"plan": "enterprise"}}),
        ),
    ] {
        let mut body = json!({"name": name, "slug": slug});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (status, board) = app
            .call(
                Method::POST,
                &format!("/v1/projects/{pid}/boards"),
                Auth::Session(&owner),
                Some(body),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{board}");
    }
    // One planned feature request per board, each about dark mode (so `similar` finds them all).
    let mut entries = Vec::new();
    for (title, board) in [
        ("Dark mode for the public app", "feedback"),
        ("Dark mode for the admin console", "internal"),
        ("Dark mode for enterprise reports", "enterprise"),
    ] {
        let (status, e) = app
            .call(
                Method::POST,
                "/v1/feedback",
                Auth::Key(key(&project)),
                Some(json!({"title": title, "type": "feature", "board": board})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{e}");
        app.ok(
            Method::PATCH,
            &format!("/v1/feedback/{}", id(&e)),
            Auth::Session(&owner),
            Some(json!({"status": "planned"})),
        )
        .await;
        entries.push((title, id(&e).to_owned()));
    }
    let secret = app
        .ok(
            Method::POST,
            &format!("/v1/projects/{pid}/identify-secret/rotate"),
            Auth::Session(&owner),
            None,
        )
        .await["identify_secret"]
        .as_str()
        .unwrap()
        .to_owned();
    let inside = end_user(&app, &project, &secret, "ent-user", "enterprise").await;
    let outside = end_user(&app, &project, &secret, "pro-user", "pro").await;
    let member = app
        .member_with_role(&owner, &pid, "viewer-boards@example.com", "viewer")
        .await;
    let (public, private, segment) = (entries[0].0, entries[1].0, entries[2].0);
    let callers = [
        Caller {
            name: "anonymous",
            auth: Auth::None,
            sees: set(&[public]),
        },
        Caller {
            name: "end user in the segment",
            auth: Auth::Session(&inside),
            sees: set(&[public, segment]),
        },
        Caller {
            name: "end user outside the segment",
            auth: Auth::Session(&outside),
            sees: set(&[public]),
        },
        Caller {
            name: "member",
            auth: Auth::Session(&member),
            sees: set(&[public, private, segment]),
        },
    ];

    // Every entry is embedded before `similar` is asked.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, found) = app
            .call(
                Method::GET,
                &format!("/v1/feedback/by-project/{SLUG}/similar?q=dark%20mode"),
                Auth::Session(&member),
                None,
            )
            .await;
        if found["data"].as_array().map_or(0, Vec::len) == 3 {
            break;
        }
        assert!(Instant::now() < deadline, "not embedded: {found}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    for c in &callers {
        let who = c.name;
        // The listing, the roadmap, `similar` and the board list.
        let (status, list) = read(&app, c.auth, &format!("/v1/feedback/by-project/{SLUG}")).await;
        assert_eq!(status, StatusCode::OK, "{who}: {list}");
        assert_eq!(titles(&list["data"]), c.sees, "{who}: listing");
        assert_eq!(list["total"], c.sees.len(), "{who}: listing total");
        let (_, road) = read(
            &app,
            c.auth,
            &format!("/v1/feedback/by-project/{SLUG}/roadmap"),
        )
        .await;
        assert_eq!(titles(&road["planned"]), c.sees, "{who}: roadmap");
        let (_, similar) = read(
            &app,
            c.auth,
            &format!("/v1/feedback/by-project/{SLUG}/similar?q=dark%20mode"),
        )
        .await;
        assert_eq!(titles(&similar["data"]), c.sees, "{who}: similar");
        let (_, boards) = read(
            &app,
            c.auth,
            &format!("/v1/feedback/by-project/{SLUG}/boards"),
        )
        .await;
        let expected_boards =
            1 + usize::from(c.sees.contains(private)) + usize::from(c.sees.contains(segment));
        assert_eq!(
            boards["data"].as_array().unwrap().len(),
            expected_boards,
            "{who}: boards {boards}"
        );
        // Each board asked for by name: its entries, or 404.
        for (board, title) in [
            ("feedback", public),
            ("internal", private),
            ("enterprise", segment),
        ] {
            for path in [
                format!("/v1/feedback/by-project/{SLUG}?board={board}"),
                format!("/v1/feedback/by-project/{SLUG}/roadmap?board={board}"),
                format!("/v1/feedback/by-project/{SLUG}/similar?q=dark%20mode&board={board}"),
            ] {
                let (status, body) = read(&app, c.auth, &path).await;
                if c.sees.contains(title) {
                    assert_eq!(status, StatusCode::OK, "{who}: {path}: {body}");
                } else {
                    assert_eq!(status, StatusCode::NOT_FOUND, "{who}: {path}: {body}");
                }
            }
        }
        // Each entry by id: comments, votes, a comment; 404 when out of sight.
        for (title, entry) in &entries {
            let want = if c.sees.contains(*title) {
                (StatusCode::OK, StatusCode::CREATED)
            } else {
                (StatusCode::NOT_FOUND, StatusCode::NOT_FOUND)
            };
            let (status, body) =
                read(&app, c.auth, &format!("/v1/feedback/{entry}/comments")).await;
            assert_eq!(status, want.0, "{who}: comments of {title}: {body}");
            if matches!(c.auth, Auth::None) {
                continue;
            }
            let (status, body) = app
                .call(
                    Method::POST,
                    &format!("/v1/feedback/{entry}/upvote"),
                    c.auth,
                    None,
                )
                .await;
            assert_eq!(status, want.0, "{who}: upvote {title}: {body}");
            let (status, body) = app
                .call(
                    Method::POST,
                    &format!("/v1/feedback/{entry}/comments"),
                    c.auth,
                    Some(json!({"body": "Yes please"})),
                )
                .await;
            assert_eq!(status, want.1, "{who}: comment on {title}: {body}");
        }
        // The pages: a member's session reaches every board; end users' sessions are for the API
        // and widgets, so the pages show them the public board.
        let page = |path: String| {
            let mut req = app.client.get(app.url(&path));
            if let Auth::Session(t) = c.auth {
                req = req.bearer_auth(t);
            }
            req.send()
        };
        let page_sees = if who == "member" {
            c.sees.clone()
        } else {
            set(&[public])
        };
        for path in [format!("/f/{SLUG}"), format!("/f/{SLUG}/roadmap")] {
            let html = page(path.clone()).await.unwrap().text().await.unwrap();
            for (title, _) in &entries {
                assert_eq!(
                    html.contains(title),
                    page_sees.contains(*title),
                    "{who}: {path} and {title}"
                );
            }
        }
        for (board, title) in [
            ("feedback", public),
            ("internal", private),
            ("enterprise", segment),
        ] {
            let res = page(format!("/f/{SLUG}/b/{board}")).await.unwrap();
            let status = res.status();
            let html = res.text().await.unwrap();
            if page_sees.contains(title) {
                assert_eq!(status, StatusCode::OK, "{who}: /b/{board}");
                assert!(html.contains(title), "{who}: /b/{board}");
            } else {
                assert_eq!(status, StatusCode::NOT_FOUND, "{who}: /b/{board}");
                assert!(!html.contains(title), "{who}: /b/{board}");
            }
        }
    }

    // Posting to a board follows the same rule (after the reads, which count exact titles).
    for c in &callers {
        let who = c.name;
        for (board, title) in [("internal", private), ("enterprise", segment)] {
            let (status, body) = app
                .call(
                    Method::POST,
                    &format!("/v1/feedback/by-project/{SLUG}"),
                    c.auth,
                    Some(json!({"title": format!("From {who}"), "type": "bug", "board": board})),
                )
                .await;
            let want = if c.sees.contains(title) {
                StatusCode::CREATED
            } else {
                StatusCode::NOT_FOUND
            };
            assert_eq!(status, want, "{who}: submit to {board}: {body}");
        }
    }

    // The changelog names public boards' entries only: the page's links to the board and the
    // public API's `feedback_ids`.
    let ids: Vec<&str> = entries.iter().map(|(_, id)| id.as_str()).collect();
    app.ok(
        Method::POST,
        &format!("/v1/changelog/dashboard/{pid}"),
        Auth::Session(&owner),
        Some(
            json!({"title": "Dark mode everywhere", "content": "Shipped.", "type": "feature",
                    "published": true, "feedback_ids": ids}),
        ),
    )
    .await;
    let page = app
        .client
        .get(app.url(&format!("/c/{SLUG}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("Dark mode everywhere") && page.contains(public),
        "{page}"
    );
    assert!(!page.contains(private) && !page.contains(segment), "{page}");
    let published = app
        .ok(Method::GET, "/v1/changelog", Auth::Key(key(&project)), None)
        .await;
    assert_eq!(published["data"][0]["feedback_ids"], json!([entries[0].1]));

    // The team's own listing has them all, each with its board.
    let list = app
        .ok(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}&type=feature"),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(titles(&list["data"]), set(&[public, private, segment]));
    assert!(list["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["board_id"].is_string()));
}
