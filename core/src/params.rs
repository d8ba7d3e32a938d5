//! Path and query parameters: ids, enums, integers and pages, each refused with a clear 422 (or a
//! 404 for an id that cannot name anything).

use shipmate_types::StringEnum;

use crate::error::AppError;

/// Parses a path identifier; anything that is not a UUID names no resource.
pub fn parse_id(s: &str, what: &str) -> Result<uuid::Uuid, AppError> {
    uuid::Uuid::parse_str(s).map_err(|_| AppError::not_found(what))
}

/// An optional query parameter holding a string enum (absent or empty: `None`; unknown: 422).
pub fn query_enum<E: StringEnum>(
    q: &std::collections::HashMap<String, String>,
    field: &str,
) -> Result<Option<E>, AppError> {
    match q.get(field).map(|s| s.trim()).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(v) => E::parse(v).map(Some).ok_or_else(|| {
            AppError::invalid(
                "validation_failed",
                field,
                format!("must be one of: {}", E::NAMES.join(", ")),
            )
        }),
    }
}

/// An optional id query parameter (absent or empty: `None`; not a UUID: 422).
pub fn query_id(
    q: &std::collections::HashMap<String, String>,
    field: &str,
) -> Result<Option<uuid::Uuid>, AppError> {
    match q.get(field).map(|s| s.trim()).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(v) => uuid::Uuid::parse_str(v)
            .map(Some)
            .map_err(|_| AppError::invalid("validation_failed", field, "must be an id")),
    }
}

/// An optional integer query parameter in `min..=max` (absent or empty: `default`; else 422).
pub fn query_int(
    q: &std::collections::HashMap<String, String>,
    field: &str,
    default: i64,
    min: i64,
    max: i64,
) -> Result<i64, AppError> {
    match q.get(field).map(|s| s.trim()).filter(|s| !s.is_empty()) {
        None => Ok(default),
        Some(s) => match s.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(AppError::invalid(
                "validation_failed",
                field,
                format!("must be an integer from {min} to {max}"),
            )),
        },
    }
}

/// A page of a list: `page` (from 1) and `per_page` query parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paging {
    pub page: i64,
    pub per_page: i64,
}

impl Paging {
    /// Lists of feedback, testimonials and changelog entries: 50 a page by default, up to 100.
    pub fn parse(q: &std::collections::HashMap<String, String>) -> Result<Self, AppError> {
        Self::parse_with(q, 50, 100)
    }

    pub fn parse_with(
        q: &std::collections::HashMap<String, String>,
        default: i64,
        max: i64,
    ) -> Result<Self, AppError> {
        Ok(Paging {
            page: query_int(q, "page", 1, 1, 1_000_000)?,
            per_page: query_int(q, "per_page", default, 1, max)?,
        })
    }

    pub const fn first(per_page: i64) -> Self {
        Paging { page: 1, per_page }
    }

    pub fn offset(self) -> i64 {
        (self.page - 1) * self.per_page
    }

    pub fn wrap<T>(self, data: Vec<T>, total: i64) -> shipmate_types::common::Page<T> {
        shipmate_types::common::Page {
            data,
            page: self.page,
            per_page: self.per_page,
            total,
        }
    }
}

/// Parses the `project_id` query parameter of dashboard endpoints.
pub fn project_id_param(v: Option<&str>) -> Result<uuid::Uuid, AppError> {
    match v {
        None | Some("") => Err(AppError::invalid(
            "validation_failed",
            "project_id",
            "is required",
        )),
        Some(s) => uuid::Uuid::parse_str(s)
            .map_err(|_| AppError::invalid("validation_failed", "project_id", "must be a UUID")),
    }
}
