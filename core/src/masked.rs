//! Settings shown without their secrets (logs, `--help`, `Debug`).

/// The URL with its password, if any, shown as `***`.
pub fn mask_url(raw: &str) -> String {
    // Lists of URLs (replicas, cluster seeds) are masked one by one.
    raw.split(',').map(mask_one).collect::<Vec<_>>().join(",")
}

fn mask_one(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.into()
        }
        Ok(_) => raw.to_owned(),
        // Unparseable: it might still hold a password, so show none of it.
        Err(_) => "***".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::mask_url;

    #[test]
    fn passwords_in_urls_are_masked() {
        assert_eq!(
            mask_url("postgres://app:s3cret@db:5432/shipmate"),
            "postgres://app:***@db:5432/shipmate"
        );
        assert_eq!(mask_url("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
        assert_eq!(mask_url("not a url with s3cret"), "***");
        assert_eq!(
            mask_url("postgres://r:pw@a/s,postgres://b/s"),
            "postgres://r:***@a/s,postgres://b/s"
        );
    }
}
