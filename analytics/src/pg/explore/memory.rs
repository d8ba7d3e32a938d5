//! What the api keeps of each project: its kept days and the dictionary their codes index, both
//! counted against the memory budget. A project's dictionary only names the codes of its own days
//! (kept, or held by a read through its `Arc<Project>`), so it goes from the map with its last
//! kept day and the next read interns afresh into a new one: no held code ever points into
//! another dictionary.

use std::collections::HashMap;
use std::mem::size_of;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, RwLock};

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::day::Day;

/// Interned values of a project's string columns: code 0 is "none", `PAGE_VIEW` is `page_view`.
pub(super) struct Dict {
    pub(super) codes: HashMap<Arc<str>, u32>,
    pub(super) values: Vec<Arc<str>>,
    /// The values' own bytes, with their `Arc`'s counts.
    text: usize,
}

impl Dict {
    fn new() -> Self {
        // Code 0 has no entry in `codes`: no value looks it up.
        let mut d = Dict {
            codes: HashMap::new(),
            values: vec![Arc::from("")],
            text: 2 * size_of::<usize>(),
        };
        d.intern("page_view");
        d
    }

    fn intern(&mut self, value: &str) -> u32 {
        if let Some(&c) = self.codes.get(value) {
            return c;
        }
        let v: Arc<str> = Arc::from(value);
        let code = self.values.len() as u32;
        self.text += value.len() + 2 * size_of::<usize>();
        self.values.push(v.clone());
        self.codes.insert(v, code);
        code
    }

    /// Bytes held, about: the values, the list's slots and the map's (with its control byte).
    fn bytes(&self) -> usize {
        self.text
            + self.values.capacity() * size_of::<Arc<str>>()
            + self.codes.capacity() * (size_of::<(Arc<str>, u32)>() + 1)
    }
}

/// A kept day: its events before `upto`, as of the day's `generation`.
pub(super) struct Kept {
    pub(super) generation: i64,
    pub(super) upto: DateTime<Utc>,
    pub(super) day: Arc<Day>,
    pub(super) used: u64,
}

pub(super) struct Project {
    pub(super) dict: RwLock<Dict>,
    /// `dict.bytes()` as of its last change, so eviction need not wait on the dictionary.
    dict_bytes: AtomicUsize,
    pub(super) days: Mutex<HashMap<NaiveDate, Kept>>,
    /// One read loads a project's missing days at a time; others then find them kept.
    pub(super) loading: tokio::sync::Mutex<()>,
}

impl Project {
    fn new() -> Self {
        let dict = Dict::new();
        Project {
            dict_bytes: AtomicUsize::new(dict.bytes()),
            dict: RwLock::new(dict),
            days: Mutex::new(HashMap::new()),
            loading: tokio::sync::Mutex::new(()),
        }
    }

    /// Interns a read's own dictionary (values to codes from 1) under one lock: the project's
    /// code of each local code.
    pub(super) fn intern(&self, local: &HashMap<String, u32>) -> Vec<u32> {
        let mut map = vec![0u32; local.len() + 1];
        let mut dict = self.dict.write().unwrap_or_else(|e| e.into_inner());
        for (value, c) in local {
            map[*c as usize] = dict.intern(value);
        }
        self.dict_bytes.store(dict.bytes(), Ordering::Relaxed);
        map
    }
}

pub(super) struct Explorer {
    projects: Mutex<HashMap<Uuid, Arc<Project>>>,
    budget: AtomicUsize,
    clock: AtomicU64,
}

pub(super) static EXPLORER: LazyLock<Explorer> = LazyLock::new(|| Explorer::new(1024 << 20));

/// Most bytes of events (and the dictionaries naming their values) this process keeps in memory.
pub fn set_memory_budget(bytes: usize) {
    EXPLORER.budget.store(bytes, Ordering::Relaxed);
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Explorer {
    fn new(budget: usize) -> Self {
        Explorer {
            projects: Mutex::new(HashMap::new()),
            budget: AtomicUsize::new(budget),
            clock: AtomicU64::new(0),
        }
    }

    pub(super) fn project(&self, id: Uuid) -> Arc<Project> {
        lock(&self.projects)
            .entry(id)
            .or_insert_with(|| Arc::new(Project::new()))
            .clone()
    }

    pub(super) fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    /// Drops the days used longest ago, and each project's dictionary with its last day, until
    /// both fit the budget. Holds the map throughout (then each project's days), so no read
    /// takes a project being dropped.
    pub(super) fn evict(&self) {
        let budget = self.budget.load(Ordering::Relaxed);
        let mut projects = lock(&self.projects);
        // A project without kept days that no read holds (the map has the only reference):
        // its dictionary names nothing, and the next read interns all it loads again anyway.
        projects.retain(|_, p| Arc::strong_count(p) > 1 || !lock(&p.days).is_empty());
        let mut kept: Vec<(u64, usize, Uuid, NaiveDate)> = Vec::new();
        let mut total = 0;
        for (id, project) in projects.iter() {
            total += project.dict_bytes.load(Ordering::Relaxed);
            for (day, k) in lock(&project.days).iter() {
                total += k.day.bytes();
                kept.push((k.used, k.day.bytes(), *id, *day));
            }
        }
        if total <= budget {
            return;
        }
        kept.sort_unstable();
        for (_, bytes, id, day) in kept {
            if total <= budget {
                return;
            }
            let Some(project) = projects.get(&id) else {
                continue;
            };
            let mut days = lock(&project.days);
            days.remove(&day);
            total -= bytes;
            if days.is_empty() {
                drop(days);
                if let Some(project) = projects.remove(&id) {
                    total -= project.dict_bytes.load(Ordering::Relaxed);
                }
            }
        }
        // Still over: what is left are dictionaries of reads under way without kept days (one
        // read's values alone pass the budget). The reads keep theirs; the next starts afresh.
        if total > budget {
            projects.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::day::{Ev, PAGE};
    use super::*;

    /// Bytes the explorer counts: every mapped project's dictionary and kept days.
    fn held(explorer: &Explorer) -> usize {
        lock(&explorer.projects)
            .values()
            .map(|p| {
                let days: usize = lock(&p.days).values().map(|k| k.day.bytes()).sum();
                p.dict_bytes.load(Ordering::Relaxed) + days
            })
            .sum()
    }

    /// Interns `n` distinct paths into the project's dictionary: the code of `/{tag}/{i}` at `i`.
    fn paths(project: &Project, tag: &str, n: u32) -> Vec<u32> {
        let local: HashMap<String, u32> = (0..n).map(|i| (format!("/{tag}/{i}"), i + 1)).collect();
        project.intern(&local)[1..].to_vec()
    }

    /// Keeps a day of `events` page views, the first at path code `page`.
    fn keep(explorer: &Explorer, project: &Project, date: &str, events: i64, page: u32) {
        let evs = (0..events).map(|i| Ev::of(i, i, &[(PAGE, page)])).collect();
        let day: NaiveDate = date.parse().unwrap();
        lock(&project.days).insert(
            day,
            Kept {
                generation: 1,
                upto: day.and_hms_opt(0, 0, 0).unwrap().and_utc(),
                day: Arc::new(Day::build(evs)),
                used: explorer.tick(),
            },
        );
    }

    fn days(project: &Project) -> Vec<NaiveDate> {
        let mut days: Vec<NaiveDate> = lock(&project.days).keys().copied().collect();
        days.sort_unstable();
        days
    }

    #[test]
    fn the_dictionary_counts_toward_the_budget() {
        let explorer = Explorer::new(0);
        let id = Uuid::new_v4();
        let project = explorer.project(id);
        let codes = paths(&project, "unique", 2_000);
        keep(&explorer, &project, "2024-03-01", 20_000, codes[0]);
        keep(&explorer, &project, "2024-03-02", 20_000, codes[1]);
        let dict = project.dict_bytes.load(Ordering::Relaxed);
        let days_bytes = held(&explorer) - dict;
        assert!(dict > 2_000 * 40, "an honest estimate: {dict} bytes");
        // The days fit alone, not with the dictionary: the older day goes.
        explorer
            .budget
            .store(days_bytes + dict / 2, Ordering::Relaxed);
        explorer.evict();
        assert_eq!(days(&project), vec!["2024-03-02".parse().unwrap()]);
        assert!(held(&explorer) <= days_bytes + dict / 2);
    }

    #[test]
    fn a_projects_dictionary_goes_with_its_last_day() {
        let explorer = Explorer::new(0);
        let (old, new) = (Uuid::new_v4(), Uuid::new_v4());
        let stale = explorer.project(old);
        let codes = paths(&stale, "old", 20_000);
        keep(&explorer, &stale, "2024-03-01", 100, codes[7]);
        let fresh = explorer.project(new);
        paths(&fresh, "new", 10);
        keep(&explorer, &fresh, "2024-03-01", 100, 2);
        // Room for `new` and `old`'s day, not `old`'s dictionary.
        let dict = stale.dict_bytes.load(Ordering::Relaxed);
        explorer
            .budget
            .store(held(&explorer) - dict, Ordering::Relaxed);
        explorer.evict();
        assert!(days(&stale).is_empty());
        assert_eq!(days(&fresh).len(), 1);
        assert!(!lock(&explorer.projects).contains_key(&old));
        // A read still holding the project names its codes; the next read interns afresh.
        assert_eq!(
            &*stale.dict.read().unwrap().values[codes[7] as usize],
            "/old/7"
        );
        let again = explorer.project(old);
        assert!(!Arc::ptr_eq(&stale, &again));
        assert_eq!(again.dict.read().unwrap().values.len(), 2);
        drop((stale, again, fresh));
        explorer.budget.store(0, Ordering::Relaxed);
        explorer.evict();
        assert_eq!(held(&explorer), 0);
        assert!(lock(&explorer.projects).is_empty());
    }

    #[test]
    fn a_dictionary_without_days_stays_only_while_read() {
        let explorer = Explorer::new(1 << 30);
        let id = Uuid::new_v4();
        let read = explorer.project(id);
        let codes = paths(&read, "fresh", 20_000);
        explorer.evict();
        assert!(lock(&explorer.projects).contains_key(&id));
        // One read's values alone pass the budget: dropped from the map, still whole for it.
        explorer.budget.store(1_000, Ordering::Relaxed);
        explorer.evict();
        assert_eq!(held(&explorer), 0);
        assert_eq!(
            &*read.dict.read().unwrap().values[codes[3] as usize],
            "/fresh/3"
        );
        // Within the budget, but no read holds it any more.
        explorer.budget.store(1 << 30, Ordering::Relaxed);
        drop(explorer.project(id));
        assert!(held(&explorer) > 0);
        explorer.evict();
        assert_eq!(held(&explorer), 0);
    }
}
