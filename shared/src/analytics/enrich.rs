//! Derives what is stored from what arrived: path, referrer host, device, browser, OS, country and
//! a visitor hash that rotates daily, as Plausible does. Bots are recognised and dropped.

use std::net::IpAddr;
use std::path::Path;

use chrono::NaiveDate;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use url::Url;

use super::events::IncomingEvent;

/// What an event becomes once enriched (IP and user agent are gone).
#[derive(Debug, Clone, PartialEq)]
pub struct Enriched {
    pub path: Option<String>,
    pub referrer_host: Option<String>,
    pub utm_source: Option<String>,
    pub utm_medium: Option<String>,
    pub utm_campaign: Option<String>,
    pub device: &'static str,
    pub browser: String,
    pub os: String,
    pub country: Option<String>,
    pub visitor: i64,
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
/// salt (deleted after 48 h) nobody can tell which IP it was, nor link two days.
pub fn visitor_hash(salt: &[u8], project_id: uuid::Uuid, ip: &str, ua: &str) -> i64 {
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

/// Path of the URL without query or fragment, and the URL's own UTM parameters as a fallback.
pub fn page(url: Option<&str>) -> (Option<String>, Option<Url>) {
    let parsed = url.and_then(|u| Url::parse(u).ok());
    let path = match (&parsed, url) {
        (Some(u), _) => Some(u.path().to_owned()),
        (None, Some(raw)) if raw.starts_with('/') => {
            Some(raw.split(['?', '#']).next().unwrap_or("/").to_owned())
        }
        _ => None,
    };
    (path, parsed)
}

pub fn enrich(
    e: &IncomingEvent,
    ua: (&'static str, String, String),
    country: Option<String>,
    visitor: i64,
) -> Enriched {
    let (path, page_url) = page(e.url.as_deref());
    let utm = |field: &Option<String>, key: &str| {
        field.clone().or_else(|| {
            page_url.as_ref().and_then(|u| {
                u.query_pairs()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| v.into_owned())
            })
        })
    };
    // Only external referrers count: navigation within the site is not a source.
    let own_host = page_url
        .as_ref()
        .and_then(|u| u.host_str().map(str::to_owned));
    let referrer_host = e
        .referrer
        .as_deref()
        .and_then(|r| Url::parse(r).ok())
        .and_then(|u| {
            u.host_str()
                .map(|h| h.trim_start_matches("www.").to_owned())
        })
        .filter(|h| own_host.as_deref().map(|o| o.trim_start_matches("www.")) != Some(h.as_str()));
    Enriched {
        path,
        referrer_host,
        utm_source: utm(&e.utm_source, "utm_source"),
        utm_medium: utm(&e.utm_medium, "utm_medium"),
        utm_campaign: utm(&e.utm_campaign, "utm_campaign"),
        device: ua.0,
        browser: ua.1,
        os: ua.2,
        country,
        visitor,
    }
}

/// The day a salt belongs to.
pub fn day_of(ts: chrono::DateTime<chrono::Utc>) -> NaiveDate {
    ts.date_naive()
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
    fn pages_referrers_and_utm() {
        let e = IncomingEvent {
            name: "page_view".into(),
            url: Some("https://shop.example/pricing?utm_source=hn&x=1#top".into()),
            referrer: Some("https://news.ycombinator.com/item?id=1".into()),
            utm_source: None,
            utm_medium: Some("social".into()),
            utm_campaign: None,
            screen_width: None,
            properties: None,
        };
        let out = enrich(&e, ("desktop", "Chrome".into(), "Linux".into()), None, 1);
        assert_eq!(out.path.as_deref(), Some("/pricing"));
        assert_eq!(out.referrer_host.as_deref(), Some("news.ycombinator.com"));
        assert_eq!(
            (out.utm_source.as_deref(), out.utm_medium.as_deref()),
            (Some("hn"), Some("social"))
        );
        let internal = IncomingEvent {
            referrer: Some("https://shop.example/".into()),
            ..e
        };
        assert_eq!(
            enrich(&internal, ("desktop", "x".into(), "y".into()), None, 1).referrer_host,
            None
        );
    }

    #[test]
    fn visitor_hashes_change_with_the_salt() {
        let p = uuid::Uuid::nil();
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
}
