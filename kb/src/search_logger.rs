//! Searches are logged off the search's path: a search hands its row to the logger and answers,
//! and one task per process writes the rows, in batches when they come faster than one write. A
//! read that must see every search made before it (the analytics read, a click, the gaps) first
//! waits for the rows queued before it.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sqlx::PgPool;
use tokio::sync::{mpsc, watch};
use uuid::Uuid;

use crate::search_log::{self, Logged};

/// Rows waiting at most; past them (the database away or slower than the searches) a search is not
/// logged rather than slowed.
const QUEUE: usize = 10_000;
/// Rows in one write at most.
const BATCH: usize = 500;
/// How long a read waits for the rows queued before it at most.
const SETTLE: Duration = Duration::from_secs(2);

/// The process's search logger (cheap to clone); `off` logs nothing.
#[derive(Clone)]
pub struct Logger(Option<Arc<Inner>>);

struct Inner {
    /// The last row's number and the queue, together: rows enter in the order of their numbers.
    queue: Mutex<(u64, mpsc::Sender<(u64, Logged)>)>,
    /// The number of the last row written (or given up on).
    written: watch::Receiver<u64>,
}

impl Logger {
    /// Starts the writing task (on the current tokio runtime).
    pub fn start(db: PgPool) -> Logger {
        let (tx, rx) = mpsc::channel(QUEUE);
        let (done, written) = watch::channel(0);
        tokio::spawn(write_forever(db, rx, done));
        Logger(Some(Arc::new(Inner {
            queue: Mutex::new((0, tx)),
            written,
        })))
    }

    pub fn off() -> Logger {
        Logger(None)
    }

    /// Queues the search for writing; answers its id (also when it is not logged, an id that
    /// nothing will find).
    pub fn log(&self, row: Logged) -> Uuid {
        let id = row.id;
        let Some(inner) = &self.0 else { return id };
        let mut queue = inner.queue.lock().unwrap_or_else(PoisonError::into_inner);
        let (last, tx) = &mut *queue;
        match tx.try_send((*last + 1, row)) {
            Ok(()) => *last += 1,
            Err(_) => tracing::warn!(search_id = %id, "search log queue full: search not logged"),
        }
        id
    }

    /// Waits until every search queued before now is written (at most a couple of seconds).
    pub async fn settled(&self) {
        let Some(inner) = &self.0 else { return };
        let target = inner.queue.lock().unwrap_or_else(PoisonError::into_inner).0;
        let mut written = inner.written.clone();
        let caught_up = written.wait_for(|n| *n >= target);
        if tokio::time::timeout(SETTLE, caught_up).await.is_err() {
            tracing::warn!("the search log is behind: reading without its latest searches");
        }
    }
}

async fn write_forever(
    db: PgPool,
    mut rx: mpsc::Receiver<(u64, Logged)>,
    done: watch::Sender<u64>,
) {
    let mut batch = Vec::with_capacity(BATCH);
    while rx.recv_many(&mut batch, BATCH).await > 0 {
        let last = batch.last().map_or(0, |(n, _)| *n);
        let rows: Vec<Logged> = batch.drain(..).map(|(_, row)| row).collect();
        // Analytics are no reason to fail a search: rows the database refused are dropped.
        if let Err(e) = search_log::write(&db, &rows).await {
            tracing::warn!(error = %e, rows = rows.len(), "searches not logged for analytics");
        }
        done.send_replace(last);
    }
}
