use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::fake_idp::FakeIdp;
use crate::helpers::*;
use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_through_the_browser_stores_a_private_token_that_logout_revokes() {
    let idp = FakeIdp::start().await;
    let app = spawn_set_up_app(&idp.flags()).await;
    let cli = Shipmate::new(&app);

    let run = cli.login().await;
    assert!(
        run.stderr.contains("Open this URL to sign in: "),
        "{run:#?}"
    );
    let out = run.ok();
    assert!(out.contains("Signed in as grace@example.com"), "{out}");

    let path = cli.credentials_path();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "credentials must be private");
    let dir_mode = std::fs::metadata(cli.config.path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o077, 0, "the folder must not be open to others");
    let creds: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(creds["api_url"], app.base.as_str());
    let token = cli.token();
    assert!(token.starts_with("st_"));

    let out = cli.ok(&["whoami"]).await;
    assert!(out.contains("grace@example.com (Grace)"), "{out}");
    let me = cli.json(&["whoami"]).await;
    assert_eq!(me["email"], "grace@example.com");

    let out = cli.ok(&["logout"]).await;
    assert!(out.contains("Signed out"), "{out}");
    assert!(!path.exists(), "logout forgets the token");
    let res = app
        .send(Method::GET, "/v1/me", Auth::Session(&token), None)
        .await;
    assert_eq!(
        res.status(),
        StatusCode::UNAUTHORIZED,
        "logout revokes the token"
    );

    let err = cli.run(&["whoami"]).await.fails(1);
    assert!(err.starts_with("error: not signed in"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_defaults_to_the_password_page_which_hands_the_token_to_the_cli() {
    let app = spawn_set_up_app(&[]).await;
    let (status, body) = app
        .call(
            Method::POST,
            "/v1/auth/register",
            Auth::None,
            Some(json!({
                "email": "lin@example.com",
                "name": "Lin",
                "password": "correct horse battery",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let cli = Shipmate::new(&app);

    let run = cli
        .login_with_password(&app, "lin@example.com", "correct horse battery")
        .await;
    let out = run.ok();
    assert!(out.contains("Signed in as lin@example.com"), "{out}");
    assert!(cli.token().starts_with("st_"));
    let out = cli.ok(&["whoami"]).await;
    assert!(out.contains("lin@example.com (Lin)"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_with_token_checks_and_stores_a_token_from_standard_input() {
    let app = spawn_app().await;
    let cli = Shipmate::new(&app);
    let session = app.login("ci@example.com").await;
    // A personal access token, as the help says to make one.
    let help = cli.ok(&["login", "--help"]).await;
    assert!(help.contains("Personal access tokens"), "{help}");
    let (_, made) = app
        .call(
            Method::POST,
            "/v1/auth/tokens",
            Auth::Session(&session),
            Some(json!({"name": "CI"})),
        )
        .await;
    let token = made["token"].as_str().unwrap().to_owned();

    let err = cli
        .run_stdin(&["login", "--with-token"], "st_nonsense\n")
        .await
        .fails(1);
    assert!(
        err.starts_with("error: ") && err.contains("did not accept that token"),
        "{err}"
    );
    assert!(err.contains("nothing was stored"), "{err}");
    assert!(!cli.credentials_path().exists());
    let err = cli
        .run_stdin(&["login", "--with-token"], "  \n")
        .await
        .fails(1);
    assert!(
        err.starts_with("error: no token on standard input"),
        "{err}"
    );
    cli.run(&["login", "--with-token", "--provider", "oidc"])
        .await
        .fails(2);

    let out = cli.login_with_token(&format!("  {token}  ")).await;
    assert!(out.contains("Signed in as ci@example.com"), "{out}");
    assert_eq!(cli.token(), token, "stored trimmed");
    let mode = std::fs::metadata(cli.credentials_path())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "credentials must be private");
    assert!(cli.ok(&["whoami"]).await.contains("ci@example.com"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_refuses_a_callback_with_the_wrong_state() {
    let idp = FakeIdp::start().await;
    let app = spawn_set_up_app(&idp.flags()).await;
    let cli = Shipmate::new(&app);
    let (child, url, drain) = cli.start_login(&[]).await;

    let params: HashMap<String, String> = url::Url::parse(&url)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect();
    assert_eq!(params["state"].len(), 32);
    let callback = &params["cli_callback"];
    assert!(callback.starts_with("http://127.0.0.1:"), "{callback}");
    let forged = format!("{callback}?token=st_forged&state=not-the-one");
    let res = reqwest::get(&forged).await.unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);

    let run = finish(child, drain).await;
    let err = run.fails(1);
    assert!(
        err.contains("error: the sign-in callback carried the wrong state"),
        "{err}"
    );
    assert!(!cli.credentials_path().exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_in_the_environment_serves_scripts_without_storing_anything() {
    let app = spawn_app().await;
    let cli = Shipmate::new(&app);
    let token = app.login("script@example.com").await;

    let run = cli
        .run_with(&["whoami"], &[("SHIPMATE_TOKEN", token.as_str())])
        .await;
    assert!(run.ok().contains("script@example.com"));
    let run = cli
        .run_with(
            &[
                "--json", "projects", "create", "--name", "Scripted", "--slug", "scripted",
            ],
            &[("SHIPMATE_TOKEN", token.as_str())],
        )
        .await;
    let project: Value = serde_json::from_str(&run.ok()).unwrap();
    assert_eq!(project["slug"], "scripted");
    assert!(!cli.credentials_path().exists());

    let run = cli
        .run_with(&["whoami"], &[("SHIPMATE_TOKEN", "st_nonsense")])
        .await;
    let err = run.fails(1);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("shipmate login"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_is_reported_plainly() {
    // Nothing listens on the discard port.
    let cli = Shipmate::at("http://127.0.0.1:9");
    let run = cli
        .run_with(&["whoami"], &[("SHIPMATE_TOKEN", "st_x")])
        .await;
    let err = run.fails(1);
    assert!(
        err.starts_with("error: could not reach http://127.0.0.1:9"),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn help_completions_and_usage_errors_need_no_server() {
    let cli = Shipmate::at("http://127.0.0.1:9");
    let help = cli.ok(&["--help"]).await;
    for command in [
        "login",
        "logout",
        "whoami",
        "projects",
        "members",
        "feedback",
        "testimonials",
        "changelog",
        "indexes",
        "kb",
        "stats",
        "completions",
    ] {
        assert!(
            help.contains(command),
            "{command} missing from --help:\n{help}"
        );
    }
    assert!(help.contains("SHIPMATE_TOKEN"));
    for args in [
        &["login", "--help"][..],
        &["projects", "create", "--help"][..],
        &["members", "invite", "--help"][..],
        &["feedback", "set-status", "--help"][..],
        &["testimonials", "approve", "--help"][..],
        &["changelog", "new", "--help"][..],
        &["indexes", "create", "--help"][..],
        &["docs", "upload", "--help"][..],
        &["search", "--help"][..],
        &["stats", "--help"][..],
    ] {
        let out = cli.ok(args).await;
        assert!(out.contains("Usage: shipmate"), "{args:?}: {out}");
    }
    let out = cli.ok(&["login", "--help"]).await;
    assert!(
        out.contains("--with-token") && out.contains("password"),
        "{out}"
    );
    let out = cli.ok(&["changelog", "new", "--help"]).await;
    assert!(out.contains("feature") && out.contains("breaking"), "{out}");

    assert!(cli.ok(&["completions", "bash"]).await.contains("shipmate"));
    assert!(cli
        .ok(&["completions", "zsh"])
        .await
        .contains("#compdef shipmate"));
    assert!(cli
        .ok(&["completions", "fish"])
        .await
        .contains("complete -c shipmate"));

    cli.run(&["feedback"]).await.fails(2);
    cli.run(&["stats", "--project", "x", "--period", "1y"])
        .await
        .fails(2);
    cli.run(&["completions", "tcsh"]).await.fails(2);
    cli.run(&[
        "members",
        "invite",
        "a@example.com",
        "--project",
        "x",
        "--role",
        "boss",
    ])
    .await
    .fails(2);
    cli.run(&["docs", "upload", "--project", "x", "--index", "i"])
        .await
        .fails(2);
}
