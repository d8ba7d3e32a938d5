//! What the suite asserts, each check adding lines to the printed summary and, when it fails, a
//! violation: statuses per kind, behaviour during and after each fault, and every accepted write.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use crate::helpers::Auth;
use crate::load::{is_2xx, Kind, Load, Record};

/// Longest a request may take: past it the request counts as a hang.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest the api may take to answer 2xx again after a fault ends.
const RECOVERY_LIMIT: Duration = Duration::from_secs(15);
/// Longest the workers may take to store everything accepted once the load stops.
const DRAIN_LIMIT: Duration = Duration::from_secs(90);

pub struct Fault {
    pub name: String,
    pub start: Duration,
    pub end: Duration,
    /// Kinds that must have met a 503 while it lasted (their dependency was down).
    pub expect_503: Vec<Kind>,
    pub detail: String,
}

#[derive(Default)]
pub struct Report {
    pub lines: Vec<String>,
    pub violations: Vec<String>,
}

impl Report {
    fn line(&mut self, s: String) {
        self.lines.push(s);
    }
    fn fail(&mut self, s: String) {
        self.violations.push(s);
    }
}

pub fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// Per kind: requests sent, 2xx, 503, anything else, no answer, slowest. Anything but 2xx and 503
/// is a violation, and so is a request that got no answer within the client's timeout.
pub fn statuses(r: &mut Report, records: &[Record]) {
    r.line(format!(
        "  {:<38} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9}",
        "request", "sent", "2xx", "503", "other", "no answer", "slowest"
    ));
    for kind in Kind::ALL {
        let of: Vec<&Record> = records.iter().filter(|x| x.kind == kind).collect();
        let count = |f: &dyn Fn(&Record) -> bool| of.iter().filter(|x| f(x)).count();
        let slowest = of.iter().map(|x| x.end - x.start).max().unwrap_or_default();
        r.line(format!(
            "  {:<38} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9}",
            kind.label(),
            of.len(),
            count(&|x| x.ok()),
            count(&|x| x.status == Some(503)),
            count(&|x| x.status.is_some() && !x.ok() && x.status != Some(503)),
            count(&|x| x.status.is_none()),
            secs(slowest),
        ));
        for x in of
            .iter()
            .filter(|x| !x.ok() && x.status != Some(503))
            .take(5)
        {
            r.fail(format!(
                "{} at {}: {} after {}",
                kind.label(),
                secs(x.start),
                x.status.map_or_else(
                    || format!("no answer ({})", x.error.as_deref().unwrap_or("?")),
                    |s| format!("status {s}")
                ),
                secs(x.end - x.start)
            ));
        }
    }
}

/// During each fault, the kinds whose dependency was down met 503s; after it, every kind answered
/// 2xx again by itself, before the next fault began.
pub fn faults(r: &mut Report, records: &[Record], faults: &[Fault], load_end: Duration) {
    for (i, f) in faults.iter().enumerate() {
        r.line(format!(
            "  {}. {} at {}, lasting {}: {}",
            i + 1,
            f.name,
            secs(f.start),
            secs(f.end - f.start),
            f.detail
        ));
        let during: Vec<&Record> = records
            .iter()
            .filter(|x| x.start >= f.start && x.end <= f.end)
            .collect();
        let (mut seen, mut served) = (Vec::new(), Vec::new());
        for kind in Kind::ALL {
            let n = during
                .iter()
                .filter(|x| x.kind == kind && x.status == Some(503))
                .count();
            if n > 0 {
                seen.push(format!("{} x{n}", short(kind)));
            }
            let ok = during.iter().filter(|x| x.kind == kind && x.ok()).count();
            if ok > 0 {
                served.push(format!("{} x{ok}", short(kind)));
            }
            if n == 0 && f.expect_503.contains(&kind) {
                r.fail(format!(
                    "{}: {} never answered 503 while it lasted",
                    f.name,
                    kind.label()
                ));
            }
        }
        let slowest = during
            .iter()
            .map(|x| x.end - x.start)
            .max()
            .unwrap_or_default();
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_owned()
            } else {
                v.join(", ")
            }
        };
        r.line(format!(
            "     while it lasted: 503 {}; 2xx {}; slowest answer {}",
            list(&seen),
            list(&served),
            secs(slowest)
        ));
        let next = faults.get(i + 1).map_or(load_end, |n| n.start);
        let mut back = Vec::new();
        for kind in Kind::ALL {
            let first = records
                .iter()
                .filter(|x| x.kind == kind && x.start >= f.end && x.ok())
                .map(|x| x.end)
                .min();
            match first {
                Some(t) if t <= next && t - f.end <= RECOVERY_LIMIT => {
                    back.push(format!("{} {}", short(kind), secs(t - f.end)))
                }
                _ => r.fail(format!(
                    "{}: {} did not answer 2xx again within {} of its end",
                    f.name,
                    kind.label(),
                    secs(RECOVERY_LIMIT.min(next.saturating_sub(f.end)))
                )),
            }
        }
        r.line(format!(
            "     first 2xx after it ended: {}",
            back.join(", ")
        ));
    }
}

fn short(kind: Kind) -> &'static str {
    match kind {
        Kind::Events => "events",
        Kind::Documents => "documents",
        Kind::Feedback => "feedback",
        Kind::Votes => "votes",
        Kind::Readyz => "readyz",
    }
}

async fn event_counts(db: &PgPool, project: Uuid) -> HashMap<String, i64> {
    sqlx::query_as::<_, (Option<String>, i64)>(
        "select properties->>'req', count(*) from analytics_events where project_id = $1 group by 1",
    )
    .bind(project)
    .fetch_all(db)
    .await
    .unwrap()
    .into_iter()
    .filter_map(|(tag, n)| Some((tag?, n)))
    .collect()
}

/// Waits until every accepted event is stored and no document is pending; returns how long it took.
pub async fn wait_drained(db: &PgPool, load: &Load, project: Uuid) -> Duration {
    let started = Instant::now();
    loop {
        let counts = event_counts(db, project).await;
        let events_left = load
            .events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| is_2xx(e.status) && counts.get(&e.tag).copied().unwrap_or(0) < e.events)
            .count();
        let docs_left: i64 = sqlx::query_scalar(
            "select count(*) from kb_documents where project_id = $1 and status = 'pending'",
        )
        .bind(project)
        .fetch_one(db)
        .await
        .unwrap();
        if (events_left == 0 && docs_left == 0) || started.elapsed() > DRAIN_LIMIT {
            return started.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// What the checks of accepted writes need besides the load's own records.
pub struct Target<'a> {
    pub db: &'a PgPool,
    pub project: Uuid,
    pub slug: &'a str,
    pub owner: &'a str,
    pub voter_emails: &'a [String],
}

/// Every event of every request answered 202 is stored exactly once, and the analytics reads
/// count them; a request answered otherwise stored all its events or none.
pub async fn events(r: &mut Report, load: &Load, t: &Target<'_>) {
    let counts = event_counts(t.db, t.project).await;
    let (mut requests, mut events, mut stored_anyway) = (0, 0, 0);
    for e in load.events.lock().unwrap().iter() {
        let got = counts.get(&e.tag).copied().unwrap_or(0);
        if is_2xx(e.status) {
            requests += 1;
            events += e.events;
            if got != e.events {
                r.fail(format!(
                    "event request {} answered {:?} with {} events: {got} stored",
                    e.tag, e.status, e.events
                ));
            }
        } else if got == e.events {
            stored_anyway += 1;
        } else if got != 0 {
            r.fail(format!(
                "event request {} answered {:?}: {got} of its {} events stored",
                e.tag, e.status, e.events
            ));
        }
    }
    let by_name: HashMap<String, i64> = sqlx::query_as(
        "select name, count(*) from analytics_events where project_id = $1 group by name",
    )
    .bind(t.project)
    .fetch_all(t.db)
    .await
    .unwrap()
    .into_iter()
    .collect();
    let read = |what: &str| format!("/v1/analytics/{what}?project_id={}&period=7d", t.project);
    let (_, overview) = load
        .app
        .call(Method::GET, &read("overview"), Auth::Session(t.owner), None)
        .await;
    let (_, names) = load
        .app
        .call(Method::GET, &read("events"), Auth::Session(t.owner), None)
        .await;
    let custom = names["data"]
        .as_array()
        .and_then(|d| d.iter().find(|x| x["name"] == "fault_load"))
        .and_then(|x| x["count"].as_i64());
    let page_views = overview["page_views"].as_i64();
    let stored_views = by_name.get("page_view").copied().unwrap_or(0);
    let stored_custom = by_name.get("fault_load").copied().unwrap_or(0);
    if page_views != Some(stored_views) || custom != Some(stored_custom) {
        r.fail(format!(
            "analytics reads disagree with the stored events: page_views {page_views:?} (stored {stored_views}), fault_load {custom:?} (stored {stored_custom})"
        ));
    }
    r.line(format!(
        "  events: {requests} requests answered 202 carrying {events} events, each stored exactly once; \
         the reads count {} page views and {} custom events, as stored; {stored_anyway} requests answered 503 \
         yet stored whole (none partly)",
        page_views.unwrap_or(-1),
        custom.unwrap_or(-1)
    ));
}

/// Every document answered 201 is `ready` (in the database and through the api), once, with each
/// of its chunks stored once and embedded.
pub async fn documents(r: &mut Report, load: &Load, t: &Target<'_>) {
    type Row = (String, String, Option<String>, i64, i64, i64, i64);
    let rows: Vec<Row> = sqlx::query_as(
        "select d.id::text, d.status, d.metadata->>'n', d.chunks_created::int8, count(c.id),
                count(distinct c.ordinal), count(c.id) filter (where c.embedding is not null and c.ready)
         from kb_documents d left join kb_chunks c on c.document_id = d.id
         where d.project_id = $1 group by d.id",
    )
    .bind(t.project)
    .fetch_all(t.db)
    .await
    .unwrap();
    let by_id: HashMap<&str, &Row> = rows.iter().map(|x| (x.0.as_str(), x)).collect();
    let mut per_n: HashMap<String, usize> = HashMap::new();
    for x in &rows {
        *per_n.entry(x.2.clone().unwrap_or_default()).or_default() += 1;
    }
    let docs: Vec<(u32, String, i64)> = load
        .docs
        .lock()
        .unwrap()
        .iter()
        .filter(|d| is_2xx(d.status))
        .filter_map(|d| Some((d.n, d.id.clone()?, d.chunks)))
        .collect();
    let mut chunks = 0;
    for (n, id, expected) in &docs {
        chunks += expected;
        match by_id.get(id.as_str()) {
            None => r.fail(format!("document {id} answered 201 but is not stored")),
            Some((_, status, _, created, stored, distinct, embedded)) => {
                if status != "ready"
                    || created != expected
                    || stored != expected
                    || distinct != expected
                    || embedded != expected
                {
                    r.fail(format!(
                        "document {id}: status {status}, {created} chunks created, {stored} stored \
                         ({distinct} distinct, {embedded} embedded), {expected} announced"
                    ));
                }
            }
        }
        if per_n.get(&n.to_string()) != Some(&1) {
            r.fail(format!(
                "document #{n} is stored {:?} times",
                per_n.get(&n.to_string())
            ));
        }
        let path = format!("/v1/indexes/{}/documents/{id}", load.index_id);
        let (_, shown) = load
            .app
            .call(Method::GET, &path, Auth::Key(&load.key), None)
            .await;
        if shown["status"] != "ready" {
            r.fail(format!(
                "document {id} shows {} through the api",
                shown["status"]
            ));
        }
    }
    let (_, indexes) = load
        .app
        .call(Method::GET, "/v1/indexes", Auth::Key(&load.key), None)
        .await;
    let listed = indexes["data"][0]["chunk_count"].as_i64();
    let stored: i64 = rows.iter().map(|x| x.4).sum();
    if listed != Some(stored) {
        r.fail(format!(
            "the index lists {listed:?} chunks; {stored} are stored"
        ));
    }
    r.line(format!(
        "  documents: {} answered 201 ({chunks} chunks), each stored once and `ready` with every chunk \
         embedded once; {} more answered 503 yet stored (and also embedded)",
        docs.len(),
        rows.len().saturating_sub(docs.len())
    ));
}

/// Every element of a paginated list, walking its pages (100 a page) up to its `total`.
async fn every_page(load: &Load, path: &str, auth: Auth<'_>) -> Vec<Value> {
    let mut all = Vec::new();
    for page in 1.. {
        let (_, body) = load
            .app
            .call(
                Method::GET,
                &format!("{path}&per_page=100&page={page}"),
                auth,
                None,
            )
            .await;
        let data = body["data"].as_array().cloned().unwrap_or_default();
        let done = data.is_empty()
            || all.len() + data.len() >= body["total"].as_u64().unwrap_or(0) as usize;
        all.extend(data);
        if done {
            break;
        }
    }
    all
}

/// Every entry answered 201 is stored exactly once and listed once in the owner's view.
pub async fn feedback(r: &mut Report, load: &Load, t: &Target<'_>) {
    let rows: HashMap<String, (i64, String)> = sqlx::query_as::<_, (String, i64, String)>(
        "select title, count(*), min(id::text) from feedback where project_id = $1 group by title",
    )
    .bind(t.project)
    .fetch_all(t.db)
    .await
    .unwrap()
    .into_iter()
    .map(|(title, n, id)| (title, (n, id)))
    .collect();
    let listed = every_page(
        load,
        &format!("/v1/feedback?project_id={}", t.project),
        Auth::Session(t.owner),
    )
    .await;
    let mut listed_ids: HashMap<&str, usize> = HashMap::new();
    for e in &listed {
        *listed_ids
            .entry(e["id"].as_str().unwrap_or(""))
            .or_default() += 1;
    }
    let (mut accepted, mut stored_anyway) = (0, 0);
    for f in load.feedback.lock().unwrap().iter() {
        let stored = rows.get(&f.title);
        if !is_2xx(f.status) {
            stored_anyway += usize::from(stored.is_some());
            continue;
        }
        accepted += 1;
        let id = f.id.as_deref().unwrap_or("");
        if stored.map(|(n, _)| *n) != Some(1) || stored.map(|(_, i)| i.as_str()) != Some(id) {
            r.fail(format!(
                "feedback {:?} ({id}) answered 201; stored as {stored:?}",
                f.title
            ));
        }
        if listed_ids.get(id) != Some(&1) {
            r.fail(format!(
                "feedback {id} is listed {:?} times",
                listed_ids.get(id)
            ));
        }
    }
    r.line(format!(
        "  feedback: {accepted} answered 201, each stored and listed exactly once; {stored_anyway} more \
         answered 503 yet stored"
    ));
}

/// Every vote answered 200 is stored with its value, each entry's counts equal its votes, and the
/// public board shows those counts.
pub async fn votes(r: &mut Report, load: &Load, t: &Target<'_>) {
    let rows: HashMap<(String, String), i32> = sqlx::query_as::<_, (String, String, i32)>(
        "select v.feedback_id::text, u.email, v.value::int4 from feedback_votes v
         join feedback f on f.id = v.feedback_id join users u on u.id = v.user_id
         where f.project_id = $1",
    )
    .bind(t.project)
    .fetch_all(t.db)
    .await
    .unwrap()
    .into_iter()
    .map(|(f, e, v)| ((f, e), v))
    .collect();
    // Per (entry, voter): its one value, and whether any of its attempts was answered 200.
    let mut pairs: HashMap<(String, String), (i16, bool)> = HashMap::new();
    let mut accepted = 0;
    for v in load.votes.lock().unwrap().iter() {
        accepted += usize::from(is_2xx(v.status));
        let pair = pairs
            .entry((v.entry.clone(), t.voter_emails[v.voter].clone()))
            .or_insert((v.value, false));
        pair.1 |= is_2xx(v.status);
    }
    let mut stored_anyway = 0;
    for (key, (value, answered)) in &pairs {
        let stored = rows.get(key).copied();
        if *answered && stored != Some(i32::from(*value)) {
            r.fail(format!(
                "the vote of {} on {} was answered 200; stored {stored:?}",
                key.1, key.0
            ));
        }
        stored_anyway += usize::from(!answered && stored.is_some());
    }
    let counts: Vec<(String, i64, i64, i64, i64)> = sqlx::query_as(
        "select f.id::text, f.upvotes::int8, f.downvotes::int8,
                count(v.value) filter (where v.value = 1), count(v.value) filter (where v.value = -1)
         from feedback f left join feedback_votes v on v.feedback_id = f.id
         where f.project_id = $1 and f.type = 'feature' group by f.id",
    )
    .bind(t.project)
    .fetch_all(t.db)
    .await
    .unwrap();
    let board = every_page(
        load,
        &format!("/v1/feedback/by-project/{}?type=feature", t.slug),
        Auth::None,
    )
    .await;
    let shown: HashMap<&str, (i64, i64)> = board
        .iter()
        .map(|e: &Value| {
            (
                e["id"].as_str().unwrap_or(""),
                (
                    e["upvotes"].as_i64().unwrap_or(-1),
                    e["downvotes"].as_i64().unwrap_or(-1),
                ),
            )
        })
        .collect();
    for (id, up, down, up_rows, down_rows) in &counts {
        if (up, down) != (up_rows, down_rows) {
            r.fail(format!(
                "entry {id} counts {up} up / {down} down but has {up_rows} / {down_rows} votes"
            ));
        }
        if shown.get(id.as_str()) != Some(&(*up, *down)) {
            r.fail(format!(
                "entry {id}: the board shows {:?}, stored {up} / {down}",
                shown.get(id.as_str())
            ));
        }
    }
    r.line(format!(
        "  votes: {accepted} answered 200 ({} distinct voter-entry pairs, the rest repeats), each stored with its \
         value; counts match the votes on all {} feature entries, on the board too; {stored_anyway} pairs \
         answered only 503 yet stored",
        pairs.len(),
        counts.len()
    ));
}
