//! Where webhooks may go: `http(s)` only, and never to loopback, private, link-local or unique-local
//! addresses, nor IPv6 prefixes that translate to IPv4 (NAT64, 6to4) (SSRF), checked when a webhook
//! is saved and again, through the HTTP client's own resolver, at every delivery, so a name that
//! later resolves inward is still refused. Deliveries never go through a proxy from the environment.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

use shipmate_core::{AppError, AppResult};

/// Whether a webhook may reach this address.
pub fn public_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || a == 0
                // Carrier-grade NAT (100.64.0.0/10) is as internal as a private range.
                || (a == 100 && (64..128).contains(&b)))
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return public_address(IpAddr::V4(v4));
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (first & 0xffc0) == 0xfe80 // link local fe80::/10
                // Both carry an IPv4 address a gateway connects to, private ones included:
                // NAT64 64:ff9b::/96 and 6to4 2002::/16.
                || v6.segments()[..6] == [0x64, 0xff9b, 0, 0, 0, 0]
                || first == 0x2002)
        }
    }
}

fn not_allowed(detail: impl Into<String>) -> AppError {
    AppError::invalid("url_not_allowed", "url", detail)
}

/// Checks a webhook URL as it is saved: scheme, host, and the addresses its name resolves to now.
pub async fn check_url(raw: &str, allowed: &(dyn Fn(&str) -> bool + Sync)) -> AppResult<Url> {
    let url = Url::parse(raw).map_err(|_| not_allowed("must be an absolute http(s) URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(not_allowed("must be an http or https URL"));
    }
    let host = url.host().ok_or_else(|| not_allowed("must name a host"))?;
    let name = url.host_str().unwrap_or_default().to_owned();
    if allowed(&name) {
        return Ok(url);
    }
    // The refusal names its fix: internal receivers are let through by the operator.
    let refused = || {
        not_allowed(format!(
            "{name} is a loopback, private or link-local address; to let this host through (an \
             internal receiver), add it to SHIPMATE_WEBHOOK_ALLOWED_HOSTS on the api and the worker, \
             e.g. SHIPMATE_WEBHOOK_ALLOWED_HOSTS={name}"
        ))
    };
    match host {
        Host::Ipv4(ip) if !public_address(IpAddr::V4(ip)) => Err(refused()),
        Host::Ipv6(ip) if !public_address(IpAddr::V6(ip)) => Err(refused()),
        Host::Domain(d) => {
            if d.eq_ignore_ascii_case("localhost") || d.to_ascii_lowercase().ends_with(".localhost")
            {
                return Err(refused());
            }
            // A name that does not resolve yet is accepted: delivery checks again.
            let port = url.port_or_known_default().unwrap_or(443);
            let lookup = tokio::net::lookup_host((d, port));
            if let Ok(Ok(addrs)) = tokio::time::timeout(Duration::from_secs(3), lookup).await {
                if addrs.into_iter().any(|a| !public_address(a.ip())) {
                    return Err(refused());
                }
            }
            Ok(url)
        }
        _ => Ok(url),
    }
}

/// The HTTP client's resolver: answers only public addresses, unless the host is allowed.
struct GuardedResolver {
    allowed: Vec<String>,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let allowed = self.allowed.iter().any(|h| h.eq_ignore_ascii_case(&host));
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if !allowed && addrs.iter().any(|a| !public_address(a.ip())) {
                return Err(format!(
                    "{host} resolves to a loopback, private or link-local address \
                     (SHIPMATE_WEBHOOK_ALLOWED_HOSTS lets a host through)"
                )
                .into());
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// Whether a delivery may connect to the URL's host when it is an address (names go through the
/// resolver).
pub fn literal_host_allowed(url: &Url, allowed: &dyn Fn(&str) -> bool) -> bool {
    let name = url.host_str().unwrap_or_default();
    allowed(name)
        || match url.host() {
            Some(Host::Ipv4(ip)) => public_address(IpAddr::V4(ip)),
            Some(Host::Ipv6(ip)) => public_address(IpAddr::V6(ip)),
            Some(Host::Domain(_)) => true,
            None => false,
        }
}

/// The client that sends webhooks: 10 seconds per attempt, no redirects (a redirect could lead
/// inward), the guarded resolver, and no proxy (`HTTP_PROXY` and the like are ignored: a proxy would
/// resolve and connect on its own, past the resolver's check).
pub fn webhook_client(allowed_hosts: &[String]) -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .connect_timeout(Duration::from_secs(5))
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("Shipmate-Webhooks/", env!("CARGO_PKG_VERSION")))
        .dns_resolver(Arc::new(GuardedResolver {
            allowed: allowed_hosts.to_vec(),
        }))
        .build()
        .expect("the webhook client's settings are valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inward_addresses_are_refused() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(!public_address(ip.parse().unwrap()), "{ip}");
        }
        // NAT64 and 6to4: whatever IPv4 address they embed, public or not.
        for ip in [
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b::808:808",
            "2002:7f00:1::1",
            "2002:c0a8:101::1",
            "2002:808:808::1",
            "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        ] {
            assert!(!public_address(ip.parse().unwrap()), "{ip}");
        }
        // Neighbours of those prefixes are ordinary addresses.
        for ip in [
            "64:ff9b:0:0:0:1::1",
            "64:ff9a::7f00:1",
            "2003::1",
            "2001:db9::1",
        ] {
            assert!(public_address(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "2606:4700::1111", "8.8.8.8"] {
            assert!(public_address(ip.parse().unwrap()), "{ip}");
        }
    }

    #[tokio::test]
    async fn urls_are_checked_as_saved() {
        let none = |_: &str| false;
        for bad in [
            "ftp://example.com/x",
            "http://127.0.0.1:9000/hook",
            "http://[::1]/hook",
            "http://localhost/hook",
            "not a url",
        ] {
            let e = check_url(bad, &none).await.unwrap_err();
            assert_eq!(e.code(), "url_not_allowed", "{bad}");
        }
        let local = |h: &str| h == "127.0.0.1";
        assert!(check_url("http://127.0.0.1:9000/hook", &local)
            .await
            .is_ok());
        assert!(check_url("https://203.0.113.9/hook", &none).await.is_err());
        assert!(check_url("https://93.184.216.34/hook", &none).await.is_ok());
        for bad in [
            "http://[64:ff9b::a00:1]/hook",
            "https://[2002:a00:1::1]/hook",
        ] {
            let e = check_url(bad, &none).await.unwrap_err();
            assert_eq!(e.code(), "url_not_allowed", "{bad}");
        }
    }

    /// At delivery: an address in the URL, and what a name resolves to (an address literal
    /// resolves to itself, which stands in for a DNS answer here).
    #[tokio::test]
    async fn deliveries_refuse_nat64_and_6to4_addresses() {
        let none = |_: &str| false;
        for raw in [
            "http://[64:ff9b::a00:1]/hook",
            "http://[2002:a00:1::1]/hook",
        ] {
            let url = Url::parse(raw).unwrap();
            assert!(!literal_host_allowed(&url, &none), "{raw}");
        }
        let resolver = GuardedResolver {
            allowed: vec!["2002:a00:1::2".into()],
        };
        let resolve = |name: &str| resolver.resolve(name.parse().unwrap());
        assert!(resolve("64:ff9b::a00:1").await.is_err());
        assert!(resolve("2002:a00:1::1").await.is_err());
        assert!(resolve("2002:a00:1::2").await.is_ok(), "an allowed host");
        assert!(resolve("2606:4700::1111").await.is_ok());
    }
}
