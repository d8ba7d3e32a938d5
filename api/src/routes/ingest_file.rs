//! Reading a file upload's multipart form into a document: the file's kind by its name, its text
//! (PDFs extracted), and the optional `metadata` and `external_id` fields. The file's name goes
//! into the metadata as `filename` (unless the metadata sets one), so listings and search results
//! say which file a document came from.

use axum::extract::multipart::{Field, MultipartError};
use axum::extract::Multipart;
use axum::http::StatusCode;
use serde_json::Value;
use shipmate_core::error::FieldError;
use shipmate_core::error::Refusal;
use shipmate_core::AppError;
use shipmate_kb::content::{self, FileKind, PdfError};
use shipmate_kb::MAX_FILE_BYTES;
use shipmate_types::kb::MAX_DOCUMENT_BYTES;
use shipmate_types::ContentType;

use super::ingest_item::{path_external_id, sorted_ids, too_large, Item};
use crate::problem::{ApiError, ApiResult};

/// The form's fields as sent.
#[derive(Default)]
struct Form {
    file: Option<(String, Option<String>, Vec<u8>)>,
    metadata: Option<String>,
    external_id: Option<String>,
    feedback_ids: Option<String>,
}

/// Reads the form and the file's text. Fields other than `file`, `metadata`, `external_id` and
/// `feedback_ids` are ignored, as unknown JSON fields are.
pub(super) async fn read(mut multipart: Multipart) -> ApiResult<Item> {
    let mut form = Form::default();
    while let Some(field) = multipart.next_field().await.map_err(bad_form)? {
        match field.name() {
            Some("file") => {
                let name = field.file_name().unwrap_or_default().to_owned();
                let mime = field.content_type().map(str::to_owned);
                form.file = Some((name, mime, bytes(field).await?));
            }
            Some("metadata") => form.metadata = Some(field.text().await.map_err(bad_form)?),
            Some("external_id") => form.external_id = Some(field.text().await.map_err(bad_form)?),
            Some("feedback_ids") => form.feedback_ids = Some(field.text().await.map_err(bad_form)?),
            _ => {}
        }
    }
    let mut metadata = match form.metadata.as_deref().map(str::trim) {
        None | Some("") => Default::default(),
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) if text.len() <= 16_384 => m,
            _ => {
                return Err(ApiError::from(AppError::invalid(
                    "validation_failed",
                    "metadata",
                    "must be a JSON object of at most 16,384 bytes",
                )))
            }
        },
    };
    let external_id = form
        .external_id
        .as_deref()
        .map(path_external_id)
        .transpose()?;
    let Some((name, mime, bytes)) = form.file else {
        return Err(ApiError::from(AppError::invalid(
            "validation_failed",
            "file",
            "is required",
        )));
    };
    let (text, kind) = text_of(&name, mime.as_deref(), bytes).await?;
    if let Some(filename) = base_name(&name) {
        metadata
            .entry("filename")
            .or_insert_with(|| Value::String(filename));
    }
    Ok(Item {
        text,
        kind,
        metadata,
        external_id,
        feedback_ids: feedback_ids(form.feedback_ids.as_deref())?,
        path: String::new(),
    })
}

/// The part's file name without any folders a client put in it (at most 255 characters), or
/// `None` when it sent none.
fn base_name(name: &str) -> Option<String> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or_default().trim();
    (!base.is_empty()).then(|| base.chars().take(255).collect())
}

/// The field's bytes, refusing more than 10 MB.
async fn bytes(mut field: Field<'_>) -> ApiResult<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(chunk) = field.chunk().await.map_err(bad_form)? {
        if out.len() + chunk.len() > MAX_FILE_BYTES {
            return Err(ApiError::from(file_too_large()));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// 422 `no_text`: nothing to index in the PDF.
fn no_text(e: PdfError) -> AppError {
    let detail = match e {
        PdfError::NoText => "the PDF has no extractable text (scanned pages or images only?): run it through OCR, or upload its text".to_owned(),
        PdfError::Unreadable(why) => format!("no text could be read from the PDF: {why}"),
    };
    AppError::Client {
        kind: Refusal::Invalid,
        code: "no_text",
        errors: vec![FieldError {
            field: "file".into(),
            message: detail.clone(),
        }],
        detail,
    }
}

fn file_too_large() -> AppError {
    AppError::payload_too_large(format!("the file is over {MAX_FILE_BYTES} bytes (10 MB)"))
}

fn bad_form(e: MultipartError) -> AppError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        file_too_large()
    } else {
        AppError::client(
            Refusal::BadRequest,
            "malformed_multipart",
            format!("could not read the multipart form: {e}"),
        )
    }
}

/// The file's kind by its name's extension, else by the part's declared type.
fn kind_of(name: &str, mime: Option<&str>) -> Option<FileKind> {
    content::file_kind(name).or_else(|| {
        let mime = mime?.split(';').next()?.trim().to_ascii_lowercase();
        Some(match mime.as_str() {
            "application/pdf" => FileKind::Pdf,
            m => FileKind::Text(ContentType::parse(m)?),
        })
    })
}

/// The file's text and how to read it: UTF-8 text as it is, PDF text extracted.
async fn text_of(
    name: &str,
    mime: Option<&str>,
    bytes: Vec<u8>,
) -> ApiResult<(String, ContentType)> {
    let kind = kind_of(name, mime).ok_or_else(|| {
        AppError::client(
            Refusal::UnsupportedMediaType,
            "unsupported_media_type",
            format!("`{name}` is not a file type the knowledge base takes: send .md, .markdown, .txt, .html, .htm or .pdf"),
        )
    })?;
    let (text, kind) = match kind {
        FileKind::Text(kind) => {
            let text = String::from_utf8(bytes).map_err(|_| {
                AppError::invalid("validation_failed", "file", "must be UTF-8 text")
            })?;
            (text.trim_start_matches('\u{feff}').to_owned(), kind)
        }
        FileKind::Pdf => {
            let text = tokio::task::spawn_blocking(move || content::pdf_text(&bytes))
                .await
                .map_err(|e| AppError::Internal(e.into()))?
                .map_err(no_text)?;
            (text, ContentType::Plain)
        }
    };
    // HTML's limit applies to its visible text, checked once it is converted.
    if kind != ContentType::Html && text.len() > MAX_DOCUMENT_BYTES {
        return Err(ApiError::from(too_large("file ", text.len())));
    }
    Ok((text, kind))
}

/// The `feedback_ids` field: ids separated by commas, or a JSON array of them.
fn feedback_ids(field: Option<&str>) -> ApiResult<Vec<uuid::Uuid>> {
    let text = field.map(str::trim).unwrap_or_default();
    let listed: Option<Vec<String>> = match text.starts_with('[') {
        true => serde_json::from_str(text).ok(),
        false => Some(
            text.split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect(),
        ),
    };
    let ids: Option<Vec<uuid::Uuid>> = listed.and_then(|l| {
        l.iter()
            .map(|s| uuid::Uuid::parse_str(s.trim()).ok())
            .collect()
    });
    match ids {
        Some(ids) => Ok(sorted_ids(Some(ids))),
        None => Err(ApiError::from(AppError::invalid(
            "validation_failed",
            "feedback_ids",
            "must be ids of feedback entries, separated by commas or as a JSON array",
        ))),
    }
}
