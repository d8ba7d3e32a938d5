//! Every command that takes an index takes its name as well as its id.

use crate::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn indexes_are_named_by_name_as_well_as_by_id() {
    let (app, cli) = signed_in().await;
    let _worker = start_worker(&app);
    let project = create_project(&cli, "kb-names").await;
    let key = project["api_key"].as_str().unwrap().to_owned();
    let p = ["--project", "kb-names"];

    let mut ids = Vec::new();
    for name in ["Docs", "docs", "FAQ"] {
        let index = cli
            .json(&[
                "indexes",
                "create",
                p[0],
                p[1],
                "--name",
                name,
                "--model",
                LOCAL_MODEL,
            ])
            .await;
        ids.push(index["id"].as_str().unwrap().to_owned());
    }
    let faq = ids[2].clone();

    let dir = TempDir::new("names");
    let file = dir.write(
        "refunds.md",
        "Refunds are paid back within 14 days of the return.\n",
    );
    let file = file.to_str().unwrap();

    // A name alike but for case finds the one index so named.
    let out = cli
        .ok(&["kb", "upload", p[0], p[1], "--index", "faq", file])
        .await;
    assert!(out.starts_with("Uploaded 1 document"), "{out}");
    let docs = wait_all_ready(&app, &key, &faq, 1).await;
    assert!(docs.contains_key("refunds.md"), "{docs:?}");

    let found = cli
        .json(&[
            "kb", "search", p[0], p[1], "--index", "FAQ", "refunds", "--mode", "keyword",
        ])
        .await;
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{found}");
    assert_eq!(results[0]["document_id"], docs["refunds.md"]["id"]);
    // The earlier `search` and `docs upload` take names too.
    let found = cli
        .json(&[
            "search", p[0], p[1], "--index", "FAQ", "refunds", "--mode", "keyword",
        ])
        .await;
    assert_eq!(found["results"].as_array().unwrap().len(), 1, "{found}");
    let again = cli
        .json(&["docs", "upload", p[0], p[1], "--index", "FAQ", file])
        .await;
    assert_eq!(again["uploaded"], 1, "{again}");

    // An exact name wins over one alike but for case; two alike are ambiguous.
    let found = cli
        .json(&[
            "kb", "search", p[0], p[1], "--index", "docs", "refunds", "--mode", "keyword",
        ])
        .await;
    assert_eq!(found["results"].as_array().unwrap().len(), 0, "{found}");
    let err = cli
        .run(&["kb", "search", p[0], p[1], "--index", "DOCS", "refunds"])
        .await
        .fails(1);
    assert!(
        err.contains("`DOCS` is ambiguous")
            && err.contains(&format!("`Docs` ({})", ids[0]))
            && err.contains(&format!("`docs` ({})", ids[1])),
        "{err}"
    );

    // An unknown name says so and lists the project's indexes; nothing is sent.
    let err = cli
        .run(&["kb", "upload", p[0], p[1], "--index", "blog", file])
        .await
        .fails(1);
    assert!(
        err.contains("this project has no index `blog`") && err.contains("`FAQ`"),
        "{err}"
    );

    let out = cli
        .ok(&[
            "kb",
            "delete",
            p[0],
            p[1],
            "--index",
            "FAQ",
            "--external-id",
            "refunds.md",
        ])
        .await;
    assert!(out.contains("Deleted document refunds.md"), "{out}");
    let out = cli.ok(&["indexes", "delete", "docs", p[0], p[1]]).await;
    assert_eq!(out.trim(), format!("Deleted index docs ({})", ids[1]));
    let list = cli.json(&["indexes", "list", p[0], p[1]]).await;
    let left: Vec<_> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap())
        .collect();
    assert_eq!(left.len(), 2, "{list}");
    assert!(left.contains(&"Docs") && left.contains(&"FAQ"), "{list}");
}
