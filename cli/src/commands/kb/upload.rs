//! `shipmate docs upload`: files and folders to documents, a few uploads in flight at once.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use futures::stream::{self, StreamExt};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Map, Value};
use shipmate_types::kb::{Document, NewDocument};

use crate::cli::UploadArgs;
use crate::client::{Auth, Client};
use crate::commands::{project_id, seg};
use crate::ctx::Ctx;
use crate::output::{plural, print_json};

/// The API's limit on a document's content (bytes).
const MAX_BYTES: u64 = 102_400;
/// Files picked up when walking a folder; a file named explicitly is uploaded whatever its name.
const EXTENSIONS: &[&str] = &["md", "markdown", "txt", "rst", "html"];

struct File {
    path: PathBuf,
    /// Stored as the document's `metadata.path`.
    rel: String,
}

struct Outcome {
    rel: String,
    result: anyhow::Result<Uploaded>,
}

struct Uploaded {
    chunks: u64,
    /// The document as the server answered, for `--json`.
    json: Value,
}

pub async fn run(ctx: &Ctx, args: UploadArgs) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &args.project.project).await?;
    let mut files = Vec::new();
    let mut skipped = 0u64;
    for root in &args.paths {
        collect(root, &mut files, &mut skipped)?;
    }
    if files.is_empty() && skipped == 0 {
        eprintln!(
            "warning: no files to upload (folders are searched for .{} files)",
            EXTENSIONS.join(", .")
        );
    }

    let total = files.len();
    let bar = progress_bar(total as u64);
    let endpoint = format!("/v1/indexes/{}/documents", seg(&args.index));
    let (client, pid, endpoint, bar_ref) = (&ctx.client, pid.as_str(), endpoint.as_str(), &bar);
    let outcomes: Vec<Outcome> = stream::iter(files)
        .map(move |file| async move {
            bar_ref.set_message(file.rel.clone());
            let result = upload_one(client, pid, endpoint, &file).await;
            if let Err(e) = &result {
                bar_ref.suspend(|| eprintln!("failed: {}: {e:#}", file.rel));
            }
            bar_ref.inc(1);
            Outcome {
                rel: file.rel,
                result,
            }
        })
        .buffer_unordered(usize::from(args.concurrency))
        .collect()
        .await;
    bar.finish_and_clear();

    let mut uploaded = 0u64;
    let mut chunks = 0u64;
    let mut documents = Vec::new();
    let mut errors = Vec::new();
    for o in outcomes {
        match o.result {
            Ok(doc) => {
                uploaded += 1;
                chunks += doc.chunks;
                documents.push(json!({ "path": o.rel, "document": doc.json }));
            }
            Err(e) => errors.push(json!({ "path": o.rel, "error": format!("{e:#}") })),
        }
    }
    let failed = errors.len();
    if ctx.json {
        // The CLI's own summary, with each document as the server answered it.
        print_json(&json!({
            "uploaded": uploaded,
            "chunks": chunks,
            "skipped": skipped,
            "failed": failed,
            "documents": documents,
            "errors": errors,
        }))?;
    } else {
        println!(
            "Uploaded {} ({}), {skipped} skipped, {failed} failed",
            plural(uploaded, "document", "documents"),
            plural(chunks, "chunk", "chunks"),
        );
    }
    if failed > 0 {
        bail!("{failed} of {total} uploads failed");
    }
    Ok(())
}

async fn upload_one(
    client: &Client,
    pid: &str,
    endpoint: &str,
    file: &File,
) -> anyhow::Result<Uploaded> {
    let content = tokio::fs::read_to_string(&file.path)
        .await
        .map_err(|e| anyhow!("cannot read it as UTF-8 text: {e}"))?;
    let metadata = Map::from_iter([("path".to_owned(), Value::String(file.rel.clone()))]);
    let new = NewDocument {
        content,
        metadata: Some(metadata),
        ..Default::default()
    };
    let answer = client.post(endpoint, Auth::InProject(pid), &new).await?;
    let doc: Document = answer.decode()?;
    Ok(Uploaded {
        chunks: u64::try_from(doc.chunks_created).unwrap_or(0),
        json: answer.json,
    })
}

/// Adds `root` (a file, or a folder walked recursively) to `out`; oversized and empty files are
/// skipped with a warning.
fn collect(root: &Path, out: &mut Vec<File>, skipped: &mut u64) -> anyhow::Result<()> {
    let meta =
        std::fs::metadata(root).with_context(|| format!("cannot read {}", root.display()))?;
    if meta.is_dir() {
        walk(root, root, out, skipped)
    } else {
        // A named file keeps the path it was named by; an absolute one only its name, so no
        // local folder layout ends up in the metadata.
        let rel = if root.is_absolute() {
            root.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| root.display().to_string())
        } else {
            slash_path(root.strip_prefix(".").unwrap_or(root))
        };
        consider(root.to_path_buf(), rel, meta.len(), out, skipped);
        Ok(())
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<File>, skipped: &mut u64) -> anyhow::Result<()> {
    let mut entries = std::fs::read_dir(dir)
        .and_then(|rd| rd.collect::<Result<Vec<_>, _>>())
        .with_context(|| format!("cannot read {}", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        // Hidden files and folders (.git, .DS_Store) are not documentation.
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let path = entry.path();
        let file_type = entry
            .file_type()
            .with_context(|| format!("cannot read {}", path.display()))?;
        if file_type.is_dir() {
            walk(root, &path, out, skipped)?;
            continue;
        }
        // Follows a symlink to a file; a symlinked folder is not entered (no cycles).
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if !meta.is_file() || !has_text_extension(&path) {
            continue;
        }
        let rel = slash_path(path.strip_prefix(root).unwrap_or(&path));
        consider(path, rel, meta.len(), out, skipped);
    }
    Ok(())
}

fn consider(path: PathBuf, rel: String, len: u64, out: &mut Vec<File>, skipped: &mut u64) {
    if len > MAX_BYTES {
        eprintln!("warning: skipping {rel}: {len} bytes is over the {MAX_BYTES}-byte limit");
        *skipped += 1;
    } else if len == 0 {
        eprintln!("warning: skipping {rel}: the file is empty");
        *skipped += 1;
    } else {
        out.push(File { path, rel });
    }
}

fn has_text_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// `guides/setup.md` whatever the platform's separator.
fn slash_path(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A progress bar on stderr; hidden when stderr is not a terminal (pipes, CI, tests).
fn progress_bar(len: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {wide_msg}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_filtered_by_extension_and_paths_are_relative() {
        assert!(has_text_extension(Path::new("a/b/Guide.MD")));
        assert!(has_text_extension(Path::new("notes.rst")));
        assert!(!has_text_extension(Path::new("logo.png")));
        assert!(!has_text_extension(Path::new("Makefile")));
        assert_eq!(slash_path(Path::new("guides/setup.md")), "guides/setup.md");
    }
}
