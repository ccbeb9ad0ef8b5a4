//! The node's operations endpoints: `/healthz` (up, or shutting down, with the counts
//! a load balancer or an operator looks at) and `/metrics` (OpenMetrics text, which Prometheus scrapes).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::app::App;

/// `GET /healthz`: up (200) or shutting down (503), with the database's state and counts.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "operations",
    summary = "Whether the node is up",
    responses(
        (status = 200, description = "up", body = serde_json::Value),
        (status = 503, description = "shutting down", body = serde_json::Value)
    )
)]
pub async fn healthz(State(app): State<Arc<App>>) -> Response {
    // Games go on while the database is down (their archive waits), so a database
    // outage is reported here but does not make the node unhealthy.
    let db_up = tokio::time::timeout(Duration::from_secs(1), app.db.ping())
        .await
        .unwrap_or(false);
    let body = |status: &str| {
        axum::Json(json!({
            "status": status,
            "connections": app.metrics.connections_open.get(),
            "games": app.games.live(),
            "database": if db_up { "up" } else { "down" },
            "archive_pending": app.metrics.archive_pending.get(),
        }))
    };
    if app.draining.is_cancelled() {
        (StatusCode::SERVICE_UNAVAILABLE, body("shutting_down")).into_response()
    } else {
        body("ok").into_response()
    }
}

/// `GET /metrics`: the node's metrics as OpenMetrics text.
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    summary = "Prometheus metrics",
    responses(
        (status = 200, description = "OpenMetrics text", content_type = "application/openmetrics-text", body = String)
    )
)]
pub async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        app.metrics.render(),
    )
        .into_response()
}
