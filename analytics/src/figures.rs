//! The overview's visit figures, computed alike by every store from its visits: how many, the
//! share that bounced, the median duration.

use shipmate_types::analytics::Figures;

use crate::query::percent;

/// The visit figures of a read: visits, bounced visits, and the durations' histogram.
#[derive(Debug, Default)]
pub struct VisitFigures {
    pub visits: i64,
    pub bounced: i64,
    /// (seconds, visits), shortest first.
    pub durations: Vec<(i64, i64)>,
}

impl VisitFigures {
    /// The overview's figures with these visits.
    pub fn of(&self, page_views: i64, unique_visitors: i64) -> Figures {
        Figures {
            page_views,
            unique_visitors,
            visits: self.visits,
            bounce_rate: self.bounce_rate(),
            visit_duration: self.median(),
        }
    }

    fn bounce_rate(&self) -> f64 {
        percent(self.bounced, self.visits)
    }

    /// The median duration in whole seconds (the mean of the middle two for an even count).
    fn median(&self) -> i64 {
        let nth = |k: i64| {
            let mut seen = 0;
            self.durations
                .iter()
                .find(|(_, n)| {
                    seen += n;
                    seen > k
                })
                .map_or(0, |(d, _)| *d)
        };
        match self.visits {
            0 => 0,
            n if n % 2 == 1 => nth(n / 2),
            n => (nth(n / 2 - 1) + nth(n / 2) + 1) / 2,
        }
    }
}
