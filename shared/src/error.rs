//! One error type for the whole service, rendered as RFC 9457 problem details.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

pub type AppResult<T> = Result<T, AppError>;

pub use shipmate_types::common::{FieldError, Problem};

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A client error with a stable machine code (`not_found`, `conflict`, ...).
    #[error("{detail}")]
    Client {
        status: StatusCode,
        code: &'static str,
        detail: String,
        errors: Vec<FieldError>,
    },
    #[error("rate limited")]
    RateLimited { retry_after_secs: u64 },
    /// A dependency (Postgres, Redis, an embedding provider) is down; nothing was accepted.
    #[error("unavailable: {0}")]
    Unavailable(String),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl AppError {
    pub fn client(status: StatusCode, code: &'static str, detail: impl Into<String>) -> Self {
        AppError::Client {
            status,
            code,
            detail: detail.into(),
            errors: Vec::new(),
        }
    }
    pub fn not_found(what: &str) -> Self {
        Self::client(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("{what} not found"),
        )
    }
    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::client(StatusCode::UNAUTHORIZED, "unauthorized", detail)
    }
    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::client(StatusCode::FORBIDDEN, "forbidden", detail)
    }
    pub fn conflict(code: &'static str, detail: impl Into<String>) -> Self {
        Self::client(StatusCode::CONFLICT, code, detail)
    }
    /// 422 for one field, with a specific code (`invalid_status`, `unknown_model`, ...).
    pub fn invalid(code: &'static str, field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        AppError::Client {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code,
            detail: format!("{field} {message}"),
            errors: vec![FieldError {
                field: field.into(),
                message,
            }],
        }
    }
    pub fn validation(errors: Vec<FieldError>) -> Self {
        let detail = errors
            .iter()
            .map(|e| format!("{} {}", e.field, e.message))
            .collect::<Vec<_>>()
            .join("; ");
        AppError::Client {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: "validation_failed",
            detail,
            errors,
        }
    }
    pub fn payload_too_large(detail: impl Into<String>) -> Self {
        Self::client(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large", detail)
    }

    pub fn status(&self) -> StatusCode {
        match self {
            AppError::Client { status, .. } => *status,
            AppError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            AppError::Client { code, .. } => code,
            AppError::RateLimited { .. } => "rate_limited",
            AppError::Unavailable(_) => "unavailable",
            AppError::Internal(_) => "internal",
        }
    }
}

/// Unique violations become 409s; a lost connection becomes 503; the rest is an opaque 500.
impl From<sqlx::Error> for AppError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                AppError::conflict("conflict", "a resource with these values already exists")
            }
            sqlx::Error::PoolTimedOut
            | sqlx::Error::Io(_)
            | sqlx::Error::PoolClosed
            | sqlx::Error::Tls(_) => AppError::Unavailable(format!("database: {e}")),
            _ => AppError::Internal(anyhow::Error::new(e).context("database")),
        }
    }
}

impl From<redis::RedisError> for AppError {
    fn from(e: redis::RedisError) -> Self {
        AppError::Unavailable(format!("redis: {e}"))
    }
}

/// Maps a unique violation of `constraint` to a 409 with the given code and detail.
pub fn on_constraint(
    constraint: &str,
    code: &'static str,
    detail: &str,
) -> impl FnOnce(sqlx::Error) -> AppError {
    let constraint = constraint.to_owned();
    let detail = detail.to_owned();
    move |e| match &e {
        sqlx::Error::Database(db) if db.constraint() == Some(constraint.as_str()) => {
            AppError::conflict(code, detail)
        }
        _ => e.into(),
    }
}

impl IntoResponse for AppError {
    fn into_response(mut self) -> Response {
        let status = self.status();
        let detail = match &self {
            AppError::Client { detail, .. } => detail.clone(),
            AppError::RateLimited { retry_after_secs } => {
                format!("too many requests; retry after {retry_after_secs} s")
            }
            AppError::Unavailable(cause) => {
                tracing::warn!(cause = %cause, "dependency unavailable");
                "a dependency is unavailable; try again shortly".into()
            }
            AppError::Internal(e) => {
                tracing::error!(error = ?e, "internal error");
                "internal error".into()
            }
        };
        let code = self.code().to_owned();
        let errors = match self {
            AppError::Client { ref mut errors, .. } => std::mem::take(errors),
            _ => Vec::new(),
        };
        let body = Problem {
            kind: "about:blank".into(),
            title: status.canonical_reason().unwrap_or("Error").into(),
            status: status.as_u16(),
            detail,
            code,
            errors,
        };
        let mut res = (status, axum::Json(body)).into_response();
        res.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        if let AppError::RateLimited { retry_after_secs } = self {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
        }
        res
    }
}
