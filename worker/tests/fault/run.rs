//! What every fault scenario shares: the project and users the load writes as, the load itself,
//! and, once the faults are over, the checks of every answer and every accepted write, printed
//! as a summary.

use std::time::{Duration, Instant};

use sqlx::PgPool;
use uuid::Uuid;

use crate::checks::{self, secs, Fault, Report, Target};
use crate::helpers::*;
use crate::load::Load;
use crate::support::{project_with_index, LOCAL_MODEL};

const VOTERS: usize = 4;
const SLUG: &str = "fault-suite";

fn voter_email(i: usize) -> String {
    format!("voter-{i}@fault.example")
}

/// A scenario under way: its load runs until `finish`.
pub struct Run {
    pub load: std::sync::Arc<Load>,
    pub db: PgPool,
    project: Uuid,
    owner: String,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    began: Instant,
    setup: Duration,
}

impl Run {
    /// Makes the project, its index, voters and a few feature requests through `app`, then
    /// starts the load: two lanes of events, documents, feedback, votes and readiness probes.
    pub async fn start(app: TestApp, direct_url: &str, began: Instant) -> Run {
        let db = shipmate_core::db::connect(direct_url, 2).await.unwrap();
        let (owner, key, index) = project_with_index(&app, SLUG, LOCAL_MODEL).await;
        let project: Uuid = index["project_id"].as_str().unwrap().parse().unwrap();
        let mut voters = Vec::new();
        for i in 0..VOTERS {
            voters.push(app.login(&voter_email(i)).await);
        }
        // A few feature requests from before the faults, so votes flow from the start.
        let mut features = Vec::new();
        for n in 0..3 {
            let (_, entry) = app
                .call(
                    reqwest::Method::POST,
                    "/v1/feedback",
                    Auth::Key(&key),
                    Some(serde_json::json!({"title": format!("Early feature {n}"), "type": "feature"})),
                )
                .await;
            features.push(id(&entry).to_owned());
        }
        let setup = began.elapsed();
        let load = Load::new(app, key, id(&index).to_owned(), voters, features);
        let tasks = vec![
            tokio::spawn(load.clone().events(1)),
            tokio::spawn(load.clone().events(2)),
            tokio::spawn(load.clone().documents()),
            tokio::spawn(load.clone().feedback()),
            tokio::spawn(load.clone().votes()),
            tokio::spawn(load.clone().readyz()),
        ];
        Run {
            load,
            db,
            project,
            owner,
            tasks,
            began,
            setup,
        }
    }

    /// Stops the load, waits for the workers to store what was accepted, checks everything and
    /// prints the summary; returns the violations. Requests in flight at one of `cut` (an api
    /// process SIGKILLed under them), or sent within a second after it on a kept-alive
    /// connection to the dead process, may go unanswered: they were never accepted.
    pub async fn finish(
        self,
        name: &str,
        faults: &[Fault],
        cut: &[Duration],
        processes: Vec<String>,
    ) -> Vec<String> {
        self.load.stop();
        let load_end = self.load.now();
        for t in self.tasks {
            t.await.unwrap();
        }
        let drain = checks::wait_drained(&self.db, &self.load, self.project).await;
        let all = self.load.records();
        let at_cut = |x: &crate::load::Record| {
            x.status.is_none()
                && cut
                    .iter()
                    .any(|c| x.end >= *c && x.start <= *c + Duration::from_secs(1))
        };
        let records: Vec<_> = all.iter().filter(|x| !at_cut(x)).cloned().collect();
        let mut report = Report::default();
        checks::statuses(&mut report, &records);
        let mut fault_report = Report::default();
        checks::faults(&mut fault_report, &records, faults, load_end);
        let mut writes = Report::default();
        let emails: Vec<String> = (0..VOTERS).map(voter_email).collect();
        let target = Target {
            db: &self.db,
            project: self.project,
            slug: SLUG,
            owner: &self.owner,
            voter_emails: &emails,
        };
        checks::events(&mut writes, &self.load, &target).await;
        checks::documents(&mut writes, &self.load, &target).await;
        checks::feedback(&mut writes, &self.load, &target).await;
        checks::votes(&mut writes, &self.load, &target).await;
        let violations: Vec<String> = [
            report.violations,
            fault_report.violations,
            writes.violations,
            processes,
        ]
        .concat();
        let outcome = if violations.is_empty() {
            "PASS"
        } else {
            "FAIL"
        };
        println!("\n== {name}: {outcome} ==");
        println!(
            "setup {}, load {} ({} faults), drained {} after the load stopped, {} in all",
            secs(self.setup),
            secs(load_end),
            faults.len(),
            secs(drain),
            secs(self.began.elapsed())
        );
        println!(
            "requests (client timeout {}; {} cut unanswered by an api's SIGKILL):",
            secs(checks::CLIENT_TIMEOUT),
            all.len() - records.len()
        );
        report.lines.iter().for_each(|l| println!("{l}"));
        println!("faults injected:");
        fault_report.lines.iter().for_each(|l| println!("{l}"));
        println!("writes checked (Postgres rows, and the api's own reads):");
        writes.lines.iter().for_each(|l| println!("{l}"));
        if !violations.is_empty() {
            println!("violations:");
            violations.iter().for_each(|v| println!("  - {v}"));
        }
        violations
    }
}
