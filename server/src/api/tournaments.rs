//! Tournaments over HTTP (`docs/tournaments.md`): the list, one tournament, its games as
//! PDN, and an organiser's creating one and starting its rounds.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use shared::protocol::ErrorCode;

use super::ApiError;
use super::ws::bearer_header;
use crate::app::App;
use crate::tournament::TournamentError;
use crate::tournament::record::TournamentSpec;

/// `GET /api/tournaments`: every tournament's summary.
#[utoipa::path(
    get,
    path = "/api/tournaments",
    tag = "tournaments",
    summary = "The tournaments",
    responses(
        (status = 200, description = "the tournaments", body = serde_json::Value),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = super::ErrorBody)
    )
)]
pub async fn tournaments(State(app): State<Arc<App>>) -> Response {
    match app.tournaments.list().await {
        Ok(list) => axum::Json(list).into_response(),
        Err(e) => tournament_error(&e),
    }
}

/// `GET /api/tournaments/{id}`: one tournament's whole picture.
#[utoipa::path(
    get,
    path = "/api/tournaments/{id}",
    tag = "tournaments",
    summary = "One tournament",
    params(("id" = String, Path, description = "the tournament id")),
    responses(
        (status = 200, description = "the tournament", body = serde_json::Value),
        (status = 404, description = "no such tournament (`tournament_not_found`)", body = super::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = super::ErrorBody)
    )
)]
pub async fn tournament(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.tournaments.view(&id).await {
        Ok(view) => axum::Json(view).into_response(),
        Err(e) => tournament_error(&e),
    }
}

/// `GET /api/tournaments/{id}/pdn`: a tournament's games as PDN.
#[utoipa::path(
    get,
    path = "/api/tournaments/{id}/pdn",
    tag = "tournaments",
    summary = "A tournament's games as PDN",
    params(("id" = String, Path, description = "the tournament id")),
    responses(
        (status = 200, description = "the games", content_type = "application/x-pdn", body = String),
        (status = 404, description = "no such tournament (`tournament_not_found`)", body = super::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = super::ErrorBody)
    )
)]
pub async fn tournament_pdn(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.tournaments.pdn(&app, &id).await {
        Ok(text) => (
            [(header::CONTENT_TYPE, "application/x-pdn; charset=utf-8")],
            text,
        )
            .into_response(),
        Err(e) => tournament_error(&e),
    }
}

/// The organiser behind a request's bearer token, or the refusal to send.
fn organiser(app: &App, headers: &HeaderMap) -> Result<(), ApiError> {
    let token = bearer_header(headers);
    let identity = match token.map(|t| app.auth.verify(&t)) {
        Some(Ok(identity)) => identity,
        _ => {
            return Err(ApiError::plain(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "a valid bearer token is required",
            ));
        }
    };
    if app
        .config
        .tournaments
        .organisers
        .iter()
        .any(|o| *o == identity.user.id.to_string())
    {
        Ok(())
    } else {
        Err(ApiError::plain(
            StatusCode::FORBIDDEN,
            ErrorCode::Unauthorized,
            "only organisers may do this",
        ))
    }
}

/// `POST /api/tournaments`: an organiser (a user listed in `tournaments.organisers`)
/// creates a tournament.
#[utoipa::path(
    post,
    path = "/api/tournaments",
    tag = "tournaments",
    summary = "An organiser creates a tournament",
    request_body(content = serde_json::Value, description = "a tournament (`docs/tournaments.md`)"),
    security(("bearer" = [])),
    responses(
        (status = 201, description = "created", body = serde_json::Value),
        (status = 400, description = "a bad tournament", body = super::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = super::ErrorBody),
        (status = 403, description = "not an organiser", body = super::ErrorBody),
        (status = 404, description = "a previous stage that does not exist", body = super::ErrorBody),
        (status = 409, description = "no round to start", body = super::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = super::ErrorBody)
    )
)]
pub async fn create_tournament(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(refusal) = organiser(&app, &headers) {
        return refusal.into_response();
    }
    let spec = match serde_json::from_slice::<TournamentSpec>(&body) {
        Ok(spec) => spec,
        Err(e) => {
            return ApiError::plain(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidMessage,
                e.to_string(),
            )
            .into_response();
        }
    };
    if spec.previous_stage.is_some() {
        return ApiError::plain(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            "previous_stage is set by the server when it creates a next stage",
        )
        .into_response();
    }
    match app.tournaments.create(&app, spec).await {
        Ok(view) => (StatusCode::CREATED, axum::Json(view)).into_response(),
        Err(e) => tournament_error(&e),
    }
}

/// `POST /api/tournaments/{id}/rounds`: the organiser starts the next round.
#[utoipa::path(
    post,
    path = "/api/tournaments/{id}/rounds",
    tag = "tournaments",
    summary = "The organiser starts the next round",
    params(("id" = String, Path, description = "the tournament id")),
    security(("bearer" = [])),
    responses(
        (status = 202, description = "started", body = serde_json::Value),
        (status = 400, description = "the tournament cannot go on", body = super::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = super::ErrorBody),
        (status = 403, description = "not an organiser, or not in the tournament", body = super::ErrorBody),
        (status = 404, description = "no such tournament", body = super::ErrorBody),
        (status = 409, description = "no round to start (`no_round_to_start`)", body = super::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = super::ErrorBody)
    )
)]
pub async fn start_round(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Err(refusal) = organiser(&app, &headers) {
        return refusal.into_response();
    }
    match app.tournaments.start_round(&app, &id).await {
        Ok(()) => (StatusCode::ACCEPTED, axum::Json(json!({"started": true}))).into_response(),
        Err(e) => tournament_error(&e),
    }
}

fn tournament_error(e: &TournamentError) -> Response {
    match e {
        TournamentError::NotFound(_) => ApiError::plain(
            StatusCode::NOT_FOUND,
            ErrorCode::TournamentNotFound,
            e.to_string(),
        )
        .into_response(),
        TournamentError::NoRoundToStart(_) => ApiError::plain(
            StatusCode::CONFLICT,
            ErrorCode::NoRoundToStart,
            e.to_string(),
        )
        .into_response(),
        TournamentError::Spec(_) => ApiError::plain(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            e.to_string(),
        )
        .into_response(),
        TournamentError::NotInTournament => ApiError::plain(
            StatusCode::FORBIDDEN,
            ErrorCode::NotInTournament,
            e.to_string(),
        )
        .into_response(),
        TournamentError::Store(_) => ApiError::plain(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        )
        .into_response(),
    }
}
