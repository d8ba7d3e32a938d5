//! What the workers derive from an event's own fields: path, external referrer host and UTM
//! parameters. The client's part (visitor hash, country, device, browser, OS) was derived by the
//! api before queueing (`visitor`) and is copied as it came.

use url::Url;

use super::events::IncomingEvent;
use super::visitor::Visitor;

/// What an event becomes once enriched.
#[derive(Debug, Clone, PartialEq)]
pub struct Enriched {
    pub path: Option<String>,
    pub referrer_host: Option<String>,
    pub utm_source: Option<String>,
    pub utm_medium: Option<String>,
    pub utm_campaign: Option<String>,
    pub device: String,
    pub browser: String,
    pub os: String,
    pub country: Option<String>,
    pub visitor: i64,
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

pub fn enrich(e: &IncomingEvent, visitor: &Visitor) -> Enriched {
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
        device: visitor.device.clone(),
        browser: visitor.browser.clone(),
        os: visitor.os.clone(),
        country: visitor.country.clone(),
        visitor: visitor.hash,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visitor(browser: &str) -> Visitor {
        Visitor {
            hash: 1,
            country: None,
            device: "desktop".into(),
            browser: browser.into(),
            os: "Linux".into(),
        }
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
            revenue: None,
        };
        let out = enrich(&e, &visitor("Chrome"));
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
        assert_eq!(enrich(&internal, &visitor("x")).referrer_host, None);
    }
}
