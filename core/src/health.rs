//! Liveness of a process's loops, after PostHog's `rust/common/health`: each loop registers a
//! component with a deadline and reports a heartbeat every time it comes round. The process is
//! healthy while every component has reported within its deadline; one that never reported is
//! `starting`, one whose last heartbeat is older than its deadline is `stalled` (a loop stuck on a
//! lock, a dead connection, a panic that ended its task). A load balancer or an orchestrator reads
//! it from `/healthz`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

#[derive(Clone, Default)]
pub struct HealthRegistry {
    components: Arc<Mutex<BTreeMap<&'static str, Component>>>,
}

struct Component {
    deadline: Duration,
    last: Option<(Instant, SystemTime)>,
}

/// One loop's heartbeat.
#[derive(Clone)]
pub struct HealthHandle {
    name: &'static str,
    registry: HealthRegistry,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Starting,
    Healthy,
    Stalled,
}

#[derive(Debug, Clone, Serialize)]
pub struct ComponentStatus {
    pub state: State,
    /// When the loop last came round (RFC 3339), if ever.
    pub last_heartbeat: Option<String>,
    pub deadline_secs: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct HealthStatus {
    pub healthy: bool,
    pub components: BTreeMap<&'static str, ComponentStatus>,
}

impl HealthRegistry {
    /// Registers a loop that must report at least every `deadline`.
    pub fn register(&self, name: &'static str, deadline: Duration) -> HealthHandle {
        self.lock().insert(
            name,
            Component {
                deadline,
                last: None,
            },
        );
        HealthHandle {
            name,
            registry: self.clone(),
        }
    }

    pub fn status(&self) -> HealthStatus {
        self.status_at(Instant::now())
    }

    /// The status as of `now` (tests pass a later instant instead of waiting).
    pub fn status_at(&self, now: Instant) -> HealthStatus {
        let components: BTreeMap<_, _> = self
            .lock()
            .iter()
            .map(|(name, c)| {
                let state = match c.last {
                    None => State::Starting,
                    Some((at, _)) if now.saturating_duration_since(at) > c.deadline => {
                        State::Stalled
                    }
                    Some(_) => State::Healthy,
                };
                let last_heartbeat = c.last.map(|(_, wall)| {
                    chrono::DateTime::<chrono::Utc>::from(wall)
                        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
                });
                let status = ComponentStatus {
                    state,
                    last_heartbeat,
                    deadline_secs: c.deadline.as_secs(),
                };
                (*name, status)
            })
            .collect();
        HealthStatus {
            healthy: components.values().all(|c| c.state == State::Healthy),
            components,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<&'static str, Component>> {
        self.components.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl HealthHandle {
    /// The loop came round: it is alive until its deadline passes without another.
    pub fn heartbeat(&self) {
        if let Some(c) = self.registry.lock().get_mut(self.name) {
            c.last = Some((Instant::now(), SystemTime::now()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_is_starting_then_healthy_then_stalled_past_its_deadline() {
        let registry = HealthRegistry::default();
        let events = registry.register("events", Duration::from_secs(30));
        let upkeep = registry.register("upkeep", Duration::from_secs(120));
        let status = registry.status();
        assert!(!status.healthy);
        assert_eq!(status.components["events"].state, State::Starting);
        events.heartbeat();
        upkeep.heartbeat();
        let now = Instant::now();
        assert!(registry.status_at(now).healthy);
        let later = registry.status_at(now + Duration::from_secs(60));
        assert!(!later.healthy);
        assert_eq!(later.components["events"].state, State::Stalled);
        assert_eq!(later.components["upkeep"].state, State::Healthy);
        events.heartbeat();
        assert!(registry.status().healthy);
    }
}
