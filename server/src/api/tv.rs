//! `GET /api/tv`: the top live game of each variant, on any node.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};

use crate::app::App;

/// `GET /api/tv`: the top live game of each variant.
#[utoipa::path(
    get,
    path = "/api/tv",
    tag = "games",
    summary = "The top live game of each variant",
    responses(
        (status = 200, description = "variant to game id", body = serde_json::Value)
    )
)]
pub async fn tv(State(app): State<Arc<App>>) -> Response {
    let mut board = std::collections::BTreeMap::new();
    for variant in shared::rules::Variant::ALL {
        if let Some(h) = app.games.tv_anywhere(variant).await {
            board.insert(variant, h.id().clone());
        }
    }
    axum::Json(board).into_response()
}
