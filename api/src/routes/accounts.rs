//! Email and password accounts: first-run setup, registration, sign-in, password changes and
//! resets, and the signed-in user's sessions.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use shipmate_accounts::auth::oauth;
use shipmate_accounts::auth::{accounts, resets, sessions, verification, User};
use shipmate_core::params::parse_id;
use shipmate_core::tokens::secrets_equal;
use shipmate_core::AppError;
use shipmate_outbound::notify;
use shipmate_types::accounts::{
    EmailAddress, Login, NewAccount, PasswordChange, PasswordChanged, PasswordReset, Setup,
    VerifyEmail,
};

use super::auth::signed_in;
use super::schemas::{Deleted, Queued, SessionList, SignedIn};
use crate::extract::{AuthLimited, Body, SessionUser};
use crate::problem::{ApiError, ApiResult};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/auth/setup", post(setup))
        .route("/v1/auth/register", post(register))
        .route("/v1/auth/login", post(login))
        .route("/v1/auth/password", post(change_password))
        .route("/v1/auth/password-reset", post(request_reset))
        .route("/v1/auth/password-reset/confirm", post(confirm_reset))
        .route("/v1/auth/verify-email", post(verify_email))
        .route("/v1/auth/verify-email/resend", post(resend_verification))
        .route("/v1/auth/sessions", get(list_sessions))
        .route("/v1/auth/sessions/{session_id}", delete(end_session))
}

/// First run: creates the instance admin with the token printed on the server's log.
#[utoipa::path(post, path = "/v1/auth/setup", tag = "auth",
    request_body = Setup,
    responses((status = 201, body = SignedIn), (status = 401, description = "wrong setup token"), (status = 409, description = "`already_set_up`"), (status = 422, description = "invalid fields"), (status = 429, description = "`SHIPMATE_RATE_AUTH_PER_MINUTE` from this client")))]
pub async fn setup(
    State(state): State<AppState>,
    _: AuthLimited,
    Body(body): Body<Setup>,
) -> ApiResult<Response> {
    if shipmate_accounts::auth::users::any_exist(&state.db).await? {
        return Err(ApiError::from(accounts::already_set_up()));
    }
    if !secrets_equal(&body.token, &state.setup_token) {
        return Err(ApiError::from(AppError::unauthorized(
            "wrong setup token: use the link on the server's log",
        )));
    }
    let name = body.name.unwrap_or_default();
    let user = accounts::setup(&state.db, &body.email, &name, body.password).await?;
    tracing::info!(user = %user.id, "first run: the instance admin was created");
    signed_in(&state, StatusCode::CREATED, user, None).await
}

/// Creates a password account under the instance's registration policy; an `invite` token lets
/// the invited email in and joins its project at once (and verifies the address). Other accounts
/// get a verification email.
#[utoipa::path(post, path = "/v1/auth/register", tag = "auth",
    request_body = NewAccount,
    responses((status = 201, body = SignedIn), (status = 403, description = "`setup_required` before the first-run setup; `registration_closed` by policy or with an invite for another email"), (status = 409, description = "email already registered"), (status = 410, description = "`invite_expired`"), (status = 422, description = "invalid fields"), (status = 429, description = "`SHIPMATE_RATE_AUTH_PER_MINUTE` from this client")))]
pub async fn register(
    State(state): State<AppState>,
    _: AuthLimited,
    Body(body): Body<NewAccount>,
) -> ApiResult<Response> {
    let user = accounts::register(
        &state.db,
        state.settings.registration,
        &body.email,
        &body.name.unwrap_or_default(),
        body.password,
        body.invite.as_deref(),
    )
    .await?;
    if !user.email_verified {
        send_verification(&state, &user).await?;
    }
    signed_in(&state, StatusCode::CREATED, user, None).await
}

/// Queues a verification email where email is configured (without it the dashboard says so).
async fn send_verification(state: &AppState, user: &User) -> ApiResult<()> {
    if !state.mail().configured {
        return Ok(());
    }
    let link = verification::create_link(&state.db, user.id, &state.public_url).await?;
    let deliveries = notify::email_verification(&state.db, &user.email, &link).await?;
    state.deliver(&deliveries).await;
    Ok(())
}

/// Confirms the account's address with the token of the verification email.
#[utoipa::path(post, path = "/v1/auth/verify-email", tag = "auth",
    request_body = VerifyEmail,
    responses((status = 200, body = User), (status = 410, description = "`verification_expired`: unknown, used or expired"), (status = 429, description = "`SHIPMATE_RATE_AUTH_PER_MINUTE` from this client")))]
pub async fn verify_email(
    State(state): State<AppState>,
    _: AuthLimited,
    Body(VerifyEmail { token }): Body<VerifyEmail>,
) -> ApiResult<Json<User>> {
    Ok(Json(verification::confirm(&state.db, &token).await?))
}

/// Sends the signed-in user's verification email again (at most one a minute).
#[utoipa::path(post, path = "/v1/auth/verify-email/resend", tag = "auth", security(("session" = [])),
    responses((status = 202, body = Queued), (status = 409, description = "`already_verified`, or `email_not_configured` where the instance sends no email"), (status = 429, description = "one a minute, or `SHIPMATE_RATE_AUTH_PER_MINUTE` from this client")))]
pub async fn resend_verification(
    State(state): State<AppState>,
    _: AuthLimited,
    session: SessionUser,
) -> ApiResult<(StatusCode, Json<Queued>)> {
    let user = session.user;
    if user.email_verified {
        return Err(ApiError::from(AppError::conflict(
            "already_verified",
            "this address is already verified",
        )));
    }
    if !state.mail().configured {
        return Err(ApiError::from(AppError::conflict(
            "email_not_configured",
            "this instance sends no email (SHIPMATE_SMTP_URL is not set); ask an instance admin",
        )));
    }
    if verification::sent_recently(&state.db, user.id).await? {
        return Err(ApiError::from(AppError::RateLimited {
            retry_after_secs: verification::RESEND_GAP_SECONDS as u64,
        }));
    }
    send_verification(&state, &user).await?;
    Ok((StatusCode::ACCEPTED, Json(Queued::YES)))
}

/// Signs in with email and password. With `cli_callback` (a loopback URL) and the CLI's `state`,
/// the answer's `redirect` hands the session to the command-line tool.
#[utoipa::path(post, path = "/v1/auth/login", tag = "auth",
    request_body = Login,
    responses((status = 200, body = SignedIn), (status = 401, description = "`invalid_credentials`"), (status = 403, description = "`account_disabled`"), (status = 429, description = "10 attempts for this email within 15 minutes, or `SHIPMATE_RATE_AUTH_PER_MINUTE` from this client"), (status = 503, description = "too many password checks at once")))]
pub async fn login(
    State(state): State<AppState>,
    _: AuthLimited,
    Body(body): Body<Login>,
) -> ApiResult<Response> {
    let cli = match body.cli_callback {
        Some(cb) => Some(oauth::parse_destination(
            None,
            Some(&cb),
            body.state.as_deref(),
        )?),
        None => None,
    };
    let user = accounts::login(&state.db, &body.email, body.password).await?;
    signed_in(&state, StatusCode::OK, user, cli).await
}

/// Sets a new password (the current one is needed when the account has one); every other session
/// ends.
#[utoipa::path(post, path = "/v1/auth/password", tag = "auth", security(("session" = [])),
    request_body = PasswordChange,
    responses((status = 200, body = PasswordChanged), (status = 422, description = "wrong current password or invalid new one")))]
pub async fn change_password(
    State(state): State<AppState>,
    session: SessionUser,
    Body(body): Body<PasswordChange>,
) -> ApiResult<Json<PasswordChanged>> {
    accounts::change_password(
        &state.db,
        session.user.id,
        session.session_id,
        body.current_password,
        body.password,
    )
    .await?;
    Ok(Json(PasswordChanged { changed: true }))
}

/// Asks for a reset link by email. Always 202, whether or not the account exists; at most one
/// email per account per 5 minutes.
#[utoipa::path(post, path = "/v1/auth/password-reset", tag = "auth",
    request_body = EmailAddress,
    responses((status = 202, body = Queued), (status = 429, description = "`SHIPMATE_RATE_AUTH_PER_MINUTE` from this client")))]
pub async fn request_reset(
    State(state): State<AppState>,
    _: AuthLimited,
    Body(EmailAddress { email }): Body<EmailAddress>,
) -> ApiResult<(StatusCode, Json<Queued>)> {
    if let Some(user) = resets::account_for(&state.db, &email).await? {
        if resets::emailed_recently(&state.db, user).await? {
            // The answer stays 202: it must not tell whether the address has an account.
            tracing::info!("password reset asked again within 5 minutes; no email sent");
        } else if state.mail().configured {
            let link =
                resets::create_link(&state.db, user, &state.public_url, resets::Via::Email).await?;
            let deliveries = notify::password_reset(&state.db, &email, &link).await?;
            state.deliver(&deliveries).await;
        } else {
            // Without SMTP an instance admin makes the link; the link itself is never logged.
            tracing::info!("password reset asked for an account, but email is not configured");
        }
    }
    Ok((StatusCode::ACCEPTED, Json(Queued::YES)))
}

/// Uses a reset link: sets the password, ends every session of the account and signs in.
#[utoipa::path(post, path = "/v1/auth/password-reset/confirm", tag = "auth",
    request_body = PasswordReset,
    responses((status = 200, body = SignedIn), (status = 410, description = "`reset_expired`: unknown, used or expired"), (status = 422, description = "invalid password"), (status = 429, description = "`SHIPMATE_RATE_AUTH_PER_MINUTE` from this client")))]
pub async fn confirm_reset(
    State(state): State<AppState>,
    _: AuthLimited,
    Body(body): Body<PasswordReset>,
) -> ApiResult<Response> {
    let user = resets::confirm(&state.db, &body.token, body.password).await?;
    signed_in(&state, StatusCode::OK, user, None).await
}

/// The signed-in user's live sessions; `current` marks this one.
#[utoipa::path(get, path = "/v1/auth/sessions", tag = "auth", security(("session" = [])),
    responses((status = 200, body = shipmate_types::common::List<shipmate_types::accounts::SessionInfo>)))]
pub async fn list_sessions(
    State(state): State<AppState>,
    session: SessionUser,
) -> ApiResult<Json<SessionList>> {
    let data = sessions::list(&state.db, session.user.id, session.session_id).await?;
    Ok(Json(data.into()))
}

/// Ends one of the user's sessions: its token answers 401 from then on.
#[utoipa::path(delete, path = "/v1/auth/sessions/{session_id}", tag = "auth", security(("session" = [])),
    responses((status = 200, body = Deleted), (status = 404, description = "no such session of yours")))]
pub async fn end_session(
    State(state): State<AppState>,
    session: SessionUser,
    Path(id): Path<String>,
) -> ApiResult<Json<Deleted>> {
    let id = parse_id(&id, "session")?;
    sessions::revoke_by_id(&state.db, session.user.id, id, false).await?;
    Ok(Json(Deleted::new(id)))
}
