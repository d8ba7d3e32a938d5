//! What an analytics read asks for: a range of UTC days (a period ending today, or `from`..`to`),
//! filters on event dimensions (ANDed), and whether to compare with the range before. Every bad
//! value is reported at once; unknown parameters are ignored.

use std::collections::HashMap;

use chrono::{DateTime, Datelike, Duration, Months, NaiveDate, Utc};
use shipmate_types::analytics::Period;
use shipmate_types::common::FieldError;
use shipmate_types::StringEnum;

use super::days;
use shipmate_core::AppError;

/// A filterable dimension: its query parameter, and how a raw event row (`e`) is tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    Page,
    Referrer,
    Country,
    Device,
    Browser,
    Os,
    UtmSource,
    UtmMedium,
    UtmCampaign,
    Event,
}

impl Dim {
    pub const ALL: [Dim; 10] = [
        Dim::Page,
        Dim::Referrer,
        Dim::Country,
        Dim::Device,
        Dim::Browser,
        Dim::Os,
        Dim::UtmSource,
        Dim::UtmMedium,
        Dim::UtmCampaign,
        Dim::Event,
    ];

    pub fn param(self) -> &'static str {
        match self {
            Dim::Page => "page",
            Dim::Referrer => "referrer",
            Dim::Country => "country",
            Dim::Device => "device",
            Dim::Browser => "browser",
            Dim::Os => "os",
            Dim::UtmSource => "utm_source",
            Dim::UtmMedium => "utm_medium",
            Dim::UtmCampaign => "utm_campaign",
            Dim::Event => "event",
        }
    }

    /// The raw events' column. Device, browser and OS hold codes into `analytics_labels`.
    pub fn column(self) -> &'static str {
        match self {
            Dim::Page => "path",
            Dim::Referrer => "referrer_host",
            Dim::Country => "country",
            Dim::Device => "device",
            Dim::Browser => "browser",
            Dim::Os => "os",
            Dim::UtmSource => "utm_source",
            Dim::UtmMedium => "utm_medium",
            Dim::UtmCampaign => "utm_campaign",
            Dim::Event => "name",
        }
    }

    fn coded(self) -> bool {
        matches!(self, Dim::Device | Dim::Browser | Dim::Os)
    }

    /// The value as stored, or why it cannot be one.
    fn check(self, raw: &str) -> Result<String, String> {
        let v = raw.trim();
        if v.chars().count() > 2048 {
            return Err("must be at most 2048 characters".into());
        }
        if v.contains('\0') {
            return Err("must not contain the NUL character".into());
        }
        match self {
            Dim::Country if v.len() == 2 && v.chars().all(|c| c.is_ascii_alphabetic()) => {
                Ok(v.to_ascii_uppercase())
            }
            Dim::Country => Err("must be a two-letter country code (ISO 3166-1 alpha-2)".into()),
            Dim::Device => match v.to_ascii_lowercase().as_str() {
                d @ ("desktop" | "mobile" | "tablet") => Ok(d.to_owned()),
                _ => Err("must be one of: desktop, mobile, tablet".into()),
            },
            _ => Ok(v.to_owned()),
        }
    }
}

/// Exact values to match, all of them. One per dimension, but for a segment's filters combined with
/// other values of the same dimensions (`and`): then nothing matches, as AND says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters(pub Vec<(Dim, String)>);

impl Filters {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The condition on raw events `e`, its values bound from `$first` on, in order (see `values`).
    pub fn sql(&self, first: usize) -> String {
        self.0
            .iter()
            .enumerate()
            .map(|(i, (dim, _))| {
                let n = first + i;
                if dim.coded() {
                    format!(
                        " and e.{} = coalesce((select id from analytics_labels where label = ${n}), -1)",
                        dim.column()
                    )
                } else {
                    format!(" and e.{} = ${n}", dim.column())
                }
            })
            .collect()
    }

    pub fn values(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(_, v)| v.as_str())
    }

    /// These filters and `more`, each entry once.
    pub fn and(&mut self, more: &Filters) {
        for entry in &more.0 {
            if !self.0.contains(entry) {
                self.0.push(entry.clone());
            }
        }
    }

    /// Filters from `{"country": "DE", ...}` as a segment holds them: every problem as
    /// (`filters.<name>`, message), an unknown name too.
    pub fn from_object(
        object: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Filters, Vec<FieldError>> {
        let mut filters = Vec::new();
        let mut errors = Vec::new();
        let mut bad = |name: &str, message: String| {
            errors.push(FieldError {
                field: format!("filters.{name}"),
                message,
            })
        };
        for (name, value) in object {
            let Some(dim) = Dim::ALL.into_iter().find(|d| d.param() == name) else {
                let names: Vec<&str> = Dim::ALL.iter().map(|d| d.param()).collect();
                bad(
                    name,
                    format!("is not a filter; filters are: {}", names.join(", ")),
                );
                continue;
            };
            match value.as_str().map(str::trim).filter(|v| !v.is_empty()) {
                Some(raw) => match dim.check(raw) {
                    Ok(v) => filters.push((dim, v)),
                    Err(m) => bad(name, m),
                },
                None => bad(name, "must be a non-empty string".into()),
            }
        }
        match errors.is_empty() {
            true => Ok(Filters(filters)),
            false => Err(errors),
        }
    }

    /// `{"country": "DE", ...}`, as `from_object` reads it.
    pub fn to_object(&self) -> std::collections::BTreeMap<String, String> {
        self.0
            .iter()
            .map(|(d, v)| (d.param().to_owned(), v.clone()))
            .collect()
    }

    pub fn with(&self, dim: Dim, value: &str) -> Filters {
        let mut f = self.clone();
        f.0.retain(|(d, _)| *d != dim);
        f.0.push((dim, value.to_owned()));
        f
    }
}

/// The UTC days a read covers, both ends included, and the instant it stops at (the end of `end`,
/// or now when the range reaches today).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub period: Period,
    pub start: NaiveDate,
    pub end: NaiveDate,
}

impl Range {
    pub fn period(period: Period, now: DateTime<Utc>) -> Range {
        let today = now.date_naive();
        Range {
            period,
            start: today - Duration::days(period.days() - 1),
            end: today,
        }
    }

    pub fn days(&self) -> i64 {
        (self.end - self.start).num_days() + 1
    }

    pub fn from_ts(&self) -> DateTime<Utc> {
        days::bounds(self.start).0
    }

    /// The end of the last day, or now if earlier.
    pub fn until(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        days::bounds(self.end).1.min(now)
    }

    /// As many days, just before.
    pub fn previous(&self) -> Range {
        let days = Duration::days(self.days());
        Range {
            period: self.period,
            start: self.start - days,
            end: self.end - days,
        }
    }
}

/// A parsed read: its range, filters and comparison.
#[derive(Debug, Clone)]
pub struct ReadQuery {
    pub range: Range,
    pub filters: Filters,
    pub compare: bool,
}

/// Longest custom range.
const MAX_YEARS: u32 = 2;

impl ReadQuery {
    pub fn parse(q: &HashMap<String, String>, now: DateTime<Utc>) -> Result<Self, AppError> {
        let mut errors = Vec::new();
        let read = Self::read(q, now, &mut errors);
        if !errors.is_empty() {
            return Err(AppError::validation(errors));
        }
        Ok(read)
    }

    /// The read `q` asks for, every bad value added to `errors`.
    fn read(q: &HashMap<String, String>, now: DateTime<Utc>, errors: &mut Vec<FieldError>) -> Self {
        let mut bad = |field: &str, message: String| {
            errors.push(FieldError {
                field: field.into(),
                message,
            })
        };
        let given = |name: &str| q.get(name).map(|s| s.trim()).filter(|s| !s.is_empty());
        let period = match given("period").map(Period::parse) {
            None => Period::default(),
            Some(Some(p)) => p,
            Some(None) => {
                bad(
                    "period",
                    format!("must be one of: {}", Period::NAMES.join(", ")),
                );
                Period::default()
            }
        };
        let date = |name: &str| {
            given(name).map(|s| NaiveDate::parse_from_str(s, "%Y-%m-%d").map_err(|_| s.to_owned()))
        };
        let mut range = Range::period(period, now);
        match (date("from"), date("to")) {
            (None, None) if period == Period::Custom => {
                bad("from", "is required with period=custom".into());
                bad("to", "is required with period=custom".into());
            }
            (None, None) => {}
            (from, to) => {
                let mut day = |name: &str, d: Option<Result<NaiveDate, String>>| match d {
                    // Bounded, so that the range before (`compare`) and the end of the last day
                    // always exist.
                    Some(Ok(d)) if (1970..=9999).contains(&d.year()) => Some(d),
                    Some(_) => {
                        bad(
                            name,
                            "must be a date as YYYY-MM-DD, from 1970 to 9999".into(),
                        );
                        None
                    }
                    None => {
                        bad(
                            name,
                            "is required when the other end of the range is given".into(),
                        );
                        None
                    }
                };
                let (from, to) = (day("from", from), day("to", to));
                if let (Some(start), Some(end)) = (from, to) {
                    let longest = start
                        .checked_add_months(Months::new(12 * MAX_YEARS))
                        .map(|d| d - Duration::days(1));
                    if end < start {
                        bad("to", "must not be before from".into());
                    } else if longest.is_none_or(|l| end > l) {
                        bad("to", format!("the range must be at most {MAX_YEARS} years"));
                    } else {
                        range = Range {
                            period: Period::Custom,
                            start,
                            end,
                        };
                    }
                }
            }
        }
        let mut filters = Vec::new();
        for dim in Dim::ALL {
            if let Some(raw) = given(dim.param()) {
                match dim.check(raw) {
                    Ok(v) => filters.push((dim, v)),
                    Err(m) => bad(dim.param(), m),
                }
            }
        }
        let compare = match given("compare") {
            None => false,
            Some("previous") => true,
            Some(_) => {
                bad("compare", "must be previous".into());
                false
            }
        };
        ReadQuery {
            range,
            filters: Filters(filters),
            compare,
        }
    }

    /// The same read over the range before.
    pub fn previous(&self) -> ReadQuery {
        ReadQuery {
            range: self.range.previous(),
            ..self.clone()
        }
    }
}

/// A properties read: the read's range and filters, the event (required; it names the event whose
/// property is broken down, not a filter) and the property (required).
pub struct PropertyQuery {
    pub read: ReadQuery,
    pub event: String,
    pub property: String,
}

impl PropertyQuery {
    pub fn parse(q: &HashMap<String, String>, now: DateTime<Utc>) -> Result<Self, AppError> {
        let mut errors = Vec::new();
        let mut read = ReadQuery::read(q, now, &mut errors);
        let event = required(q, "event", 200, &mut errors);
        let property = required(q, "property", 200, &mut errors);
        if !errors.is_empty() {
            return Err(AppError::validation(errors));
        }
        read.filters.0.retain(|(d, _)| *d != Dim::Event);
        Ok(PropertyQuery {
            read,
            event,
            property,
        })
    }
}

/// A journeys read: the read's range and filters, and the page (required; it names the page whose
/// neighbours are counted, not a filter).
pub struct JourneyQuery {
    pub read: ReadQuery,
    pub page: String,
}

impl JourneyQuery {
    pub fn parse(q: &HashMap<String, String>, now: DateTime<Utc>) -> Result<Self, AppError> {
        let mut errors = Vec::new();
        let mut read = ReadQuery::read(q, now, &mut errors);
        let page = required(q, "page", 2048, &mut errors);
        if !errors.is_empty() {
            return Err(AppError::validation(errors));
        }
        read.filters.0.retain(|(d, _)| *d != Dim::Page);
        Ok(JourneyQuery { read, page })
    }
}

/// Parameter `name`, trimmed: required, at most `max` characters, no NUL.
fn required(
    q: &HashMap<String, String>,
    name: &str,
    max: usize,
    errors: &mut Vec<FieldError>,
) -> String {
    let message = match q.get(name).map(|s| s.trim()).filter(|s| !s.is_empty()) {
        None => "is required".to_owned(),
        Some(v) if v.contains('\0') || v.chars().count() > max => {
            format!("must be at most {max} characters, without NUL")
        }
        Some(v) => return v.to_owned(),
    };
    errors.push(FieldError {
        field: name.into(),
        message,
    });
    String::new()
}

/// `part` in percent of `whole`, to one decimal (0 when `whole` is 0).
pub fn percent(part: i64, whole: i64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 * 1000.0 / whole as f64).round() / 10.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(pairs: &[(&str, &str)]) -> Result<ReadQuery, AppError> {
        let q = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let now = "2026-03-10T12:00:00Z".parse().unwrap();
        ReadQuery::parse(&q, now)
    }

    fn fields(e: AppError) -> Vec<String> {
        match e {
            AppError::Client { errors, .. } => errors.into_iter().map(|e| e.field).collect(),
            _ => vec![],
        }
    }

    #[test]
    fn every_bad_field_is_listed() {
        let e = parse(&[
            ("device", "phone"),
            ("country", "USA"),
            ("from", "2026-02-01"),
            ("to", "2026-01-01"),
            ("compare", "last"),
            ("whatever", "x"),
        ])
        .unwrap_err();
        assert_eq!(fields(e), ["to", "country", "device", "compare"]);
    }

    #[test]
    fn ranges_of_two_years_at_most() {
        let ok = parse(&[("from", "2024-01-01"), ("to", "2025-12-31")]).unwrap();
        assert_eq!(ok.range.days(), 731);
        assert_eq!(ok.range.period, Period::Custom);
        let e = parse(&[("from", "2024-01-01"), ("to", "2026-01-01")]).unwrap_err();
        assert_eq!(fields(e), ["to"]);
        assert_eq!(
            fields(parse(&[("from", "2024-01-01")]).unwrap_err()),
            ["to"]
        );
    }

    #[test]
    fn periods_end_today_and_compare_with_the_days_before() {
        let q = parse(&[("period", "7d"), ("country", "de"), ("compare", "previous")]).unwrap();
        assert_eq!(q.range.start.to_string(), "2026-03-04");
        assert_eq!(q.range.end.to_string(), "2026-03-10");
        assert_eq!(q.previous().range.start.to_string(), "2026-02-25");
        assert_eq!(q.previous().range.end.to_string(), "2026-03-03");
        assert_eq!(q.filters.0, [(Dim::Country, "DE".to_owned())]);
        assert!(q.compare);
    }
}
