//! The one place a domain error becomes HTTP: each kind of refusal gets its status, and every error
//! goes out as RFC 9457 problem details (`application/problem+json`) with its stable `code`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use shipmate_core::error::{AppError, Refusal};
use shipmate_types::common::Problem;

pub type ApiResult<T> = Result<T, ApiError>;

/// A domain error on its way out of a handler, an extractor or a middleware.
#[derive(Debug)]
pub struct ApiError(pub AppError);

/// Everything that becomes an `AppError` (sqlx, Redis, the domain's own) converts with `?`.
impl<E: Into<AppError>> From<E> for ApiError {
    fn from(e: E) -> Self {
        ApiError(e.into())
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::ops::Deref for ApiError {
    type Target = AppError;
    fn deref(&self) -> &AppError {
        &self.0
    }
}

pub fn status_of(refusal: Refusal) -> StatusCode {
    match refusal {
        Refusal::BadRequest => StatusCode::BAD_REQUEST,
        Refusal::Unauthorized => StatusCode::UNAUTHORIZED,
        Refusal::Forbidden => StatusCode::FORBIDDEN,
        Refusal::NotFound => StatusCode::NOT_FOUND,
        Refusal::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        Refusal::Conflict => StatusCode::CONFLICT,
        Refusal::Gone => StatusCode::GONE,
        Refusal::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        Refusal::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        Refusal::Invalid => StatusCode::UNPROCESSABLE_ENTITY,
    }
}

impl ApiError {
    pub fn status(&self) -> StatusCode {
        match &self.0 {
            AppError::Client { kind, .. } => status_of(*kind),
            AppError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Unavailable(_) | AppError::NotConfigured { .. } => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            AppError::Upstream(_) => StatusCode::BAD_GATEWAY,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl ApiError {
    /// The problem details the error is rendered as (also sent as a stream's `event: error`).
    pub fn problem(self) -> Problem {
        let status = self.status();
        let code = self.0.code().to_owned();
        let (detail, errors) = match self.0 {
            AppError::Client { detail, errors, .. } => (detail, errors),
            AppError::RateLimited { retry_after_secs } => (
                format!("too many requests; retry after {retry_after_secs} s"),
                Vec::new(),
            ),
            AppError::Unavailable(ref cause) => {
                tracing::warn!(cause = %cause, "dependency unavailable");
                (
                    "a dependency is unavailable; try again shortly".into(),
                    Vec::new(),
                )
            }
            AppError::NotConfigured { detail, .. } => (detail, Vec::new()),
            AppError::Upstream(ref cause) => {
                tracing::warn!(cause = %cause, "upstream failed");
                (format!("the chat provider failed: {cause}"), Vec::new())
            }
            AppError::Internal(ref e) => {
                tracing::error!(error = ?e, "internal error");
                ("internal error".into(), Vec::new())
            }
        };
        Problem {
            kind: "about:blank".into(),
            title: status.canonical_reason().unwrap_or("Error").into(),
            status: status.as_u16(),
            detail,
            code,
            errors,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let retry_after = match self.0 {
            AppError::RateLimited { retry_after_secs } => Some(retry_after_secs),
            _ => None,
        };
        let body = self.problem();
        let mut res = (status, axum::Json(body)).into_response();
        res.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let Some(secs) = retry_after {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        res
    }
}
