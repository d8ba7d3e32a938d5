//! `shipmate kb upload`: files and folders to documents, upserted by external id, a few uploads
//! in flight at once. Markdown, text and HTML go as JSON to the upsert endpoint; PDFs as files
//! (multipart) to the file endpoint, since only the server extracts their text.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use futures::stream::{self, StreamExt};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Map, Value};

use crate::cli::UploadArgs;
use crate::client::{Auth, Client};
use crate::commands::{project_id, seg};
use crate::ctx::Ctx;
use crate::multipart::Multipart;
use crate::output::{plural, print_json};

/// The API's limit on a document's text (bytes).
const MAX_TEXT_BYTES: u64 = 102_400;
/// The API's limit on an uploaded file (HTML and PDF: the limit holds on their extracted text).
const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
const TAKEN: &str = ".md, .txt, .html or .pdf";

/// What a file holds, from its extension.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Markdown,
    Text,
    Html,
    Pdf,
}

impl Kind {
    fn of(path: &Path) -> Option<Kind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "md" | "markdown" => Kind::Markdown,
            "txt" => Kind::Text,
            "html" | "htm" => Kind::Html,
            "pdf" => Kind::Pdf,
            _ => return None,
        })
    }

    fn content_type(self) -> &'static str {
        match self {
            Kind::Markdown => "text/markdown",
            Kind::Text => "text/plain",
            Kind::Html => "text/html",
            Kind::Pdf => "application/pdf",
        }
    }

    fn max_bytes(self) -> u64 {
        match self {
            Kind::Markdown | Kind::Text => MAX_TEXT_BYTES,
            Kind::Html | Kind::Pdf => MAX_FILE_BYTES,
        }
    }
}

struct File {
    path: PathBuf,
    kind: Kind,
    /// Stored as the document's `metadata.path`, and its external id unless --external-id.
    rel: String,
}

struct Outcome {
    rel: String,
    external_id: String,
    result: anyhow::Result<Uploaded>,
}

struct Uploaded {
    chunks: u64,
    reused: u64,
    /// The document as the server answered, for `--json`.
    json: Value,
}

/// What every upload of one run shares.
struct Target<'a> {
    client: &'a Client,
    pid: &'a str,
    /// `/v1/indexes/<id>/documents`.
    base: String,
    metadata: Option<&'a Map<String, Value>>,
}

pub async fn run(ctx: &Ctx, args: UploadArgs) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &args.project.project).await?;
    let index = super::index_id(&ctx.client, &pid, &args.index).await?;
    let mut files = Vec::new();
    let mut skipped = 0u64;
    for root in &args.paths {
        collect(root, &mut files, &mut skipped)?;
    }
    if let Some(id) = &args.external_id {
        if files.len() != 1 {
            bail!("--external-id names one document, and {} files were found; without it each file's external id is its relative path", files.len());
        }
        if id.trim().is_empty() || id.chars().count() > 256 {
            bail!("--external-id must be 1 to 256 characters");
        }
    }
    if files.is_empty() && skipped == 0 {
        eprintln!("warning: no files to upload (folders are searched for {TAKEN} files)");
    }

    let total = files.len();
    let bar = progress_bar(total as u64);
    let target = Target {
        client: &ctx.client,
        pid: &pid,
        base: format!("/v1/indexes/{}/documents", seg(&index)),
        metadata: args.metadata.as_ref(),
    };
    let (target, bar_ref, chosen_id) = (&target, &bar, args.external_id.as_deref());
    let outcomes: Vec<Outcome> = stream::iter(files)
        .map(move |file| async move {
            bar_ref.set_message(file.rel.clone());
            let external_id = chosen_id.unwrap_or(&file.rel).to_owned();
            let result = upload_one(target, &file, &external_id).await;
            if let Err(e) = &result {
                bar_ref.suspend(|| eprintln!("failed: {}: {e:#}", file.rel));
            }
            bar_ref.inc(1);
            Outcome {
                rel: file.rel,
                external_id,
                result,
            }
        })
        .buffer_unordered(usize::from(args.concurrency))
        .collect()
        .await;
    bar.finish_and_clear();

    let (mut uploaded, mut chunks, mut reused) = (0u64, 0u64, 0u64);
    let mut documents = Vec::new();
    let mut errors = Vec::new();
    for o in outcomes {
        match o.result {
            Ok(doc) => {
                uploaded += 1;
                chunks += doc.chunks;
                reused += doc.reused;
                documents.push(
                    json!({ "path": o.rel, "external_id": o.external_id, "document": doc.json }),
                );
            }
            Err(e) => errors.push(json!({ "path": o.rel, "error": format!("{e:#}") })),
        }
    }
    let failed = errors.len();
    let waited = match args.wait {
        true => Some(super::status::until_done(&ctx.client, &pid, &index).await?),
        false => None,
    };
    if ctx.json {
        // The CLI's own summary, with each document as the server answered it.
        print_json(&json!({
            "uploaded": uploaded,
            "chunks": chunks,
            "chunks_reused": reused,
            "skipped": skipped,
            "failed": failed,
            "documents": documents,
            "errors": errors,
            "index": waited,
        }))?;
    } else {
        println!(
            "Uploaded {} ({}, {reused} reused), {skipped} skipped, {failed} failed",
            plural(uploaded, "document", "documents"),
            plural(chunks, "chunk", "chunks"),
        );
        if let Some(index) = &waited {
            println!("{}", super::status::line(index));
        }
    }
    if failed > 0 {
        bail!("{failed} of {total} uploads failed");
    }
    if let Some(index) = waited {
        super::status::no_failures(&index)?;
    }
    Ok(())
}

async fn upload_one(
    target: &Target<'_>,
    file: &File,
    external_id: &str,
) -> anyhow::Result<Uploaded> {
    let mut metadata = Map::from_iter([("path".to_owned(), Value::String(file.rel.clone()))]);
    if let Some(extra) = target.metadata {
        metadata.extend(extra.clone());
    }
    let auth = Auth::InProject(target.pid);
    let answer = if file.kind == Kind::Pdf {
        let bytes = tokio::fs::read(&file.path)
            .await
            .map_err(|e| anyhow!("cannot read it: {e}"))?;
        let name = file
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let form = Multipart::new()
            .text("external_id", external_id)
            .text("metadata", &Value::Object(metadata).to_string())
            .file("file", &name, file.kind.content_type(), &bytes);
        let (content_type, body) = form.finish();
        target
            .client
            .post_raw(&format!("{}/file", target.base), auth, &content_type, body)
            .await?
    } else {
        let content = tokio::fs::read_to_string(&file.path)
            .await
            .map_err(|e| anyhow!("cannot read it as UTF-8 text: {e}"))?;
        let body = json!({
            "content": content,
            "content_type": file.kind.content_type(),
            "metadata": metadata,
        });
        let path = format!("{}/by-external-id/{}", target.base, seg(external_id));
        target.client.put(&path, auth, &body).await?
    };
    let count = |k: &str| answer.json[k].as_u64().unwrap_or(0);
    Ok(Uploaded {
        chunks: count("chunks_created"),
        reused: count("chunks_reused"),
        json: answer.json,
    })
}

/// Adds `root` (a file, or a folder walked recursively) to `out`; oversized, empty and (in
/// folders) unsupported files are skipped with a note.
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
        // A file named explicitly is taken whatever its name: as plain text if not one of ours.
        let kind = Kind::of(root).unwrap_or(Kind::Text);
        consider(root.to_path_buf(), kind, rel, meta.len(), out, skipped);
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
        if !meta.is_file() {
            continue;
        }
        let rel = slash_path(path.strip_prefix(root).unwrap_or(&path));
        match Kind::of(&path) {
            Some(kind) => consider(path, kind, rel, meta.len(), out, skipped),
            None => {
                eprintln!("note: skipping {rel}: not a {TAKEN} file");
                *skipped += 1;
            }
        }
    }
    Ok(())
}

fn consider(
    path: PathBuf,
    kind: Kind,
    rel: String,
    len: u64,
    out: &mut Vec<File>,
    skipped: &mut u64,
) {
    let max = kind.max_bytes();
    if len > max {
        eprintln!("warning: skipping {rel}: {len} bytes is over the {max}-byte limit");
        *skipped += 1;
    } else if len == 0 {
        eprintln!("warning: skipping {rel}: the file is empty");
        *skipped += 1;
    } else {
        out.push(File { path, kind, rel });
    }
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
    fn files_are_typed_by_extension_and_paths_are_relative() {
        assert_eq!(Kind::of(Path::new("a/b/Guide.MD")), Some(Kind::Markdown));
        assert_eq!(Kind::of(Path::new("page.htm")), Some(Kind::Html));
        assert_eq!(Kind::of(Path::new("manual.pdf")), Some(Kind::Pdf));
        assert_eq!(Kind::of(Path::new("logo.png")), None);
        assert_eq!(Kind::of(Path::new("Makefile")), None);
        assert_eq!(slash_path(Path::new("guides/setup.md")), "guides/setup.md");
    }

    #[test]
    fn a_multipart_body_has_each_part_between_boundaries() {
        let (ct, body) = Multipart::new()
            .text("external_id", "a.pdf")
            .file("file", "a\"b.pdf", "application/pdf", b"%PDF")
            .finish();
        let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap();
        let text = String::from_utf8(body).unwrap();
        assert_eq!(
            text,
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"external_id\"\r\n\r\na.pdf\r\n\
                 --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a_b.pdf\"\r\n\
                 Content-Type: application/pdf\r\n\r\n%PDF\r\n--{boundary}--\r\n"
            )
        );
    }
}
