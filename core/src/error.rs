//! One error type for the domain: what went wrong and its stable machine code. The api gives each
//! kind its HTTP status and renders it as RFC 9457 problem details, in one place (`api/src/problem.rs`).

pub type AppResult<T> = Result<T, AppError>;

pub use shipmate_types::common::{FieldError, Problem};

/// What a refused request did wrong, as the caller can act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    BadRequest,
    /// Not signed in, or the credential is unknown.
    Unauthorized,
    /// Signed in, but not allowed this.
    Forbidden,
    NotFound,
    MethodNotAllowed,
    Conflict,
    /// It existed once: an expired or used link.
    Gone,
    PayloadTooLarge,
    UnsupportedMediaType,
    /// The body was read, and fields in it break the rules.
    Invalid,
}

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// A client error with a stable machine code (`not_found`, `conflict`, ...).
    #[error("{detail}")]
    Client {
        kind: Refusal,
        code: &'static str,
        detail: String,
        errors: Vec<FieldError>,
    },
    #[error("rate limited")]
    RateLimited { retry_after_secs: u64 },
    /// A dependency (Postgres, Redis, an embedding provider) is down; nothing was accepted.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// A feature whose third-party service this instance has no settings for (`chat_not_configured`).
    #[error("{detail}")]
    NotConfigured { code: &'static str, detail: String },
    /// A third-party API (the chat provider) failed or did not answer in time (`upstream_failed`).
    #[error("upstream failed: {0}")]
    Upstream(String),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl AppError {
    pub fn client(kind: Refusal, code: &'static str, detail: impl Into<String>) -> Self {
        AppError::Client {
            kind,
            code,
            detail: detail.into(),
            errors: Vec::new(),
        }
    }
    pub fn not_found(what: &str) -> Self {
        Self::client(Refusal::NotFound, "not_found", format!("{what} not found"))
    }
    pub fn unauthorized(detail: impl Into<String>) -> Self {
        Self::client(Refusal::Unauthorized, "unauthorized", detail)
    }
    pub fn forbidden(detail: impl Into<String>) -> Self {
        Self::client(Refusal::Forbidden, "forbidden", detail)
    }
    pub fn conflict(code: &'static str, detail: impl Into<String>) -> Self {
        Self::client(Refusal::Conflict, code, detail)
    }
    /// 422 for one field, with a specific code (`invalid_status`, `unknown_model`, ...).
    pub fn invalid(code: &'static str, field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        AppError::Client {
            kind: Refusal::Invalid,
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
            kind: Refusal::Invalid,
            code: "validation_failed",
            detail,
            errors,
        }
    }
    pub fn payload_too_large(detail: impl Into<String>) -> Self {
        Self::client(Refusal::PayloadTooLarge, "payload_too_large", detail)
    }

    /// A client error's kind; None for the rest (rate limits, dependencies down, internal).
    pub fn refusal(&self) -> Option<Refusal> {
        match self {
            AppError::Client { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            AppError::Client { code, .. } => code,
            AppError::RateLimited { .. } => "rate_limited",
            AppError::Unavailable(_) => "unavailable",
            AppError::NotConfigured { code, .. } => code,
            AppError::Upstream(_) => "upstream_failed",
            AppError::Internal(_) => "internal",
        }
    }
}

/// A body that broke its rules: one 422 listing every wrong field.
impl From<shipmate_types::input::Invalid> for AppError {
    fn from(e: shipmate_types::input::Invalid) -> Self {
        let mut err = AppError::validation(e.errors);
        if let AppError::Client { code, .. } = &mut err {
            *code = e.code;
        }
        err
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
