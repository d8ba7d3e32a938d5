//! What the api derives from a request's IP address and user agent before queueing it: the
//! visitor's daily hash, country, device, browser and OS, or that it is a bot. The raw values stay
//! in the request's memory: they never reach Redis, Postgres or a log (docs/privacy.md).

use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use uuid::Uuid;

use super::salts;
use shipmate_core::AppResult;

/// A request's client as queued: derived values only. Short keys: one rides in every queue entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Visitor {
    /// Keyed hash of the day's salt, project, IP and user agent (`visitor_hash`).
    #[serde(rename = "h")]
    pub hash: i64,
    /// ISO 3166-1 alpha-2, when the country database knows the address.
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    #[serde(rename = "d")]
    pub device: String,
    #[serde(rename = "b")]
    pub browser: String,
    #[serde(rename = "o")]
    pub os: String,
}

/// The visitor of one request on `salt`'s day; `None` for a bot (its events count as dropped).
pub fn derive(salt: &[u8], geo: &Geo, project_id: Uuid, ip: IpAddr, ua: &str) -> Option<Visitor> {
    let (device, browser, os) = user_agent(ua)?;
    Some(Visitor {
        hash: visitor_hash(salt, project_id, &ip.to_string(), ua),
        country: geo.country(ip),
        device: device.to_owned(),
        browser,
        os,
    })
}

/// Device, browser and OS from a user agent; `None` for bots and headless browsers.
pub fn user_agent(ua: &str) -> Option<(&'static str, String, String)> {
    let lower = ua.to_ascii_lowercase();
    const BOT_MARKS: &[&str] = &[
        "bot",
        "crawl",
        "spider",
        "slurp",
        "headless",
        "lighthouse",
        "curl/",
        "wget",
        "python-",
        "go-http",
        "java/",
        "phantomjs",
        "puppeteer",
        "playwright",
        "preview",
    ];
    if ua.trim().is_empty() || BOT_MARKS.iter().any(|m| lower.contains(m)) {
        return None;
    }
    let parsed = woothee::parser::Parser::new().parse(ua)?;
    if parsed.category == "crawler" {
        return None;
    }
    // woothee files iPads and Android tablets under smartphones.
    let device = if lower.contains("ipad")
        || lower.contains("tablet")
        || (lower.contains("android") && !lower.contains("mobile"))
    {
        "tablet"
    } else if matches!(parsed.category, "smartphone" | "mobilephone") {
        "mobile"
    } else {
        "desktop"
    };
    let name = |s: &str| {
        if s == woothee::woothee::VALUE_UNKNOWN {
            "Unknown".to_owned()
        } else {
            s.to_owned()
        }
    };
    Some((device, name(parsed.name), name(parsed.os)))
}

/// Country databases: MaxMind's GeoIP2 (`country.iso_code`) or the bundled one (`country_code`).
pub struct Geo {
    reader: Option<maxminddb::Reader<Vec<u8>>>,
}

#[derive(Deserialize)]
struct GeoRecord {
    country_code: Option<String>,
    country: Option<GeoCountry>,
}

#[derive(Deserialize)]
struct GeoCountry {
    iso_code: Option<String>,
}

impl Geo {
    /// Reads the whole database into memory once (a few MB); lookups then touch no file.
    pub fn open(path: Option<&Path>) -> Self {
        let reader = path.and_then(|p| match maxminddb::Reader::open_readfile(p) {
            Ok(r) => Some(r),
            Err(e) => {
                tracing::warn!(path = %p.display(), error = %e, "no country database; countries will be unknown");
                None
            }
        });
        Geo { reader }
    }

    pub fn country(&self, ip: IpAddr) -> Option<String> {
        let rec: GeoRecord = self.reader.as_ref()?.lookup(ip).ok()?;
        rec.country_code
            .or(rec.country.and_then(|c| c.iso_code))
            .map(|c| c.to_ascii_uppercase())
    }
}

/// A visitor for one day: a keyed hash of the day's salt, project, IP and user agent. Without the
/// salt (deleted once its day is over) nobody can tell which IP it was, nor link two days.
pub fn visitor_hash(salt: &[u8], project_id: Uuid, ip: &str, ua: &str) -> i64 {
    let mut h = Sha256::new();
    h.update(salt);
    h.update(project_id.as_bytes());
    h.update(ip.as_bytes());
    h.update([0]);
    h.update(ua.as_bytes());
    let digest = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(first)
}

/// The day a salt belongs to (UTC).
pub fn day_of(ts: DateTime<Utc>) -> NaiveDate {
    ts.date_naive()
}

/// The salt of the current day, kept in memory: it changes once a day, so Postgres is asked once
/// a day per process (every process gets the same row, so their hashes agree). The salt of a day
/// that ended is dropped from memory by the first request of the next day.
#[derive(Default)]
pub struct SaltCache {
    current: std::sync::Mutex<Option<(NaiveDate, Arc<[u8]>)>>,
    /// One fetch at a time: the first requests after midnight must not all query Postgres.
    fetching: tokio::sync::Mutex<()>,
}

impl SaltCache {
    pub async fn get(&self, db: &PgPool, day: NaiveDate) -> AppResult<Arc<[u8]>> {
        if let Some(salt) = self.cached(day) {
            return Ok(salt);
        }
        let _one = self.fetching.lock().await;
        if let Some(salt) = self.cached(day) {
            return Ok(salt);
        }
        let salt: Arc<[u8]> = salts::salt_for(db, day).await?.into();
        if let Ok(mut current) = self.current.lock() {
            *current = Some((day, salt.clone()));
        }
        Ok(salt)
    }

    fn cached(&self, day: NaiveDate) -> Option<Arc<[u8]>> {
        let current = self.current.lock().ok()?;
        current
            .as_ref()
            .filter(|(d, _)| *d == day)
            .map(|(_, s)| s.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    const IPAD: &str = "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
    const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

    #[test]
    fn devices_browsers_and_bots() {
        assert_eq!(user_agent(IPHONE).unwrap().0, "mobile");
        assert_eq!(user_agent(IPAD).unwrap().0, "tablet");
        let (device, browser, os) = user_agent(CHROME).unwrap();
        assert_eq!((device, browser.as_str()), ("desktop", "Chrome"));
        assert!(os.starts_with("Windows"));
        assert!(user_agent("Googlebot/2.1 (+http://www.google.com/bot.html)").is_none());
        assert!(user_agent(
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 HeadlessChrome/120.0 Safari/537.36"
        )
        .is_none());
        assert!(user_agent("").is_none());
    }

    #[test]
    fn visitor_hashes_change_with_the_salt() {
        let p = Uuid::nil();
        assert_eq!(
            visitor_hash(b"a", p, "1.2.3.4", "ua"),
            visitor_hash(b"a", p, "1.2.3.4", "ua")
        );
        assert_ne!(
            visitor_hash(b"a", p, "1.2.3.4", "ua"),
            visitor_hash(b"b", p, "1.2.3.4", "ua")
        );
        assert_ne!(
            visitor_hash(b"a", p, "1.2.3.4", "ua"),
            visitor_hash(b"a", p, "1.2.3.5", "ua")
        );
    }

    #[test]
    fn a_derived_visitor_carries_no_raw_value() {
        let ip: IpAddr = "81.2.69.142".parse().unwrap();
        let v = derive(b"salt", &Geo::open(None), Uuid::nil(), ip, CHROME).unwrap();
        assert_eq!(
            (v.device.as_str(), v.browser.as_str()),
            ("desktop", "Chrome")
        );
        let queued = serde_json::to_string(&v).unwrap();
        assert!(
            !queued.contains("81.2.69") && !queued.contains("Mozilla"),
            "{queued}"
        );
        assert_eq!(serde_json::from_str::<Visitor>(&queued).unwrap(), v);
        assert!(derive(b"salt", &Geo::open(None), Uuid::nil(), ip, "curl/8.0").is_none());
    }
}
