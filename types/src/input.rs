//! Parsing request bodies at the edge: a JSON object is read field by field into checked values,
//! collecting every problem so the client sees all of them in one 422.

use serde_json::{Map, Value};

use crate::common::FieldError;
use crate::StringEnum;
/// `#[derive(FromInput)]`: the reader written from the struct's own attributes (`shipmate-types-derive`).
pub use shipmate_types_derive::FromInput;

/// A body that breaks the rules: every wrong field, and the problem's `code` (`validation_failed`
/// unless the body says otherwise). The server answers it with one 422.
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub code: &'static str,
    pub errors: Vec<FieldError>,
}

impl Invalid {
    fn one(field: &str, message: &str) -> Self {
        Invalid {
            code: "validation_failed",
            errors: vec![FieldError {
                field: field.into(),
                message: message.into(),
            }],
        }
    }
}

/// A request body read from a JSON object. `read` takes every field, recording each problem in
/// the input, and yields the body when nothing required is missing; the caller turns the recorded
/// problems into one 422 (see `Input::parse`).
pub trait FromInput: Sized {
    fn read(input: &mut Input) -> Option<Self>;
}

pub struct Input {
    obj: Map<String, Value>,
    errors: Vec<FieldError>,
    /// The problem's `code` when a field is wrong (`validation_failed` unless a body says otherwise).
    code: &'static str,
}

impl Input {
    pub fn new(body: Value) -> Result<Self, Invalid> {
        match body {
            Value::Object(obj) => {
                // Postgres cannot store NUL in text or jsonb: refuse it here, or a queued write
                // would fail in the worker for good.
                let errors = obj
                    .iter()
                    .filter(|(k, v)| k.contains('\0') || has_nul(v))
                    .map(|(k, _)| FieldError {
                        field: k.clone(),
                        message: "must not contain the NUL character".into(),
                    })
                    .collect();
                Ok(Input {
                    obj,
                    errors,
                    code: "validation_failed",
                })
            }
            _ => Err(Invalid::one("body", "must be a JSON object")),
        }
    }

    /// Reads a whole body: every problem found becomes one 422.
    pub fn parse<T: FromInput>(mut self) -> Result<T, Invalid> {
        let body = T::read(&mut self);
        self.finish()?;
        body.ok_or_else(|| Invalid::one("body", "is incomplete"))
    }

    /// The body as it came, for parsers that take the whole shape themselves.
    pub fn into_value(self) -> Value {
        Value::Object(self.obj)
    }

    /// Answers a wrong field with this problem code instead of `validation_failed`.
    pub fn set_code(&mut self, code: &'static str) {
        self.code = code;
    }

    pub fn error(&mut self, field: &str, message: impl Into<String>) {
        self.errors.push(FieldError {
            field: field.into(),
            message: message.into(),
        });
    }

    pub fn has(&self, field: &str) -> bool {
        self.obj.get(field).is_some_and(|v| !v.is_null())
    }

    pub fn raw(&self, field: &str) -> Option<&Value> {
        self.obj.get(field).filter(|v| !v.is_null())
    }

    /// A required string, trimmed, between `min` and `max` characters.
    pub fn string(&mut self, field: &str, min: usize, max: usize) -> Option<String> {
        match self.opt_string(field, max) {
            Some(s) if s.chars().count() >= min => Some(s),
            Some(_) => {
                self.error(field, format!("must be at least {min} characters"));
                None
            }
            None if self.errors.iter().any(|e| e.field == field) => None,
            None => {
                self.error(field, "is required");
                None
            }
        }
    }

    /// A required UUID in its text form.
    pub fn uuid(&mut self, field: &str) -> Option<uuid::Uuid> {
        let raw = self.string(field, 1, 100)?;
        let id = uuid::Uuid::parse_str(&raw).ok();
        if id.is_none() {
            self.error(field, "must be a UUID");
        }
        id
    }

    /// An optional UUID: absent (or null) is `None`, anything else must be one.
    pub fn opt_uuid(&mut self, field: &str) -> Option<uuid::Uuid> {
        self.raw(field)?;
        self.uuid(field)
    }

    /// An optional string, trimmed; an empty string counts as absent.
    pub fn opt_string(&mut self, field: &str, max: usize) -> Option<String> {
        match self.raw(field) {
            None => None,
            Some(Value::String(s)) => {
                let s = s.trim();
                if s.is_empty() {
                    None
                } else if s.chars().count() > max {
                    self.error(field, format!("must be at most {max} characters"));
                    None
                } else {
                    Some(s.to_owned())
                }
            }
            Some(_) => {
                self.error(field, "must be a string");
                None
            }
        }
    }

    /// A required value out of `allowed`.
    pub fn one_of(&mut self, field: &str, allowed: &[&str]) -> Option<String> {
        let s = self.string(field, 1, 100)?;
        self.check_one_of(field, s, allowed)
    }

    pub fn opt_one_of(&mut self, field: &str, allowed: &[&str]) -> Option<String> {
        let s = self.opt_string(field, 100)?;
        self.check_one_of(field, s, allowed)
    }

    fn check_one_of(&mut self, field: &str, s: String, allowed: &[&str]) -> Option<String> {
        if allowed.contains(&s.as_str()) {
            Some(s)
        } else {
            self.error(field, format!("must be one of: {}", allowed.join(", ")));
            None
        }
    }

    /// A required value of a string enum.
    pub fn enum_value<E: StringEnum>(&mut self, field: &str) -> Option<E> {
        self.one_of(field, E::NAMES).and_then(|s| E::parse(&s))
    }

    pub fn opt_enum<E: StringEnum>(&mut self, field: &str) -> Option<E> {
        self.opt_one_of(field, E::NAMES).and_then(|s| E::parse(&s))
    }

    /// For partial updates: `read` only when the field is present (and not null).
    pub fn present<T>(
        &mut self,
        field: &str,
        read: impl FnOnce(&mut Self) -> Option<T>,
    ) -> Option<T> {
        if self.has(field) {
            read(self)
        } else {
            None
        }
    }

    pub fn email(&mut self, field: &str) -> Option<String> {
        let s = self.string(field, 1, 254)?;
        self.check_email(field, s)
    }

    pub fn opt_email(&mut self, field: &str) -> Option<String> {
        let s = self.opt_string(field, 254)?;
        self.check_email(field, s)
    }

    fn check_email(&mut self, field: &str, s: String) -> Option<String> {
        if is_email(&s) {
            Some(s)
        } else {
            self.error(field, "must be a valid email address");
            None
        }
    }

    /// A required password: taken as sent (never trimmed), `min` to 256 characters (10 for a new
    /// one; a sign-in takes whatever was typed).
    pub fn password(&mut self, field: &str, min: usize) -> Option<String> {
        match self.raw(field) {
            Some(Value::String(s)) if (min..=256).contains(&s.chars().count()) => Some(s.clone()),
            Some(Value::String(_)) => {
                self.error(field, format!("must be {min} to 256 characters"));
                None
            }
            Some(_) => {
                self.error(field, "must be a string");
                None
            }
            None => {
                self.error(field, "is required");
                None
            }
        }
    }

    /// An optional absolute `http(s)` URL.
    pub fn opt_http_url(&mut self, field: &str, max: usize) -> Option<String> {
        let s = self.opt_string(field, max)?;
        match url::Url::parse(&s) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => Some(s),
            _ => {
                self.error(field, "must be an http(s) URL");
                None
            }
        }
    }

    /// A required integer in `min..=max`; `4.0` counts as an integer, `4.5` does not.
    pub fn int(&mut self, field: &str, min: i64, max: i64) -> Option<i64> {
        if !self.has(field) {
            self.error(field, "is required");
            return None;
        }
        self.opt_int(field, min, max)
    }

    pub fn opt_int(&mut self, field: &str, min: i64, max: i64) -> Option<i64> {
        let v = self.raw(field)?;
        let n = match v {
            Value::Number(n) => n.as_i64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 1e15)
                    .map(|f| f as i64)
            }),
            _ => None,
        };
        match n {
            Some(n) if (min..=max).contains(&n) => Some(n),
            Some(_) => {
                self.error(field, format!("must be between {min} and {max}"));
                None
            }
            None => {
                self.error(field, "must be an integer");
                None
            }
        }
    }

    pub fn opt_bool(&mut self, field: &str) -> Option<bool> {
        match self.raw(field)? {
            Value::Bool(b) => Some(*b),
            _ => {
                self.error(field, "must be a boolean");
                None
            }
        }
    }

    /// An optional JSON object, at most `max_bytes` when serialised.
    pub fn opt_object(&mut self, field: &str, max_bytes: usize) -> Option<Map<String, Value>> {
        match self.raw(field)? {
            Value::Object(m) => {
                if serde_json::to_vec(m).map(|v| v.len()).unwrap_or(usize::MAX) > max_bytes {
                    self.error(field, format!("must be at most {max_bytes} bytes"));
                    None
                } else {
                    Some(m.clone())
                }
            }
            _ => {
                self.error(field, "must be an object");
                None
            }
        }
    }

    /// A field holding a list of distinct strings that each pass `valid` (at most 20).
    pub fn string_list(
        &mut self,
        field: &str,
        required: bool,
        valid: impl Fn(&str) -> bool,
        message: &str,
    ) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        match self.raw(field).cloned() {
            None if required => self.error(field, "is required"),
            None => {}
            Some(Value::Array(items)) => {
                for item in items {
                    match item.as_str().map(str::trim) {
                        Some(s) if valid(s) => {
                            if !out.iter().any(|o| o == s) {
                                out.push(s.to_owned());
                            }
                        }
                        _ => {
                            self.error(field, message);
                            return Vec::new();
                        }
                    }
                }
                if required && out.is_empty() {
                    self.error(field, "must name at least one");
                } else if out.len() > 20 {
                    self.error(field, "must have at most 20 entries");
                }
            }
            Some(_) => self.error(field, "must be an array of strings"),
        }
        out
    }

    /// Ends parsing: every problem found so far becomes one 422.
    pub fn finish(self) -> Result<(), Invalid> {
        if self.errors.is_empty() {
            return Ok(());
        }
        Err(Invalid {
            code: self.code,
            errors: self.errors,
        })
    }
}

fn has_nul(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains('\0'),
        Value::Array(a) => a.iter().any(has_nul),
        Value::Object(m) => m.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
        _ => false,
    }
}

/// A pragmatic address check: one `@`, a non-empty local part, a dotted domain, no spaces.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && !local.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn collects_every_field_error() {
        let mut i = Input::new(json!({"title": "  ", "rating": 7, "email": "nope"})).unwrap();
        assert!(i.string("title", 1, 10).is_none());
        assert!(i.int("rating", 1, 5).is_none());
        assert!(i.email("email").is_none());
        let Err(Invalid { errors, .. }) = i.finish() else {
            panic!("expected 422")
        };
        assert_eq!(errors.len(), 3);
    }

    #[test]
    fn integers_must_be_whole() {
        let mut i = Input::new(json!({"a": 4.0, "b": 4.5, "c": "4"})).unwrap();
        assert_eq!(i.int("a", 1, 5), Some(4));
        assert_eq!(i.int("b", 1, 5), None);
        assert_eq!(i.int("c", 1, 5), None);
    }

    #[test]
    fn emails() {
        assert!(is_email("a@b.co"));
        assert!(!is_email("a@b"));
        assert!(!is_email("a b@c.de"));
        assert!(!is_email("@c.de"));
    }
}
