//! HTTP and WebSocket on one port: the router (its handlers live in `crate::api`, the
//! browser client's in `crate::web`), the OpenAPI document of them all, and the
//! server's lifetime from bind to graceful shutdown.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use serde_json::json;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::api;
use crate::app::{App, AppError};
use crate::cluster::Cluster;
use crate::config::Config;

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
        .route("/healthz", get(api::operations::healthz))
        .route("/metrics", get(api::operations::metrics))
        .route("/api/auth/guest", post(api::guest::guest))
        .route("/api/tv", get(api::tv::tv))
        .route(
            "/api/tournaments",
            get(api::tournaments::tournaments).post(api::tournaments::create_tournament),
        )
        .route("/api/tournaments/{id}", get(api::tournaments::tournament))
        .route(
            "/api/tournaments/{id}/pdn",
            get(api::tournaments::tournament_pdn),
        )
        .route(
            "/api/tournaments/{id}/rounds",
            post(api::tournaments::start_round),
        )
        .route("/ws", get(api::ws::ws))
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

/// The document's own path; [`crate::api::openapi`] adds the API's, [`crate::web`] the
/// client's.
#[derive(utoipa::OpenApi)]
#[openapi(paths(openapi))]
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
            // Before the sweep and before serving: games Redis lost (a restart emptied
            // it) come back from the database's mirror.
            let restored = app.games.restore_mirrored().await;
            if restored > 0 {
                tracing::info!(games = restored, "mirrored live games put back into redis");
            }
            app.chat.listen(&app.tracker, app.stopping.clone()).await;
            let node = crate::node::Node::new(cluster);
            node.heartbeat(&app).await;
            app.tracker.spawn(node.run(app.clone()));
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
    /// still live stay stored for the next start (with Redis, also in the database's
    /// mirror, written before this returns); returns when every task has ended.
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
        // Every actor has ended: what they queued on their way out reaches the database.
        app.games.finish_mirror().await;
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
