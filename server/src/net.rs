//! HTTP and WebSocket on one port: the routes, the upgrade (connection limit, token,
//! frame size cap), and the server's lifetime from bind to graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use serde::Deserialize;
use serde_json::json;
use shared::protocol::ErrorCode;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::app::{App, AppError};
use crate::auth::AuthError;
use crate::cluster::Cluster;
use crate::config::Config;
use crate::tournament::TournamentError;
use crate::tournament::record::TournamentSpec;

/// Why the server could not start or stopped badly.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Building the application state failed.
    #[error(transparent)]
    App(#[from] AppError),
    /// Binding or serving failed.
    #[error("network: {0}")]
    Io(#[from] std::io::Error),
    /// Redis is configured but unreachable at start.
    #[error(transparent)]
    Redis(#[from] crate::cluster::redis::RedisStoreError),
    /// The database is unreachable or its schema cannot be applied.
    #[error(transparent)]
    Db(#[from] crate::db::DbError),
    /// No secret is configured and the system gives no randomness to make one.
    #[error("no randomness for the token secret: {0}")]
    NoRandomness(String),
}

/// The routes.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/api/auth/guest", post(guest))
        .route("/api/tv", get(tv))
        .route("/api/tournaments", get(tournaments).post(create_tournament))
        .route("/api/tournaments/{id}", get(tournament))
        .route("/api/tournaments/{id}/pdn", get(tournament_pdn))
        .route("/api/tournaments/{id}/rounds", post(start_round))
        .route("/ws", get(ws))
        .route("/api/openapi.json", get(openapi))
        .merge(crate::web::routes())
        .merge(crate::api::routes())
        .fallback(crate::web::not_found)
        .layer(axum::middleware::from_fn_with_state(
            crate::api::limits::ApiLimits::new(&app.config),
            crate::api::limits::limit,
        ))
        .with_state(app)
}

/// The paths served here; [`crate::api::openapi`] adds the API's and the client's.
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    healthz,
    metrics,
    guest,
    tv,
    tournaments,
    create_tournament,
    tournament,
    tournament_pdn,
    start_round,
    ws,
    openapi
))]
struct NetDoc;

/// The whole HTTP API as an OpenAPI 3.1 document.
pub fn openapi_document() -> utoipa::openapi::OpenApi {
    use utoipa::OpenApi;
    let mut doc = crate::api::openapi::ApiDoc::openapi();
    doc.merge(crate::web::WebDoc::openapi());
    doc.merge(NetDoc::openapi());
    crate::api::openapi::finish(doc)
}

#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = "operations",
    summary = "This document",
    responses(
        (status = 200, description = "the OpenAPI 3.1 document", body = serde_json::Value)
    )
)]
async fn openapi() -> Response {
    static DOCUMENT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let text = DOCUMENT.get_or_init(|| {
        openapi_document()
            .to_json()
            .unwrap_or_else(|e| json!({ "error": e.to_string() }).to_string())
    });
    ([(header::CONTENT_TYPE, "application/json")], text.clone()).into_response()
}

fn json_error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    let body = json!({ "code": code, "message": message.into() });
    (status, axum::Json(body)).into_response()
}

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
async fn healthz(State(app): State<Arc<App>>) -> Response {
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

#[utoipa::path(
    get,
    path = "/metrics",
    tag = "operations",
    summary = "Prometheus metrics",
    responses(
        (status = 200, description = "OpenMetrics text", content_type = "application/openmetrics-text", body = String)
    )
)]
async fn metrics(State(app): State<Arc<App>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        app.metrics.render(),
    )
        .into_response()
}

/// The name a guest asks for.
#[derive(Deserialize, utoipa::ToSchema)]
struct GuestRequest {
    name: String,
}

#[utoipa::path(
    post,
    path = "/api/auth/guest",
    tag = "accounts",
    summary = "A guest token",
    request_body = GuestRequest,
    responses(
        (status = 200, description = "the token, the user, its expiry", body = serde_json::Value),
        (status = 400, description = "bad JSON or name", body = crate::api::ErrorBody),
        (status = 403, description = "guests are off", body = crate::api::ErrorBody),
        (status = 409, description = "a registered player's name (`username_taken`)", body = crate::api::ErrorBody),
        (status = 500, description = "the token cannot be signed", body = crate::api::ErrorBody)
    )
)]
async fn guest(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<GuestRequest>(&body) else {
        return json_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            r#"expected {"name": "..."}"#,
        );
    };
    // A guest may not take a registered player's name (in any case): others would
    // take them for that player.
    match app.db.credentials(request.name.trim()).await {
        Ok(Some(_)) => {
            return json_error(
                StatusCode::CONFLICT,
                ErrorCode::UsernameTaken,
                format!(
                    "{} is a registered player's name: choose another, or log in",
                    request.name.trim()
                ),
            );
        }
        Ok(None) => {}
        Err(e) => tracing::warn!(error = %e, "cannot check a guest name against the accounts"),
    }
    match app.auth.issue_guest(&request.name) {
        Ok((token, identity)) => axum::Json(json!({
            "token": token,
            "user": identity.user,
            "expires_at": identity.expires_at,
        }))
        .into_response(),
        Err(e @ AuthError::BadName) => json_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            e.to_string(),
        ),
        Err(e @ AuthError::GuestDisabled) => json_error(
            StatusCode::FORBIDDEN,
            ErrorCode::Unauthorized,
            e.to_string(),
        ),
        Err(e) => {
            tracing::error!(error = %e, "cannot issue a guest token");
            json_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                "cannot issue a token",
            )
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/tv",
    tag = "games",
    summary = "The top live game of each variant",
    responses(
        (status = 200, description = "variant to game id", body = serde_json::Value)
    )
)]
async fn tv(State(app): State<Arc<App>>) -> Response {
    let mut board = std::collections::BTreeMap::new();
    for variant in shared::rules::Variant::ALL {
        if let Some(h) = app.games.tv_anywhere(variant).await {
            board.insert(variant, h.id().clone());
        }
    }
    axum::Json(board).into_response()
}

#[utoipa::path(
    get,
    path = "/api/tournaments",
    tag = "tournaments",
    summary = "The tournaments",
    responses(
        (status = 200, description = "the tournaments", body = serde_json::Value),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
async fn tournaments(State(app): State<Arc<App>>) -> Response {
    match app.tournaments.list().await {
        Ok(list) => axum::Json(list).into_response(),
        Err(e) => tournament_error(&e),
    }
}

#[utoipa::path(
    get,
    path = "/api/tournaments/{id}",
    tag = "tournaments",
    summary = "One tournament",
    params(("id" = String, Path, description = "the tournament id")),
    responses(
        (status = 200, description = "the tournament", body = serde_json::Value),
        (status = 404, description = "no such tournament (`tournament_not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
async fn tournament(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    match app.tournaments.view(&id).await {
        Ok(view) => axum::Json(view).into_response(),
        Err(e) => tournament_error(&e),
    }
}

#[utoipa::path(
    get,
    path = "/api/tournaments/{id}/pdn",
    tag = "tournaments",
    summary = "A tournament's games as PDN",
    params(("id" = String, Path, description = "the tournament id")),
    responses(
        (status = 200, description = "the games", content_type = "application/x-pdn", body = String),
        (status = 404, description = "no such tournament (`tournament_not_found`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
async fn tournament_pdn(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
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
fn organiser(app: &App, headers: &HeaderMap) -> Result<(), Box<Response>> {
    let token = bearer(headers, &WsQuery { token: None });
    let identity = match token.map(|t| app.auth.verify(&t)) {
        Some(Ok(identity)) => identity,
        _ => {
            return Err(Box::new(json_error(
                StatusCode::UNAUTHORIZED,
                ErrorCode::Unauthorized,
                "a valid bearer token is required",
            )));
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
        Err(Box::new(json_error(
            StatusCode::FORBIDDEN,
            ErrorCode::Unauthorized,
            "only organisers may do this",
        )))
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
        (status = 400, description = "a bad tournament", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "not an organiser", body = crate::api::ErrorBody),
        (status = 404, description = "a previous stage that does not exist", body = crate::api::ErrorBody),
        (status = 409, description = "no round to start", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
async fn create_tournament(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(refusal) = organiser(&app, &headers) {
        return *refusal;
    }
    let spec = match serde_json::from_slice::<TournamentSpec>(&body) {
        Ok(spec) => spec,
        Err(e) => {
            return json_error(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidMessage,
                e.to_string(),
            );
        }
    };
    if spec.previous_stage.is_some() {
        return json_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            "previous_stage is set by the server when it creates a next stage",
        );
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
        (status = 400, description = "the tournament cannot go on", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "not an organiser, or not in the tournament", body = crate::api::ErrorBody),
        (status = 404, description = "no such tournament", body = crate::api::ErrorBody),
        (status = 409, description = "no round to start (`no_round_to_start`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
async fn start_round(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    if let Err(refusal) = organiser(&app, &headers) {
        return *refusal;
    }
    match app.tournaments.start_round(&app, &id).await {
        Ok(()) => (StatusCode::ACCEPTED, axum::Json(json!({"started": true}))).into_response(),
        Err(e) => tournament_error(&e),
    }
}

fn tournament_error(e: &TournamentError) -> Response {
    match e {
        TournamentError::NotFound(_) => json_error(
            StatusCode::NOT_FOUND,
            ErrorCode::TournamentNotFound,
            e.to_string(),
        ),
        TournamentError::NoRoundToStart(_) => json_error(
            StatusCode::CONFLICT,
            ErrorCode::NoRoundToStart,
            e.to_string(),
        ),
        TournamentError::Spec(_) => json_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            e.to_string(),
        ),
        TournamentError::NotInTournament => json_error(
            StatusCode::FORBIDDEN,
            ErrorCode::NotInTournament,
            e.to_string(),
        ),
        TournamentError::Store(_) => json_error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::Unavailable,
            e.to_string(),
        ),
    }
}

#[derive(Deserialize)]
struct WsQuery {
    token: Option<String>,
}

/// The bearer token from the `Authorization` header, else the `token` query parameter.
fn bearer(headers: &HeaderMap, query: &WsQuery) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string())
        .or_else(|| query.token.clone())
}

#[utoipa::path(
    get,
    path = "/ws",
    tag = "operations",
    summary = "The WebSocket (docs/protocol.md)",
    params(("token" = Option<String>, Query, description = "the bearer token, for browsers that cannot send a header")),
    responses(
        (status = 101, description = "switched to the WebSocket protocol"),
        (status = 400, description = "not a WebSocket upgrade", content_type = "text/plain", body = String),
        (status = 405, description = "not a GET", content_type = "text/plain", body = String),
        (status = 426, description = "not a WebSocket upgrade", content_type = "text/plain", body = String),
        (status = 401, description = "no valid token (`unauthorized`, `token_expired`)", body = crate::api::ErrorBody),
        (status = 503, description = "too many connections, or shutting down", body = crate::api::ErrorBody)
    )
)]
async fn ws(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    query: Query<WsQuery>,
    upgrade: WebSocketUpgrade,
) -> Response {
    if app.draining.is_cancelled() {
        return json_error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::ShuttingDown,
            "the server is shutting down",
        );
    }
    let Ok(permit) = app.connections.clone().try_acquire_owned() else {
        app.metrics.connections_rejected.inc();
        return json_error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::TooMany,
            "too many connections",
        );
    };
    let Some(token) = bearer(&headers, &query) else {
        app.metrics.auth_failures.inc();
        let e = AuthError::Missing;
        return json_error(
            StatusCode::UNAUTHORIZED,
            ErrorCode::Unauthorized,
            e.public_message(),
        );
    };
    let mut identity = match app.auth.verify(&token) {
        Ok(identity) => identity,
        Err(e) => {
            app.metrics.auth_failures.inc();
            let code = match e {
                AuthError::Expired => ErrorCode::TokenExpired,
                _ => ErrorCode::Unauthorized,
            };
            tracing::debug!(error = %e, "token refused");
            return json_error(StatusCode::UNAUTHORIZED, code, e.public_message());
        }
    };
    if !identity.user.guest {
        // A token from the external issuer names a player the database may not know
        // yet: the row is made on first sight, and the name shown is the stored one.
        let known = tokio::time::timeout(
            app.config.database.timeout(),
            app.db
                .ensure_player(&identity.user.id.0, &identity.user.name),
        )
        .await;
        match known {
            Ok(Ok(player)) => identity.user.name = player.name,
            Ok(Err(e)) => tracing::warn!(error = %e, "cannot record the player"),
            Err(_) => tracing::warn!("recording the player timed out"),
        }
        // A session ended (logged out, everywhere, or by a password change) opens none.
        let timeout = app.config.database.timeout();
        match crate::tokens::check_session_within(&app.db, &identity, &token, timeout).await {
            Ok(Some(flags)) => identity.user.bot = flags.bot,
            Ok(None) => {}
            Err(e) => {
                app.metrics.auth_failures.inc();
                return json_error(
                    StatusCode::UNAUTHORIZED,
                    ErrorCode::Unauthorized,
                    e.to_string(),
                );
            }
        }
    }
    let token_hash = crate::tokens::hash_secret(&token);
    let max = app.config.ws.max_message_bytes;
    let read_buffer = app.config.ws.read_buffer_bytes;
    let tracker = app.tracker.clone();
    upgrade
        .max_message_size(max)
        .max_frame_size(max)
        .read_buffer_size(read_buffer)
        .on_upgrade(move |socket| {
            tracker.track_future(crate::session::run(
                socket, app, identity, token_hash, permit,
            ))
        })
}

/// A running server.
pub struct Server {
    addr: SocketAddr,
    app: Arc<App>,
    http: JoinHandle<std::io::Result<()>>,
}

impl Server {
    /// Binds `config.listen` and starts serving.
    pub async fn start(config: Config) -> Result<Server, ServeError> {
        let mut config = config;
        if config.node_id.is_empty() {
            config.node_id = format!("node-{}", crate::game::new_game_id());
        }
        let node = config.node_id.clone();
        let db = crate::db::Db::open(&config.database).await?;
        tracing::info!(backend = ?db.backend(), "database open");
        if config.auth.algorithm == "HS256" && config.auth.secret.is_empty() {
            // One secret for every node sharing the database, kept across restarts, so
            // that account tokens outlive the process that signed them.
            let made = random_secret(getrandom::fill)?;
            config.auth.secret = db
                .setting_or_init("auth.hs256_secret", move || made)
                .await?;
        }
        let listener = TcpListener::bind(config.listen).await?;
        let addr = listener.local_addr()?;
        let metrics = Arc::new(crate::metrics::Metrics::default());
        let stopping = tokio_util::sync::CancellationToken::new();
        let cluster = if config.redis.enabled() {
            let cluster = Cluster::start(
                &node,
                &config.redis,
                &config.cluster,
                metrics.clone(),
                stopping.clone(),
            )
            .await?;
            tracing::info!(node = %node, prefix = %config.redis.prefix, "joined the cluster through redis");
            Some(cluster)
        } else {
            None
        };
        let auth = crate::auth::Authenticator::load(config.auth.clone())
            .await
            .map_err(AppError::from)?;
        let app = App::build(config, auth, cluster.clone(), metrics, stopping, db)?;
        if let Some(cluster) = cluster {
            app.chat.listen(&app.tracker, app.stopping.clone()).await;
            app.tracker
                .spawn(crate::node::Node::new(cluster).run(app.clone()));
            app.tracker
                .spawn(crate::tournament::Tournaments::organise_in_cluster(
                    app.clone(),
                ));
            app.tracker.spawn(app.arenas.clone().organise_in_cluster());
        } else {
            let resumed = app.games.resume_stored().await;
            if resumed > 0 {
                tracing::info!(games = resumed, "stored live games resumed");
            }
            // After the games: an organiser finds the games it was waiting for.
            match app.tournaments.resume(&app).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(tournaments = n, "unfinished tournaments resumed"),
                Err(e) => tracing::error!(error = %e, "cannot resume the tournaments"),
            }
        }
        app.tracker.spawn(app.clone().run_pool_pairing());
        app.tracker.spawn(crate::feed::run(app.clone()));
        app.tracker.spawn(crate::arena::schedule::run(
            app.arenas.clone(),
            app.stopping.clone(),
        ));
        let draining = app.draining.clone();
        let http = tokio::spawn(
            // TCP_NODELAY: a move's ack and its event are two small writes; with Nagle's
            // algorithm the second waits for the client's delayed ACK (about 40 ms).
            axum::serve(
                listener.tap_io(|tcp| {
                    if let Err(e) = tcp.set_nodelay(true) {
                        tracing::debug!(error = %e, "cannot set TCP_NODELAY");
                    }
                }),
                router(app.clone()).into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(async move { draining.cancelled().await })
            .into_future(),
        );
        tracing::info!(%addr, node = %node, "damka listening");
        Ok(Server { addr, app, http })
    }

    /// The address actually bound (useful with port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The shared state.
    pub fn app(&self) -> &Arc<App> {
        &self.app
    }

    /// Begins a graceful shutdown; [`Server::wait`] completes it.
    pub fn shutdown(&self) {
        self.app.draining.cancel();
    }

    /// Waits for shutdown to begin, then: no new connections or games; live games get
    /// `shutdown.grace_secs` to finish; then every session closes (1001) and games
    /// still live stay stored for the next start; returns when every task has ended.
    pub async fn wait(self) -> Result<(), ServeError> {
        let app = self.app;
        app.draining.cancelled().await;
        app.games.stop_accepting();
        tracing::info!(
            live_games = app.games.live(),
            "shutting down: waiting for live games"
        );
        let grace = Duration::from_secs(app.config.shutdown.grace_secs);
        let deadline = tokio::time::Instant::now() + grace;
        while app.games.live() > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        app.stopping.cancel();
        app.tracker.close();
        app.tracker.wait().await;
        if let Some(cluster) = &app.cluster {
            cluster.tasks.close();
            cluster.tasks.wait().await;
        }
        match self.http.await {
            Ok(result) => result?,
            Err(e) => tracing::error!(error = %e, "HTTP task failed"),
        }
        tracing::info!("damka stopped");
        Ok(())
    }
}

/// 32 bytes from `fill` as hex (the HS256 secret made when none is configured); the
/// node refuses to start without them rather than sign with a guessable secret.
fn random_secret(
    fill: impl FnOnce(&mut [u8]) -> Result<(), getrandom::Error>,
) -> Result<String, ServeError> {
    let mut bytes = [0u8; 32];
    fill(&mut bytes).map_err(|e| ServeError::NoRandomness(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_random_hex_and_no_randomness_refuses_to_start() {
        let a = random_secret(getrandom::fill).unwrap();
        let b = random_secret(getrandom::fill).unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        let failed = random_secret(|_| Err(getrandom::Error::UNSUPPORTED));
        assert!(
            matches!(failed, Err(ServeError::NoRandomness(_))),
            "{failed:?}"
        );
    }
}
