//! The statements that make closed days' rows under each single filter and each pair with a
//! visitor's value (`daily_by`), their journey neighbours and their goals' conversions
//! (`goal_daily`), for `summaries` to run. A leaf as `sql` is: it knows the events' columns and
//! the tables, not who runs the statements.

use super::sql::{
    list, neighbours, pair_prefix, pairs, GOAL_DIMS, JOURNEY, SOURCE_DIMS, VISIT_ROWS,
};
use crate::query::Dim;

/// `daily_by`'s columns, in the order the statements below select them.
const BY_COLUMNS: &str = "project_id, day, fdim, fval, dim, key, views, visitors, run";

/// Which filters a statement makes rows under: each single one, or each pair of a value and a
/// visitor's (`sql::pairs`), about three times as many rows, apart.
#[derive(Clone, Copy)]
pub enum Under {
    One,
    Pairs,
}

/// The rows of the events in `part` under each filter of `under`: for each value each event
/// holds (and, for a pair, with the visitor value it holds), its page views and visitors
/// (`total`) and its rows of each dimension (`dim_condition`'s events), as the reads aggregate the
/// events under that filter. Empty values are dropped before the rows are made, and the
/// dimensions are grouped as numbers and named after (`named`): on 18.16 over a day of 111,000
/// events, 2.4 s → 1.0.
pub fn filtered_events(part: &str, run: i64, under: Under) -> String {
    let total = Dim::ALL.len() + 1;
    let mut rows = each_dim(|k, dim| match dim {
        Dim::Event => format!("(toUInt8({k}), {}, toUInt64(1))", dim.column()),
        _ => format!(
            "(toUInt8({k}), if(name = 'page_view', {}, ''), toUInt64(1))",
            dim.column()
        ),
    });
    rows.push(format!(
        "(toUInt8({total}), '', toUInt64(name = 'page_view'))"
    ));
    let dims = named(&[Dim::ALL.map(Dim::column).as_slice(), &["total"]].concat());
    let held = match under {
        Under::One => each_dim(|k, d| format!("(toUInt8({k}), {})", d.column())),
        Under::Pairs => {
            each_pair(|k, (a, v)| format!("(toUInt8({k}), {}, {})", a.column(), v.column()))
        }
    };
    format!(
        "INSERT INTO daily_by ({BY_COLUMNS})
         SELECT project_id, day, {fdim}, fval, {dims}[di], key, views, visitors,
                toUInt64({run})
         FROM (SELECT project_id, day, f.1 AS fi, f.2 AS fval{fv}, b.1 AS di, b.2 AS key,
                      sum(b.3) AS views, uniqExact(visitor) AS visitors
               FROM (SELECT project_id, day, visitor, arrayJoin({held}) AS f,
                            arrayJoin(arrayFilter(x -> x.1 = {total} OR x.2 != '', [{rows}])) AS b
                     FROM events WHERE {part})
               GROUP BY project_id, day, fi, fval{fv_group}, di, key)",
        fdim = under.fdim(),
        fv = under.fv().0,
        fv_group = under.fv().1,
        held = under.valued(format!("[{}]", held.join(", "))),
        rows = rows.join(", "),
    )
}

impl Under {
    /// The filters of `held` (an array of (number, value), or for pairs (number, value, visitor
    /// value), numbered as `filters` names them) that hold their values: the rows' filters, the
    /// empty ones left out before the rows are made.
    fn valued(self, held: String) -> String {
        match self {
            Under::One => format!("arrayFilter(x -> x.2 != '', {held})"),
            Under::Pairs => format!("arrayFilter(x -> x.2 != '' AND x.3 != '', {held})"),
        }
    }

    /// The visitor value of a pair, as selected (`fv`) and as grouped by; a single filter has
    /// none (an empty column in the key took its statement past a 2 GB server's limit).
    fn fv(self) -> (&'static str, &'static str) {
        match self {
            Under::One => ("", ""),
            Under::Pairs => (", f.3 AS fv", ", fv"),
        }
    }

    /// The filter's name (`fdim`): the numbered name, a pair's with its visitor value after it.
    fn fdim(self) -> String {
        match self {
            Under::One => format!("{}[fi]", filters()),
            Under::Pairs => format!("concat({}[fi], fv)", filters()),
        }
    }
}

/// Every filter's name, numbered from 1: each dimension, then each pair's prefix (its visitor
/// value follows, `sql::pair_prefix`).
fn filters() -> String {
    let mut names: Vec<String> = Dim::ALL.map(|d| d.column().to_owned()).to_vec();
    names.extend(pairs().into_iter().map(|(a, v)| pair_prefix(a, v)));
    named(&names)
}

/// `each` of every dimension with its number from 1 in `Dim::ALL` (grouped by, then `named`).
fn each_dim(each: impl Fn(usize, Dim) -> String) -> Vec<String> {
    (Dim::ALL.iter().enumerate())
        .map(|(k, d)| each(k + 1, *d))
        .collect()
}

/// `each` of every pair (`sql::pairs`) with its number in `filters`, after the dimensions'.
fn each_pair(each: impl Fn(usize, (Dim, Dim)) -> String) -> Vec<String> {
    (pairs().into_iter().enumerate())
        .map(|(k, pair)| each(Dim::ALL.len() + k + 1, pair))
        .collect()
}

/// An array of names, to name a number from 1 by (`[...][n]`).
fn named<S: AsRef<str>>(names: &[S]) -> String {
    format!("[{}]", list(names, |n| format!("'{}'", n.as_ref())))
}

/// The visit rows (`VISIT_ROWS`) under each filter of `under`: for each value any event of a
/// visit holds (for a pair, with the visitor value the same event holds), the visit counts once
/// under it, as a filtered read counts the visits holding a matching event. Numbered and named as
/// `filtered_events` (1.4 s → 1.1).
pub fn filtered_visits(visits: &str, run: i64, under: Under) -> String {
    let rows: Vec<String> = (VISIT_ROWS.iter().enumerate())
        .map(|(k, (_, key, ..))| format!("(toUInt8({}), {key})", k + 1))
        .collect();
    // Each figure by the row's dimension: `multiIf(di = 1, a, di = 2, b, c)`.
    let by_dim =
        |figure: fn(&(&'static str, &'static str, &'static str, &'static str)) -> &'static str| {
            let (last, first) = VISIT_ROWS.split_last().expect("visit rows");
            let arms: String = (first.iter().enumerate())
                .map(|(k, r)| format!("di = {}, {}, ", k + 1, figure(r)))
                .collect();
            format!("multiIf({arms}{})", figure(last))
        };
    // Each dimension's distinct values in the visit, or each pair's distinct values of one event.
    let values = match under {
        Under::One => each_dim(|k, d| {
            format!(
                "arrayMap(v -> (toUInt8({k}), v), arrayDistinct(d_{}))",
                d.column()
            )
        }),
        Under::Pairs => each_pair(|k, (a, v)| {
            format!(
                "arrayDistinct(arrayMap((a, v) -> (toUInt8({k}), a, v), d_{}, d_{}))",
                a.column(),
                v.column()
            )
        }),
    };
    format!(
        "INSERT INTO daily_by ({BY_COLUMNS})
         SELECT project_id, day, {fdim}, fval, {names}[di], key, views, visitors,
                toUInt64({run})
         FROM (SELECT project_id, day, f.1 AS fi, f.2 AS fval{fv}, r.1 AS di, r.2 AS key,
                      {views} AS views, {visitors} AS visitors
               FROM (SELECT project_id, day, visitor, page_views, arrayJoin({values}) AS f,
                            arrayJoin(arrayFilter(x -> x.2 != '', [{rows}])) AS r
                     FROM ({visits}) WHERE page_views > 0)
               GROUP BY project_id, day, fi, fval{fv_group}, di, key)",
        fdim = under.fdim(),
        fv = under.fv().0,
        fv_group = under.fv().1,
        names = named(&VISIT_ROWS.map(|r| r.0)),
        values = under.valued(format!("arrayConcat({})", values.join(", "))),
        views = by_dim(|r| r.2),
        visitors = by_dim(|r| r.3),
        rows = rows.join(", "),
    )
}

/// Every page's neighbours in the visits (`journeys`), once per visit, as rows of `daily_by`
/// under the pseudo-filter `journey` with the page as its value: dimension `next` or `previous`,
/// the neighbour as key, visits as views.
pub fn journeys(visits: &str, run: i64) -> String {
    format!(
        "INSERT INTO daily_by ({BY_COLUMNS})
         SELECT project_id, day, '{JOURNEY}' AS fdim, n.2 AS fval, if(n.1 = 1, 'next', 'previous') AS dim,
                n.3 AS key, count() AS views, toUInt64(0) AS visitors, toUInt64({run})
         FROM (SELECT project_id, day, {pairs} AS pairs FROM ({visits}) WHERE page_views > 0)
         ARRAY JOIN pairs AS n GROUP BY project_id, day, fdim, fval, dim, key",
        pairs = neighbours(),
    )
}

/// The statements that keep the conversions and revenue of every goal per source for the events
/// of `part` (whole visitor days) in `goal_daily`, as run `run`.
pub fn goals(part: &str, run: i64) -> Vec<String> {
    let insert =
        "INSERT INTO goal_daily (project_id, day, gdim, gval, dim, key, currency, conversions,
                      revenue_micros, revenue_events, run)";
    // Each visitor day's goals (every event's name and path) and sources (its page views').
    let goals = GOAL_DIMS
        .iter()
        .map(|d| format!("groupUniqArrayIf(('{c}', {c}), {c} != '')", c = d.column()))
        .collect::<Vec<_>>()
        .join(", ");
    let sources = SOURCE_DIMS
        .iter()
        .map(|d| {
            format!(
                "groupUniqArrayIf(('{c}', {c}), name = 'page_view' AND {c} != '')",
                c = d.column()
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let days = |more: &str| {
        format!(
            "SELECT project_id, day, arrayConcat({sources}) AS sources{more}
             FROM events WHERE {part} GROUP BY project_id, day, visitor"
        )
    };
    let conversions = format!(
        "{insert}
         SELECT project_id, day, g.1 AS gdim, g.2 AS gval, s.1 AS dim, s.2 AS key, '', count(), 0, 0,
                toUInt64({run})
         FROM (SELECT project_id, day, arrayJoin(goals) AS g, arrayJoin(sources) AS s
               FROM ({}))
         GROUP BY project_id, day, gdim, gval, dim, key",
        days(&format!(", arrayConcat({goals}) AS goals"))
    );
    // Each goal event with revenue counts under its name and its path, for every source of its
    // visitor day.
    let paid = format!(
        ", groupArrayIf(({}, revenue_currency, revenue_micros), revenue_currency != '') AS paid",
        GOAL_DIMS
            .iter()
            .map(|d| d.column())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let goal_of_paid = GOAL_DIMS
        .iter()
        .enumerate()
        .map(|(k, d)| format!("('{}', e.{})", d.column(), k + 1))
        .collect::<Vec<_>>()
        .join(", ");
    let (currency, micros) = (GOAL_DIMS.len() + 1, GOAL_DIMS.len() + 2);
    let revenue = format!(
        "{insert}
         SELECT project_id, day, g.1 AS gdim, g.2 AS gval, s.1 AS dim, s.2 AS key, e.{currency} AS currency,
                0, sum(e.{micros}), count(), toUInt64({run})
         FROM (SELECT project_id, day, arrayJoin(paid) AS e, arrayJoin([{goal_of_paid}]) AS g,
                      arrayJoin(sources) AS s
               FROM ({}) WHERE notEmpty(paid))
         WHERE g.2 != ''
         GROUP BY project_id, day, gdim, gval, dim, key, currency",
        days(&paid)
    );
    vec![conversions, revenue]
}
