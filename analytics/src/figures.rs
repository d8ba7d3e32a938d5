//! What every store shapes alike from its rows: the overview's visit figures (how many, the share
//! that bounced, the median duration), the overview itself, and the events breakdown.

use shipmate_types::analytics::{Breakdown, EventRow, Figures, Overview, Period};

use crate::query::percent;
use crate::seam::Row;

/// A range's figures with its top page and top referrer.
pub type Figured = (Figures, Option<String>, Option<String>);

/// The overview of a range, with the range before's figures when compared.
pub fn overview(
    period: Period,
    (now, top_page, top_referrer): Figured,
    previous: Option<Figures>,
) -> Overview {
    Overview {
        period,
        page_views: now.page_views,
        unique_visitors: now.unique_visitors,
        top_page,
        top_referrer,
        visits: now.visits,
        bounce_rate: now.bounce_rate,
        visit_duration: now.visit_duration,
        previous,
    }
}

/// Every event name, `page_view` included, with its count and visitors.
pub fn events(period: Period, rows: Vec<Row>) -> Breakdown<EventRow> {
    Breakdown {
        period,
        data: rows
            .into_iter()
            .map(|r| EventRow {
                name: r.key,
                count: r.views,
                visitors: r.visitors,
            })
            .collect(),
    }
}

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
