//! `GET /api/online`: the players online on the whole cluster (a connection on any
//! node) and, per variant, those playing a live game: the counts a home page shows.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use shared::protocol::ErrorCode;

use super::ApiError;
use crate::app::App;

/// `GET /api/online`.
#[utoipa::path(
    get,
    path = "/api/online",
    tag = "presence",
    summary = "Players online on the cluster",
    responses(
        (status = 200, description = "`online`: players with a connection on any node; `playing`: players in live games per variant", body = serde_json::Value),
        (status = 503, description = "Redis does not answer (`unavailable`)", body = crate::api::ErrorBody)
    )
)]
pub async fn online(State(app): State<Arc<App>>) -> Response {
    let counts = async {
        let online = app.presence.online_count().await?;
        let playing = app.presence.playing_counts().await?;
        Ok::<_, crate::presence::PresenceError>((online, playing))
    };
    match counts.await {
        Ok((online, playing)) => {
            axum::Json(json!({ "online": online, "playing": playing })).into_response()
        }
        Err(e) => {
            tracing::warn!(error = %e, "presence call failed");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Unavailable,
                "presence is unavailable: try again shortly",
            )
            .into_response()
        }
    }
}
