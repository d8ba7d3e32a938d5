//! The public roadmap: approved feature requests the team accepted (`on_roadmap`) that are
//! planned, in progress, or shipped in the last 90 days, each column in the board's `top` order.

use sqlx::PgPool;
use uuid::Uuid;

use super::{Feedback, FeedbackStatus, COLUMNS, PUBLIC};
use shipmate_core::AppResult;

pub use shipmate_types::feedback::Roadmap;

/// The roadmap, or its entries with tag `tag`, on the boards `boards` (`None`: every board).
pub async fn roadmap(
    db: &PgPool,
    project_id: Uuid,
    tag: Option<Uuid>,
    boards: Option<&[Uuid]>,
) -> AppResult<Roadmap> {
    let entries = sqlx::query_as::<_, Feedback>(&format!(
        "select {COLUMNS} from feedback
         where project_id = $1 and {PUBLIC} and on_roadmap and type = 'feature'
           and (status in ('planned', 'in_progress')
                or (status = 'shipped' and status_changed_at > now() - interval '90 days'))
           and ($2::uuid is null or tag_ids @> array[$2::uuid])
           and ($3::uuid[] is null or board_id = any($3))
         order by upvotes - downvotes desc, created_at desc, id desc"
    ))
    .bind(project_id)
    .bind(tag)
    .bind(boards)
    .fetch_all(db)
    .await?;
    let column = |status| {
        entries
            .iter()
            .filter(|e| e.status == status)
            .cloned()
            .map(Feedback::public)
            .collect()
    };
    Ok(Roadmap {
        planned: column(FeedbackStatus::Planned),
        in_progress: column(FeedbackStatus::InProgress),
        shipped: column(FeedbackStatus::Shipped),
    })
}
