//! Boards: a project's entries split by who may see them. Every read path asks `Visible` (the
//! boards a caller sees in one project) or `entry_board` (one entry's board) before it answers;
//! an entry on a board the caller may not see is not found.

use serde_json::{Map, Value};
use sqlx::PgPool;
use uuid::Uuid;

use shipmate_core::error::on_constraint;
use shipmate_core::{AppError, AppResult};

pub use shipmate_types::boards::{Board, BoardChanges, NewBoard, DEFAULT_SLUG};
pub use shipmate_types::BoardVisibility;

/// How many boards a project may have: spaces for audiences, not one per topic (tags are that).
const MAX_PER_PROJECT: i64 = 50;

const COLUMNS: &str = "id, name, slug, visibility, segment, is_default, created_at";

/// Who asks, as far as boards care.
#[derive(Debug, Clone)]
pub enum Audience {
    /// A member of the project's team (any role): every board.
    Team,
    /// An end user identified in the project, with their identify token's attributes.
    EndUser(Map<String, Value>),
    /// Anyone else: public boards only.
    Public,
}

impl Audience {
    pub fn sees(&self, board: &Board) -> bool {
        match (self, board.visibility) {
            (Audience::Team, _) | (_, BoardVisibility::Public) => true,
            (Audience::EndUser(attributes), BoardVisibility::Segment) => board.admits(attributes),
            _ => false,
        }
    }
}

/// The boards of a project one caller may see.
#[derive(Debug, Clone)]
pub struct Visible {
    pub boards: Vec<Board>,
    /// Every board of the project is among them: listings need no board filter.
    pub all: bool,
}

impl Visible {
    /// The board ids a listing keeps to, or `None` when it may show every board.
    pub fn filter(&self) -> Option<Vec<Uuid>> {
        (!self.all).then(|| self.boards.iter().map(|b| b.id).collect())
    }

    /// A visible board by slug; another project's board, or one the caller may not see, is 404.
    pub fn by_slug(&self, slug: &str) -> AppResult<&Board> {
        self.boards
            .iter()
            .find(|b| b.slug == slug)
            .ok_or_else(|| AppError::not_found("board"))
    }

    pub fn contains(&self, id: Uuid) -> bool {
        self.boards.iter().any(|b| b.id == id)
    }

    /// Where an entry goes: the board of this slug, else the default board; 404 when the caller
    /// may not see it.
    pub fn target(&self, slug: Option<&str>) -> AppResult<&Board> {
        match slug {
            Some(slug) => self.by_slug(slug),
            None => self
                .boards
                .iter()
                .find(|b| b.is_default)
                .ok_or_else(|| AppError::not_found("board")),
        }
    }

    /// The listing's board filter: one board by slug (404 unless visible), else every visible one.
    pub fn listing(&self, slug: Option<&str>) -> AppResult<Option<Vec<Uuid>>> {
        match slug {
            Some(slug) => Ok(Some(vec![self.by_slug(slug)?.id])),
            None => Ok(self.filter()),
        }
    }
}

pub async fn list(db: &PgPool, project_id: Uuid) -> AppResult<Vec<Board>> {
    Ok(sqlx::query_as::<_, Board>(&format!(
        "select {COLUMNS} from feedback_boards where project_id = $1
         order by is_default desc, lower(name), id"
    ))
    .bind(project_id)
    .fetch_all(db)
    .await?)
}

/// The project's boards the audience may see.
pub async fn visible(db: &PgPool, project_id: Uuid, audience: &Audience) -> AppResult<Visible> {
    let boards = list(db, project_id).await?;
    let total = boards.len();
    let boards: Vec<Board> = boards.into_iter().filter(|b| audience.sees(b)).collect();
    Ok(Visible {
        all: boards.len() == total,
        boards,
    })
}

/// An entry's project and board, for the read paths that start from an entry's id.
pub async fn entry_board(db: &PgPool, feedback_id: Uuid) -> AppResult<(Uuid, Board)> {
    let project_id: Uuid =
        sqlx::query_scalar!("select project_id from feedback where id = $1", feedback_id)
            .fetch_optional(db)
            .await?
            .ok_or_else(|| AppError::not_found("feedback entry"))?;
    let board = sqlx::query_as::<_, Board>(&format!(
        "select {COLUMNS} from feedback_boards
         where id = (select board_id from feedback where id = $1)"
    ))
    .bind(feedback_id)
    .fetch_one(db)
    .await?;
    Ok((project_id, board))
}

pub async fn get(db: &PgPool, project_id: Uuid, id: Uuid) -> AppResult<Board> {
    sqlx::query_as::<_, Board>(&format!(
        "select {COLUMNS} from feedback_boards where project_id = $1 and id = $2"
    ))
    .bind(project_id)
    .bind(id)
    .fetch_optional(db)
    .await?
    .ok_or_else(|| AppError::not_found("board"))
}

const SLUG_TAKEN: (&str, &str, &str) = (
    "feedback_boards_slug",
    "board_exists",
    "the project has a board with this slug",
);

pub async fn create(db: &PgPool, project_id: Uuid, new: NewBoard) -> AppResult<Board> {
    let mut tx = db.begin().await?;
    super::under_limit(
        &mut tx,
        project_id,
        "feedback_boards",
        MAX_PER_PROJECT,
        "too_many_boards",
        "boards",
    )
    .await?;
    let board = sqlx::query_as::<_, Board>(&format!(
        "insert into feedback_boards (id, project_id, name, slug, visibility, segment)
         values ($1, $2, $3, $4, $5, $6) returning {COLUMNS}"
    ))
    .bind(Uuid::now_v7())
    .bind(project_id)
    .bind(new.name.trim())
    .bind(&new.slug)
    .bind(new.visibility.unwrap_or(BoardVisibility::Public))
    .bind(new.segment.map(Value::Object))
    .fetch_one(&mut *tx)
    .await
    .map_err(on_constraint(SLUG_TAKEN.0, SLUG_TAKEN.1, SLUG_TAKEN.2))?;
    tx.commit().await?;
    Ok(board)
}

/// Applies the changes; a board turned `segment` keeps or gets a segment (else 422 naming
/// `segment`), one turned `public` or `private` drops it.
pub async fn update(
    db: &PgPool,
    project_id: Uuid,
    id: Uuid,
    changes: BoardChanges,
) -> AppResult<Board> {
    let board = get(db, project_id, id).await?;
    let visibility = changes.visibility.unwrap_or(board.visibility);
    let segment = match visibility {
        BoardVisibility::Segment => Some(changes.segment.or(board.segment).ok_or_else(|| {
            AppError::invalid(
                "validation_failed",
                "segment",
                "is required for boards with `visibility: segment`",
            )
        })?),
        _ if changes.segment.is_some() => {
            return Err(AppError::invalid(
                "validation_failed",
                "segment",
                "is only for boards with `visibility: segment`",
            ))
        }
        _ => None,
    };
    sqlx::query_as::<_, Board>(&format!(
        "update feedback_boards set name = $3, slug = $4, visibility = $5, segment = $6
         where project_id = $1 and id = $2 returning {COLUMNS}"
    ))
    .bind(project_id)
    .bind(id)
    .bind(
        changes
            .name
            .as_deref()
            .map_or(board.name.as_str(), str::trim),
    )
    .bind(changes.slug.as_deref().unwrap_or(&board.slug))
    .bind(visibility)
    .bind(segment.map(Value::Object))
    .fetch_optional(db)
    .await
    .map_err(on_constraint(SLUG_TAKEN.0, SLUG_TAKEN.1, SLUG_TAKEN.2))?
    .ok_or_else(|| AppError::not_found("board"))
}

/// Deletes a board. The default board stays (409); a board with entries needs `move_to`, another
/// board of the project that takes them (else 409 `board_not_empty`).
pub async fn delete(
    db: &PgPool,
    project_id: Uuid,
    id: Uuid,
    move_to: Option<Uuid>,
) -> AppResult<()> {
    let board = get(db, project_id, id).await?;
    if board.is_default {
        return Err(AppError::conflict(
            "default_board",
            "the default board cannot be deleted",
        ));
    }
    let mut tx = db.begin().await?;
    match move_to {
        Some(target) if target == id => {
            return Err(AppError::invalid(
                "validation_failed",
                "move_to",
                "must be another board",
            ))
        }
        Some(target) => {
            let known = sqlx::query_scalar!(
                r#"select count(*) as "n!" from feedback_boards where project_id = $1 and id = $2"#,
                project_id,
                target
            )
            .fetch_one(&mut *tx)
            .await?;
            if known == 0 {
                return Err(AppError::invalid(
                    "validation_failed",
                    "move_to",
                    "must be a board of this project",
                ));
            }
            sqlx::query!(
                "update feedback set board_id = $2, updated_at = now() where board_id = $1",
                id,
                target
            )
            .execute(&mut *tx)
            .await?;
        }
        None => {
            let holds = sqlx::query_scalar!(
                r#"select exists (select 1 from feedback where board_id = $1) as "holds!""#,
                id
            )
            .fetch_one(&mut *tx)
            .await?;
            if holds {
                return Err(AppError::conflict(
                    "board_not_empty",
                    "the board has entries: pass ?move_to=<boardId> to move them first",
                ));
            }
        }
    }
    sqlx::query!(
        "delete from feedback_boards where project_id = $1 and id = $2",
        project_id,
        id
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}
