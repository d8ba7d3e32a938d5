use std::os::unix::fs::PermissionsExt;

use reqwest::Method;
use serde_json::Value;

use crate::helpers::*;
use crate::support::*;

async fn public_titles(app: &TestApp, key: &str) -> Vec<String> {
    let (_, body) = app
        .call(Method::GET, "/v1/changelog", Auth::Key(key), None)
        .await;
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changelog_entries_are_written_from_files_and_the_editor_and_published() {
    let (app, cli) = signed_in().await;
    let project = create_project(&cli, "cl-cli").await;
    let k = key(&project);
    let dir = TempDir::new("changelog");
    let notes = dir.write("dark-mode.md", "# Dark mode\n\nEverything is darker now.\n");
    let notes = notes.to_str().unwrap();
    // Written well before it runs: a script still open for writing in a forked child cannot be
    // executed ("text file busy").
    let editor = dir.write(
        "editor.sh",
        "#!/bin/sh\nprintf 'Written in the editor.\\n' > \"$1\"\n",
    );
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();

    let entry = cli
        .json(&[
            "changelog",
            "new",
            "--project",
            "cl-cli",
            "--title",
            "Dark mode",
            "--type",
            "feature",
            "--file",
            notes,
        ])
        .await;
    assert_eq!(entry["published"], false);
    assert_eq!(entry["type"], "feature");
    assert_eq!(
        entry["content"].as_str().unwrap().trim(),
        "# Dark mode\n\nEverything is darker now."
    );
    let entry_id = id(&entry).to_owned();

    let out = cli.ok(&["changelog", "list", "--project", "cl-cli"]).await;
    assert!(
        out.contains("Dark mode") && out.contains("draft") && out.contains(&entry_id),
        "{out}"
    );
    assert!(public_titles(&app, k).await.is_empty());

    let out = cli
        .ok(&["changelog", "publish", &entry_id, "--project", "cl-cli"])
        .await;
    assert!(out.contains(&format!("Published {entry_id}")), "{out}");
    assert_eq!(public_titles(&app, k).await, vec!["Dark mode".to_owned()]);
    let out = cli.ok(&["changelog", "list", "--project", "cl-cli"]).await;
    assert!(out.contains("published"), "{out}");

    let out = cli
        .ok(&[
            "changelog",
            "unpublish",
            &entry_id,
            "--project",
            id(&project),
        ])
        .await;
    assert!(out.contains("to draft"), "{out}");
    assert!(public_titles(&app, k).await.is_empty());

    let out = cli
        .ok(&[
            "changelog",
            "new",
            "--project",
            "cl-cli",
            "--title",
            "Faster search",
            "--type",
            "improvement",
            "--file",
            notes,
            "--publish",
        ])
        .await;
    assert!(out.starts_with("Published "), "{out}");
    assert_eq!(
        public_titles(&app, k).await,
        vec!["Faster search".to_owned()]
    );

    // Without --file the content comes from $EDITOR, run on a temporary file.
    let run = cli
        .run_with(
            &[
                "--json",
                "changelog",
                "new",
                "--project",
                "cl-cli",
                "--title",
                "Typo fix",
                "--type",
                "fix",
            ],
            &[("EDITOR", editor.to_str().unwrap())],
        )
        .await;
    let entry: Value = serde_json::from_str(&run.ok()).unwrap();
    assert_eq!(
        entry["content"].as_str().unwrap().trim(),
        "Written in the editor."
    );

    // An editor that saves nothing saves no entry.
    let err = cli
        .run_with(
            &[
                "changelog",
                "new",
                "--project",
                "cl-cli",
                "--title",
                "Empty",
                "--type",
                "fix",
            ],
            &[("EDITOR", "true")],
        )
        .await
        .fails(1);
    assert!(err.starts_with("error: the entry has no content"), "{err}");
    let list = cli
        .json(&["changelog", "list", "--project", "cl-cli"])
        .await;
    assert_eq!(list["data"].as_array().unwrap().len(), 3);

    cli.run(&[
        "changelog",
        "new",
        "--project",
        "cl-cli",
        "--title",
        "X",
        "--type",
        "nonsense",
        "--file",
        notes,
    ])
    .await
    .fails(2);
}
