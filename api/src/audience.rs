//! Who asks, as boards see it: a member of the project's team, an end user identified in the
//! project (with their identify token's attributes), or the public. Every feedback read path
//! answers only from the boards its caller may see; an entry on any other board is 404.

use shipmate_accounts::projects;
use shipmate_accounts::teams::Role;
use shipmate_core::error::Refusal;
use shipmate_core::AppError;
use shipmate_feedback::feedback::boards::{self, Audience, Visible};
use shipmate_feedback::feedback::Participant;
use uuid::Uuid;

use crate::extract::Actor;
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

/// The caller's audience in one project: a dashboard account that is no member of it, or an end
/// user of another project, is the public there.
pub async fn of(state: &AppState, actor: Option<&Actor>, project_id: Uuid) -> ApiResult<Audience> {
    match actor.map(|a| (a.who, &a.attributes)) {
        Some((Participant::User(user), _)) => team_or_public(state, user, project_id).await,
        Some((Participant::EndUser { project_id: p, .. }, attributes)) if p == project_id => {
            Ok(Audience::EndUser(attributes.clone().unwrap_or_default()))
        }
        _ => Ok(Audience::Public),
    }
}

/// A dashboard account's audience: the team (any role), else the public.
pub async fn team_or_public(state: &AppState, user: Uuid, project_id: Uuid) -> ApiResult<Audience> {
    match projects::access(&state.db, user, project_id, Role::Viewer).await {
        Ok(_) => Ok(Audience::Team),
        Err(e) if e.refusal() == Some(Refusal::Forbidden) => Ok(Audience::Public),
        Err(e) => Err(ApiError::from(e)),
    }
}

/// The project's boards the caller may see.
pub async fn visible(
    state: &AppState,
    actor: Option<&Actor>,
    project_id: Uuid,
) -> ApiResult<Visible> {
    let audience = of(state, actor, project_id).await?;
    Ok(boards::visible(&state.db, project_id, &audience).await?)
}

/// The entry's project, when the caller may see the entry's board (else 404, as if it did not
/// exist).
pub async fn check_entry(state: &AppState, actor: Option<&Actor>, id: Uuid) -> ApiResult<Uuid> {
    let (project_id, board) = boards::entry_board(&state.db, id).await?;
    if !of(state, actor, project_id).await?.sees(&board) {
        return Err(ApiError::from(AppError::not_found("feedback entry")));
    }
    Ok(project_id)
}
