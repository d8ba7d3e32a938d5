//! Imports of another tool's history: Plausible's CSV export (`plausible`), kept apart from the
//! project's own events as daily figures per read and value (`analytics_imported`), applied whole
//! or not at all by a worker (`apply`), and added to the unfiltered reads for the days before the
//! project's first own event (`reads`). Deleting an import removes what it brought.

use std::collections::HashMap;

use chrono::NaiveDate;

pub mod apply;
pub mod plausible;
pub mod reads;
pub mod store;

/// What an imported row counts toward. Stored as its number: never renumber.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i16)]
pub enum Kind {
    /// A day's totals: visitors, page views, visits, bounces and visit seconds.
    Total = 0,
    Page = 1,
    Entry = 2,
    Exit = 3,
    Referrer = 4,
    UtmSource = 5,
    UtmMedium = 6,
    UtmCampaign = 7,
    Country = 8,
    Device = 9,
    Browser = 10,
    Os = 11,
    Event = 12,
}

impl Kind {
    /// The kind of a Plausible table keyed on one column.
    fn of_table(table: &str) -> Kind {
        match table {
            "pages" => Kind::Page,
            "entry_pages" => Kind::Entry,
            "exit_pages" => Kind::Exit,
            "custom_events" => Kind::Event,
            "locations" => Kind::Country,
            "devices" => Kind::Device,
            "browsers" => Kind::Browser,
            "operating_systems" => Kind::Os,
            _ => Kind::Total,
        }
    }

    /// A value as the reads hold it, or `None` for one they leave out (empty, unknown).
    fn normalize(self, raw: &str) -> Option<String> {
        let v = raw.trim();
        if v.is_empty() || v == "(not set)" || v.chars().count() > 2048 {
            return None;
        }
        match self {
            // Plausible keeps the referrer's host (sometimes with a path); the reads keep hosts.
            Kind::Referrer => {
                let host = v.split_once("://").map_or(v, |(_, rest)| rest);
                let host = host.split(['/', '?', '#']).next()?.to_ascii_lowercase();
                Some(host.trim_start_matches("www.").to_owned()).filter(|h| !h.is_empty())
            }
            Kind::Country => {
                let code = v.to_ascii_uppercase();
                (code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase()) && code != "ZZ")
                    .then_some(code)
            }
            // Plausible's screen sizes; its `Laptop` is a desktop here.
            Kind::Device => match v.to_ascii_lowercase().as_str() {
                "desktop" | "laptop" => Some("desktop".into()),
                d @ ("mobile" | "tablet") => Some(d.to_owned()),
                _ => None,
            },
            // Page views are in the totals; engagement is Plausible's own bookkeeping.
            Kind::Event if v == "pageview" || v == "engagement" => None,
            _ => Some(v.to_owned()),
        }
    }
}

/// A day's figures for one value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Figures {
    pub visitors: i64,
    pub views: i64,
    pub visits: i64,
    pub bounces: i64,
    /// Visit seconds, summed.
    pub duration: i64,
}

impl Figures {
    fn add(&mut self, o: &Figures) {
        self.visitors += o.visitors;
        self.views += o.views;
        self.visits += o.visits;
        self.bounces += o.bounces;
        self.duration += o.duration;
    }
}

/// An export's figures per day, kind and value.
pub type Daily = HashMap<(NaiveDate, Kind, String), Figures>;

#[cfg(test)]
mod tests {
    use super::Kind;

    #[test]
    fn values_are_kept_as_the_reads_hold_them() {
        let n = |k: Kind, v: &str| k.normalize(v);
        assert_eq!(
            n(Kind::Referrer, "https://www.News.example/a?b"),
            Some("news.example".into())
        );
        assert_eq!(n(Kind::Referrer, "t.co"), Some("t.co".into()));
        assert_eq!(n(Kind::Device, "Laptop"), Some("desktop".into()));
        assert_eq!(n(Kind::Device, "Mobile"), Some("mobile".into()));
        assert_eq!(n(Kind::Device, "Fridge"), None);
        assert_eq!(n(Kind::Country, "de"), Some("DE".into()));
        assert_eq!(n(Kind::Country, "ZZ"), None);
        assert_eq!(n(Kind::Event, "engagement"), None);
        assert_eq!(n(Kind::Page, " "), None);
    }
}
