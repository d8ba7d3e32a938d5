pub mod deliver;
pub mod embed;
pub mod events;
pub mod housekeeping;
pub mod schedules;
pub mod similar;
pub mod upkeep;

/// Names the projects a job's claim serves on its span: `project_id` when it serves one (most
/// claims on a quiet instance), and how many it serves (`projects`), since batches mix tenants.
pub(crate) fn record_projects(span: &tracing::Span, ids: impl IntoIterator<Item = uuid::Uuid>) {
    let mut ids: Vec<uuid::Uuid> = ids.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    span.record("projects", ids.len());
    if let [one] = ids[..] {
        span.record("project_id", tracing::field::display(one));
    }
}
