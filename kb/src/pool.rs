//! Who runs next on a local model's sessions. Queries (one short text, a person waiting) go before
//! document batches, and within each kind the tenants (projects) take turns, each with a bounded
//! queue: one project's burst of searches waits behind itself, not in front of everyone else.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::{Condvar, Mutex};

use super::embed::InputKind;

/// A tenant already has as many jobs of this kind waiting as it may: the caller should back off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("too many embeddings of this project are waiting for the model")
    }
}

impl std::error::Error for Busy {}

/// Jobs of one kind: a queue per tenant, and the tenants with waiting jobs in turn order.
struct Lane<K, T> {
    turns: VecDeque<K>,
    waiting: HashMap<K, VecDeque<T>>,
}

impl<K: Eq + Hash + Clone, T> Lane<K, T> {
    fn new() -> Self {
        Lane {
            turns: VecDeque::new(),
            waiting: HashMap::new(),
        }
    }

    fn push(&mut self, tenant: K, job: T, limit: usize) -> Result<(), Busy> {
        let queue = self.waiting.entry(tenant.clone()).or_default();
        if queue.len() >= limit {
            return Err(Busy);
        }
        if queue.is_empty() {
            self.turns.push_back(tenant);
        }
        queue.push_back(job);
        Ok(())
    }

    /// The next tenant's oldest job; that tenant goes to the back of the turn order.
    fn pop(&mut self) -> Option<T> {
        let tenant = self.turns.pop_front()?;
        let queue = self.waiting.get_mut(&tenant)?;
        let job = queue.pop_front();
        if queue.is_empty() {
            self.waiting.remove(&tenant);
        } else {
            self.turns.push_back(tenant);
        }
        job
    }
}

struct State<K, T> {
    queries: Lane<K, T>,
    documents: Lane<K, T>,
    closed: bool,
}

/// A blocking multi-producer, multi-consumer queue: callers `push`, the session threads `pop`.
pub struct FairQueue<K, T> {
    state: Mutex<State<K, T>>,
    ready: Condvar,
    /// Jobs one tenant may have waiting per kind.
    limit: usize,
}

impl<K: Eq + Hash + Clone, T> FairQueue<K, T> {
    pub fn new(limit: usize) -> Self {
        FairQueue {
            state: Mutex::new(State {
                queries: Lane::new(),
                documents: Lane::new(),
                closed: false,
            }),
            ready: Condvar::new(),
            limit: limit.max(1),
        }
    }

    pub fn push(&self, kind: InputKind, tenant: K, job: T) -> Result<(), Busy> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match kind {
            InputKind::Query => state.queries.push(tenant, job, self.limit)?,
            InputKind::Document => state.documents.push(tenant, job, self.limit)?,
        }
        drop(state);
        self.ready.notify_one();
        Ok(())
    }

    /// The next job without waiting.
    pub fn try_pop(&self) -> Option<T> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        Self::next(&mut state)
    }

    /// The next job, waiting for one; `None` once the queue is closed and empty.
    pub fn pop(&self) -> Option<T> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(job) = Self::next(&mut state) {
                return Some(job);
            }
            if state.closed {
                return None;
            }
            state = self.ready.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Wakes every `pop`; they return what is still queued, then `None`.
    pub fn close(&self) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).closed = true;
        self.ready.notify_all();
    }

    fn next(state: &mut State<K, T>) -> Option<T> {
        state.queries.pop().or_else(|| state.documents.pop())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use InputKind::{Document, Query};

    fn drain(q: &FairQueue<&'static str, u32>) -> Vec<u32> {
        std::iter::from_fn(|| q.try_pop()).collect()
    }

    #[test]
    fn another_projects_query_is_next_after_a_burst_began() {
        let q = FairQueue::new(64);
        for i in 0..10 {
            q.push(Query, "a", i).unwrap();
        }
        q.push(Query, "b", 100).unwrap();
        q.push(Query, "b", 101).unwrap();
        // A's burst of ten is interleaved with B's two, not in front of them.
        assert_eq!(drain(&q), [0, 100, 1, 101, 2, 3, 4, 5, 6, 7, 8, 9]);
    }

    #[test]
    fn queries_go_before_document_batches() {
        let q = FairQueue::new(64);
        q.push(Document, "a", 1).unwrap();
        q.push(Document, "a", 2).unwrap();
        q.push(Query, "b", 3).unwrap();
        assert_eq!(q.try_pop(), Some(3));
        q.push(Query, "a", 4).unwrap();
        assert_eq!(drain(&q), [4, 1, 2]);
    }

    #[test]
    fn a_tenants_queue_is_bounded_and_others_are_not_affected() {
        let q = FairQueue::new(2);
        q.push(Query, "a", 1).unwrap();
        q.push(Query, "a", 2).unwrap();
        assert_eq!(q.push(Query, "a", 3), Err(Busy));
        q.push(Query, "b", 4).unwrap();
        // Documents have their own bound.
        q.push(Document, "a", 5).unwrap();
        assert_eq!(q.try_pop(), Some(1));
        // Room again once one of A's jobs has started.
        q.push(Query, "a", 6).unwrap();
        assert_eq!(drain(&q), [4, 2, 6, 5]);
    }

    #[test]
    fn a_closed_queue_hands_out_what_is_left_then_stops() {
        let q = std::sync::Arc::new(FairQueue::new(8));
        let waiter = {
            let q = q.clone();
            std::thread::spawn(move || std::iter::from_fn(|| q.pop()).collect::<Vec<u32>>())
        };
        q.push(Query, "a", 1).unwrap();
        q.push(Document, "b", 2).unwrap();
        q.close();
        let mut got = waiter.join().unwrap();
        got.sort_unstable();
        assert_eq!(got, [1, 2]);
        assert_eq!(q.pop(), None);
    }
}
