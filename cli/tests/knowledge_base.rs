use serde_json::Value;

use crate::fake_chat::{Behaviour, FakeChat};
use crate::helpers::*;
use crate::support::*;

const KAYAK: &str =
    "# Kayaking basics\n\nSit upright in the kayak, hold the paddle with both hands \
and rotate your torso with each stroke. Keep the blade fully in the water and paddle close to \
the hull to go straight along the river.\n";
const GARDEN: &str = "Growing tomatoes: give them full sun, rich compost and deep watering twice \
a week in summer. Stake the plants early and pinch off side shoots.\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_are_uploaded_from_a_folder_and_found_by_search() {
    let (app, cli) = signed_in().await;
    let _worker = start_worker(&app);
    let project = create_project(&cli, "kb-cli").await;
    let k = key(&project).to_owned();

    let index = cli
        .json(&[
            "indexes",
            "create",
            "--project",
            "kb-cli",
            "--name",
            "docs",
            "--model",
            LOCAL_MODEL,
        ])
        .await;
    assert_eq!(index["embedding_model"], LOCAL_MODEL);
    let index_id = id(&index).to_owned();
    let out = cli.ok(&["indexes", "list", "--project", "kb-cli"]).await;
    assert!(
        out.contains("docs") && out.contains(LOCAL_MODEL) && out.contains(&index_id),
        "{out}"
    );

    let dir = TempDir::new("docs");
    dir.write("kayak.md", KAYAK);
    dir.write("nested/garden.txt", GARDEN);
    dir.write("big.md", &"lorem ipsum ".repeat(10_000)); // 120,000 bytes: over the limit
    dir.write("logo.png", "not text"); // not a documentation extension: ignored
    dir.write(".hidden/secret.md", "hidden folders are skipped");
    let folder = dir.path().to_str().unwrap();

    let upload = |extra: &[&str]| {
        let mut args = vec![
            "kb",
            "upload",
            "--project",
            "kb-cli",
            "--index",
            &index_id,
            "--concurrency",
            "2",
        ];
        args.extend_from_slice(extra);
        args.push(folder);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let args = upload(&[]);
    let run = cli
        .run(&args.iter().map(String::as_str).collect::<Vec<_>>())
        .await;
    let stderr = run.stderr.clone();
    let out = run.ok();
    assert!(out.starts_with("Uploaded 2 documents ("), "{out}");
    assert!(out.contains("), 2 skipped, 0 failed"), "{out}");
    assert!(stderr.contains("warning: skipping big.md"), "{stderr}");
    assert!(
        stderr.contains("note: skipping logo.png: not a .md, .txt, .html or .pdf file"),
        "{stderr}"
    );
    assert!(!stderr.contains("secret"), "{stderr}");

    // The load's progress: waited for, then counted (a name works as well as an id).
    let status = cli
        .ok(&[
            "kb",
            "status",
            "--project",
            "kb-cli",
            "--index",
            "docs",
            "--wait",
        ])
        .await;
    assert_eq!(
        status.trim(),
        "docs: 2 of 2 documents ready, 0 pending, 0 failed"
    );
    let counts = cli
        .json(&["kb", "status", "--project", "kb-cli", "--index", &index_id])
        .await;
    assert_eq!(
        (&counts["documents_ready"], &counts["document_count"]),
        (&Value::from(2), &Value::from(2))
    );

    let docs = wait_all_ready(&app, &k, &index_id, 2).await;
    let mut paths: Vec<_> = docs.keys().cloned().collect();
    paths.sort();
    assert_eq!(paths, ["kayak.md", "nested/garden.txt"]);
    // A folder's files are upserted under their relative paths.
    assert_eq!(
        docs["nested/garden.txt"]["external_id"],
        "nested/garden.txt"
    );

    // Uploading the folder again replaces each document in place, reusing every unchanged chunk,
    // and the new metadata replaces the old.
    let args = upload(&["--metadata", r#"{"lang": "en"}"#]);
    let mut all = vec!["--json"];
    all.extend(args.iter().map(String::as_str));
    let again: Value = serde_json::from_str(&cli.ok(&all).await).unwrap();
    assert_eq!(again["uploaded"], 2, "{again}");
    assert_eq!(again["skipped"], 2, "{again}");
    assert!(again["chunks"].as_u64().unwrap() >= 2, "{again}");
    assert_eq!(again["chunks_reused"], again["chunks"], "{again}");
    let same = wait_all_ready(&app, &k, &index_id, 2).await;
    assert_eq!(same["kayak.md"]["id"], docs["kayak.md"]["id"]);
    assert_eq!(same["kayak.md"]["metadata"]["lang"], "en");

    // --external-id names one document: a folder is refused before anything is sent.
    let args = upload(&["--external-id", "one"]);
    let err = cli
        .run(&args.iter().map(String::as_str).collect::<Vec<_>>())
        .await
        .fails(1);
    assert!(err.contains("--external-id names one document"), "{err}");

    // Keyword mode finds an exact word; the metadata filter narrows by value.
    let keyword = cli
        .json(&[
            "kb",
            "search",
            "--project",
            "kb-cli",
            "--index",
            &index_id,
            "tomatoes",
            "--mode",
            "keyword",
        ])
        .await;
    let results = keyword["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{keyword}");
    assert_eq!(results[0]["metadata"]["path"], "nested/garden.txt");
    assert_eq!(results[0]["chunk_index"], 0);
    for (filter, expected) in [("lang=en", 2), ("lang=de", 0)] {
        let found = cli
            .json(&[
                "kb",
                "search",
                "--project",
                "kb-cli",
                "--index",
                &index_id,
                "river",
                "--filter",
                filter,
            ])
            .await;
        assert_eq!(
            found["results"].as_array().unwrap().len(),
            expected,
            "{filter}: {found}"
        );
    }

    let query = "how do I paddle a kayak?";
    let found = cli
        .json(&[
            "kb",
            "search",
            "--project",
            "kb-cli",
            "--index",
            &index_id,
            query,
            "--top-k",
            "2",
        ])
        .await;
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["metadata"]["path"], "kayak.md");
    assert_eq!(results[0]["document_id"], docs["kayak.md"]["id"]);

    let out = cli
        .ok(&[
            "kb",
            "search",
            "--project",
            "kb-cli",
            "--index",
            &index_id,
            query,
        ])
        .await;
    let score = format!("{:.4}", results[0]["score"].as_f64().unwrap());
    assert!(out.contains(&score), "score {score} with 4 decimals: {out}");
    let kayak_at = out.find("kayak.md").expect("kayak.md in the results");
    let garden_at = out
        .find("nested/garden.txt")
        .expect("garden in the results");
    assert!(kayak_at < garden_at, "the kayak guide ranks first: {out}");
    let kayak_id = docs["kayak.md"]["id"].as_str().unwrap();
    let first_row = out.lines().find(|l| l.contains(kayak_id)).unwrap();
    assert!(first_row.trim_start().starts_with("1 "), "rank 1: {out}");
    assert!(
        first_row.contains("Kayaking basics"),
        "chunk text on the same line: {out}"
    );

    // The searches above in the index's analytics: five, one of them empty (the German filter);
    // the question twice, grouped lowercase.
    let stats = cli
        .ok(&[
            "kb",
            "analytics",
            "--project",
            "kb-cli",
            "--index",
            &index_id,
            "--period",
            "7d",
        ])
        .await;
    let key = query.to_lowercase();
    assert!(
        stats.starts_with("5 searches") && stats.contains("no result 20.0%"),
        "{stats}"
    );
    let row = stats.lines().find(|l| l.contains(&key)).unwrap();
    assert!(row.contains(" 2 "), "searched twice: {stats}");

    // A failed upload is reported, summed up and makes the exit code 1.
    let run = cli
        .run(&[
            "kb",
            "upload",
            "--project",
            "kb-cli",
            "--index",
            &uuid::Uuid::new_v4().to_string(),
            dir.path().join("kayak.md").to_str().unwrap(),
        ])
        .await;
    assert!(
        run.stdout
            .contains("Uploaded 0 documents (0 chunks, 0 reused), 0 skipped, 1 failed"),
        "{run:#?}"
    );
    let err = run.fails(1);
    assert!(
        err.contains("failed: kayak.md: ") && err.contains("error: 1 of 1 uploads failed"),
        "{err}"
    );

    let summary: Value = {
        let other = dir.write("more/extra.rst", "Extra notes about rivers and paddles.\n");
        cli.json(&[
            "docs",
            "upload",
            "--project",
            "kb-cli",
            "--index",
            &index_id,
            other.to_str().unwrap(),
        ])
        .await
    };
    assert_eq!(summary["uploaded"], 1);
    assert_eq!(summary["documents"][0]["path"], "extra.rst");
    assert_eq!(summary["documents"][0]["external_id"], "extra.rst");
    assert_eq!(
        summary["documents"][0]["document"]["external_id"],
        "extra.rst"
    );

    let out = cli
        .ok(&[
            "kb",
            "delete",
            "--project",
            "kb-cli",
            "--index",
            &index_id,
            "--external-id",
            "extra.rst",
        ])
        .await;
    assert!(out.contains("Deleted document extra.rst"), "{out}");

    let out = cli
        .ok(&["indexes", "delete", &index_id, "--project", "kb-cli"])
        .await;
    assert!(out.contains(&format!("Deleted index {index_id}")), "{out}");
    let list = cli.json(&["indexes", "list", "--project", "kb-cli"]).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kb_ask_writes_the_answer_then_its_sources() {
    let chat =
        FakeChat::start("Keep the blade in the water and paddle close to the hull [1].").await;
    let flags = chat.flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (app, cli) = signed_in_with(&flags).await;
    let _worker = start_worker(&app);
    create_project(&cli, "kb-ask").await;
    cli.ok(&[
        "indexes",
        "create",
        "--project",
        "kb-ask",
        "--name",
        "docs",
        "--model",
        LOCAL_MODEL,
    ])
    .await;
    let dir = TempDir::new("ask");
    dir.write("kayak.md", KAYAK);
    let folder = dir.path().to_str().unwrap();
    cli.ok(&[
        "kb",
        "upload",
        "--project",
        "kb-ask",
        "--index",
        "docs",
        "--wait",
        folder,
    ])
    .await;

    let ask = [
        "kb",
        "ask",
        "--project",
        "kb-ask",
        "--index",
        "docs",
        "How do I paddle straight?",
    ];
    let out = cli.ok(&ask).await;
    assert!(
        out.starts_with("Keep the blade in the water and paddle close to the hull [1].\n\nSources:\n  [1] kayak.md (chunk 0): # Kayaking basics"),
        "{out}"
    );
    assert!(
        chat.received()[0]["stream"] == true,
        "streamed to the terminal"
    );
    let whole = cli.json(&ask).await;
    assert_eq!(whole["citations"][0]["metadata"]["path"], "kayak.md");

    // The question found nothing in keyword mode: a gap of the project.
    cli.ok(&[
        "kb",
        "search",
        "--project",
        "kb-ask",
        "--index",
        "docs",
        "--mode",
        "keyword",
        "gift cards",
    ])
    .await;
    let gaps = cli
        .ok(&["kb", "gaps", "--project", "kb-ask", "--period", "7d"])
        .await;
    assert!(gaps.contains("gift cards") && gaps.contains('1'), "{gaps}");

    chat.set(Behaviour::Fail);
    let err = cli.run(&ask).await.fails(1);
    assert!(err.contains("the chat provider failed"), "{err}");
    let empty = cli
        .run(&["kb", "ask", "--project", "kb-ask", "--index", "docs", " "])
        .await
        .fails(1);
    assert!(empty.contains("question"), "{empty}");
}
