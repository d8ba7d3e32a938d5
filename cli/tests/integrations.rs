use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::*;
use crate::support::*;

/// Tags and GitHub from the terminal: an entry linked to issues (a wrong URL refused with the server's
/// reason), GitHub connected (URL and secret printed) and disconnected; a Slack-format webhook.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tags_github_links_and_chat_webhooks_from_the_terminal() {
    let (app, cli) = signed_in().await;
    let project = create_project(&cli, "gh-cli").await;
    let (status, entry) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "Dark mode", "type": "feature"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let eid = id(&entry).to_owned();

    let out = cli
        .ok(&[
            "feedback",
            "link",
            &eid,
            "https://github.com/Acme/app/issues/9",
        ])
        .await;
    assert!(
        out.contains("linked to https://github.com/acme/app/issues/9"),
        "{out}"
    );
    let err = cli
        .run(&[
            "feedback",
            "link",
            &eid,
            "https://gitlab.com/acme/app/-/issues/9",
        ])
        .await
        .fails(1);
    assert!(
        err.contains("links") && err.contains("GitHub issue URLs"),
        "{err}"
    );
    let out = cli.ok(&["feedback", "link", &eid]).await;
    assert!(out.contains("linked to no issue"), "{out}");

    // Tags: made, set on the entry, shown and filtered by in the list.
    let tag = cli
        .ok(&[
            "feedback",
            "tags",
            "create",
            "--name",
            "Mobile",
            "--color",
            "#ff8800",
            "--project",
            "gh-cli",
        ])
        .await;
    let tag = tag.trim();
    let out = cli.ok(&["feedback", "tag", &eid, tag]).await;
    assert!(out.contains("tagged Mobile"), "{out}");
    let table = cli
        .ok(&["feedback", "list", "--project", "gh-cli", "--tag", tag])
        .await;
    assert!(
        table.contains("Dark mode") && table.contains("Mobile"),
        "{table}"
    );
    let by_value = cli
        .ok(&["feedback", "list", "--project", "gh-cli", "--sort", "mrr"])
        .await;
    assert!(
        by_value.contains("MRR") && by_value.contains("MUST"),
        "{by_value}"
    );
    let voters = cli.ok(&["feedback", "voters", &eid]).await;
    assert!(voters.contains("No upvotes yet"), "{voters}");
    let tags = cli
        .ok(&["feedback", "tags", "list", "--project", "gh-cli"])
        .await;
    assert!(tags.contains("#ff8800"), "{tags}");
    let err = cli
        .run(&[
            "feedback",
            "tags",
            "create",
            "--name",
            "mobile",
            "--project",
            "gh-cli",
        ])
        .await
        .fails(1);
    assert!(err.contains("tag of this name"), "{err}");

    let out = cli
        .ok(&["feedback", "github-connect", "--project", "gh-cli"])
        .await;
    let pid = id(&project);
    assert!(
        out.contains(&format!("/v1/integrations/github/{pid}")) && out.contains("secret: "),
        "{out}"
    );
    let out = cli
        .ok(&["feedback", "github-disconnect", "--project", "gh-cli"])
        .await;
    assert!(out.contains("GitHub is disconnected"), "{out}");

    let run = cli
        .run(&[
            "webhooks",
            "create",
            "https://93.184.216.34/slack",
            "--format",
            "slack",
            "--project",
            "gh-cli",
        ])
        .await;
    run.ok();
    let table = cli.ok(&["webhooks", "list", "--project", "gh-cli"]).await;
    assert!(table.contains("slack"), "{table}");
}

/// Boards from the terminal: a segment board made with `--segment`, an entry moved onto it and
/// listed by board, a board with entries refused deletion until `--move-to` names where they go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boards_from_the_terminal() {
    let (app, cli) = signed_in().await;
    let project = create_project(&cli, "boards-cli").await;
    let (status, entry) = app
        .call(
            Method::POST,
            "/v1/feedback",
            Auth::Key(key(&project)),
            Some(json!({"title": "SAML sign-in", "type": "feature"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let eid = id(&entry).to_owned();
    let board = cli
        .ok(&[
            "feedback",
            "boards",
            "create",
            "--name",
            "Enterprise",
            "--slug",
            "enterprise",
            "--visibility",
            "segment",
            "--segment",
            "plan=enterprise",
            "--segment",
            "seats=50",
            "--project",
            "boards-cli",
        ])
        .await;
    let board = board.trim().to_owned();
    let table = cli
        .ok(&["feedback", "boards", "list", "--project", "boards-cli"])
        .await;
    assert!(
        table.contains("Feedback (default)")
            && table.contains(r#"{"plan":"enterprise","seats":50}"#),
        "{table}"
    );
    let out = cli.ok(&["feedback", "move", &eid, "enterprise"]).await;
    assert!(out.contains("on board enterprise"), "{out}");
    let listed = cli
        .ok(&[
            "feedback",
            "list",
            "--project",
            "boards-cli",
            "--board",
            "enterprise",
        ])
        .await;
    assert!(listed.contains("SAML sign-in"), "{listed}");
    let err = cli
        .run(&[
            "feedback",
            "boards",
            "delete",
            &board,
            "--project",
            "boards-cli",
        ])
        .await
        .fails(1);
    assert!(err.contains("move_to"), "{err}");
    let default = table
        .lines()
        .find(|l| l.contains("(default)"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_owned();
    let out = cli
        .ok(&[
            "feedback",
            "boards",
            "delete",
            &board,
            "--move-to",
            &default,
            "--project",
            "boards-cli",
        ])
        .await;
    assert!(out.contains("Deleted board"), "{out}");
    let listed = cli
        .ok(&["feedback", "list", "--project", "boards-cli"])
        .await;
    assert!(listed.contains("SAML sign-in"), "{listed}");
}
