//! Sources broken down by a goal (`goal=` on referrers and UTM): each source's visitors who
//! reached the goal, in percent of the source's visitors, and the revenue they brought in the
//! goal's currency. A visitor is a source's when one of their page views (matching the read's
//! filters) came from it, and converted when one of their events of the same day matches the goal
//! with those filters, exactly as the goal's own row counts them; a visitor who came from two
//! sources counts for both, as in Plausible's source breakdowns.

use std::collections::HashMap;

use shipmate_types::analytics::{Breakdown, Goal, ReferrerRow, SourceRow, Utm};

use crate::goals::{revenue, Target};
use crate::query::{percent, Dim, Filters};
use crate::seam::{Converted, Reader};
use shipmate_core::AppResult;

/// The read's filters and the goal's target: what a conversion's event matches.
fn reached(goal: &Goal, filters: &Filters) -> Filters {
    let target = Target::of(goal);
    let (dim, value) = target.dim();
    filters.with(dim, value)
}

/// Adds each row's conversions (0 for a source without any).
fn add<T: SourceRow>(rows: &mut [T], converted: Vec<Converted>, goal: &Goal) {
    let mut by_key: HashMap<String, Converted> =
        converted.into_iter().map(|c| (c.key.clone(), c)).collect();
    for row in rows {
        let found = by_key.remove(row.key());
        let conversions = found.as_ref().map_or(0, |c| c.conversions);
        let sums = found.map(|c| c.revenue).unwrap_or_default();
        let money = goal.currency.clone().map(|c| revenue(sums, c));
        row.convert(conversions, percent(conversions, row.visitors()), money);
    }
}

/// The referrers read, with the goal's conversions on every row when one is named.
pub async fn referrers(
    read: &dyn Reader,
    goal: Option<&Goal>,
    filters: &Filters,
) -> AppResult<Breakdown<ReferrerRow>> {
    let Some(goal) = goal else {
        return read.referrers().await;
    };
    let reached = reached(goal, filters);
    let currency = goal.currency.as_deref();
    let (mut rows, converted) = tokio::try_join!(
        read.referrers(),
        read.conversions(&[Dim::Referrer], &reached, currency)
    )?;
    add(
        &mut rows.data,
        converted.into_iter().flatten().collect(),
        goal,
    );
    Ok(rows)
}

/// The UTM read, with the goal's conversions on every source, medium and campaign when one is
/// named.
pub async fn utm(read: &dyn Reader, goal: Option<&Goal>, filters: &Filters) -> AppResult<Utm> {
    let Some(goal) = goal else {
        return read.utm().await;
    };
    let reached = reached(goal, filters);
    let currency = goal.currency.as_deref();
    let dims = [Dim::UtmSource, Dim::UtmMedium, Dim::UtmCampaign];
    let (mut utm, converted) =
        tokio::try_join!(read.utm(), read.conversions(&dims, &reached, currency))?;
    let mut converted = converted.into_iter();
    let mut next = || converted.next().unwrap_or_default();
    add(&mut utm.sources, next(), goal);
    add(&mut utm.mediums, next(), goal);
    add(&mut utm.campaigns, next(), goal);
    Ok(utm)
}
