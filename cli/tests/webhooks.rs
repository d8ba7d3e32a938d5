use crate::helpers::*;
use crate::support::*;

/// An admin adds an endpoint, sees it, pings it, reads its deliveries and deletes it; a private
/// URL is refused with the server's reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admin_manages_webhooks_from_the_terminal() {
    let app = spawn_app().await;
    let token = app.login("ada@example.com").await;
    let cli = Shipmate::new(&app);
    cli.login_with_token(&token).await;
    create_project(&cli, "hooked").await;

    let run = cli
        .run(&[
            "webhooks",
            "create",
            "https://93.184.216.34/shipmate",
            "--event",
            "feedback.created,changelog.published",
            "--description",
            "CRM sync",
            "--project",
            "hooked",
        ])
        .await;
    assert!(run.stderr.contains("signing secret"), "{run:#?}");
    let secret = run.ok().trim().to_owned();
    assert!(
        secret.starts_with("whsec_"),
        "only the secret on stdout: {secret}"
    );

    let list = cli.json(&["webhooks", "list", "--project", "hooked"]).await;
    let hook = &list["data"][0];
    assert_eq!(
        hook["events"],
        serde_json::json!(["feedback.created", "changelog.published"])
    );
    let hook_id = id(hook).to_owned();
    let table = cli.ok(&["webhooks", "list", "--project", "hooked"]).await;
    assert!(
        table.contains("https://93.184.216.34/shipmate") && table.contains("feedback.created"),
        "{table}"
    );

    let out = cli
        .ok(&["webhooks", "test", &hook_id, "--project", "hooked"])
        .await;
    assert!(out.contains("Ping queued"), "{out}");
    let deliveries = cli
        .json(&["webhooks", "deliveries", &hook_id, "--project", "hooked"])
        .await;
    assert_eq!(deliveries["data"][0]["type"], "ping");
    assert_eq!(deliveries["data"][0]["status"], "pending");
    let table = cli
        .ok(&["webhooks", "deliveries", &hook_id, "--project", "hooked"])
        .await;
    assert!(
        table.contains("ping") && table.contains("pending"),
        "{table}"
    );

    let events = cli.ok(&["webhooks", "events"]).await;
    assert!(events.lines().any(|l| l == "document.ready"), "{events}");

    let err = cli
        .run(&[
            "webhooks",
            "create",
            "http://10.0.0.5/hook",
            "--project",
            "hooked",
        ])
        .await
        .fails(1);
    assert!(err.contains("private"), "{err}");

    cli.ok(&["webhooks", "delete", &hook_id, "--project", "hooked"])
        .await;
    let list = cli.json(&["webhooks", "list", "--project", "hooked"]).await;
    assert_eq!(list["data"], serde_json::json!([]));
}
