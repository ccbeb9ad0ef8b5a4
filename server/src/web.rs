//! The browser client, served from the binary: the files of `web/app/` embedded at build
//! time (`build.rs`) with their content types, ETags and gzip copies. `index.html` answers
//! the client's own pages (`/`, `/game/{id}`, `/tv/{variant}`, `/@/{name}`, `/arenas`,
//! `/arena/{id}`, `/tournaments`, `/tournament/{id}`) and is always
//! revalidated; every other file lives under `/assets/{build}/` and is immutable, since a
//! new build has a new id. Nothing is read from disk or fetched at run time.
//!
//! Two small JSON endpoints serve the client too: `GET /api/pools` (the quick-pairing
//! pools) and `POST /api/replay` (the positions of a recorded game, for the replay
//! viewer, so that the client needs no rules engine).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::json;
use shared::protocol::ErrorCode;
use shared::rules::{MoveInfo, Position, Variant};

use crate::api::ApiError;
use crate::app::App;

/// The most moves `POST /api/replay` replays.
pub const MAX_REPLAY_MOVES: usize = 2000;

/// One embedded file.
pub struct Asset {
    /// Its path under `web/app/`.
    pub path: &'static str,
    /// Its content type.
    pub mime: &'static str,
    /// A strong ETag: the hash of its content.
    pub etag: &'static str,
    /// The bytes.
    pub body: &'static [u8],
    /// The bytes gzipped, when that is smaller.
    pub gzip: Option<&'static [u8]>,
}

include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));

/// The embedded file at `path`, if any.
pub fn asset(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.path == path)
}

/// The client's API paths, for the OpenAPI document (`crate::net::openapi_document`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(pools, replay))]
pub struct WebDoc;

/// The client's routes, to merge into the server's router.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/api/pools", get(pools))
        .route("/api/replay", post(replay))
        .route("/", get(page))
        .route("/game/{id}", get(page))
        .route("/tv", get(page))
        .route("/tv/{variant}", get(page))
        .route("/@/{name}", get(page))
        .route("/arenas", get(page))
        .route("/arena/{id}", get(page))
        .route("/tournaments", get(page))
        .route("/tournament/{id}", get(page))
        .route("/settings", get(page))
        .route("/account/tokens", get(page))
        .route("/assets/{build}/{*path}", get(file))
        .route("/favicon.ico", get(favicon))
}

const NO_CACHE: &str = "no-cache";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// Any other address: under `/api/` the API's JSON `404 not_found`; elsewhere the
/// client's page with status 404, which tells the visitor the page does not exist and
/// where to go.
pub async fn not_found(uri: axum::http::Uri, headers: HeaderMap) -> Response {
    if uri.path().starts_with("/api/") || uri.path() == "/api" {
        let body = serde_json::json!({
            "code": shared::protocol::ErrorCode::NotFound,
            "message": format!("no API endpoint at {}", uri.path()),
        });
        return (StatusCode::NOT_FOUND, axum::Json(body)).into_response();
    }
    let mut response = page(headers).await;
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

async fn page(headers: HeaderMap) -> Response {
    match asset("index.html") {
        Some(index) => respond(index, &headers, NO_CACHE),
        None => (
            StatusCode::NOT_FOUND,
            "this damka was built without its browser client (web/app/ was missing)",
        )
            .into_response(),
    }
}

async fn file(Path((build, path)): Path<(String, String)>, headers: HeaderMap) -> Response {
    let Some(found) = asset(&path).filter(|a| a.path != "index.html") else {
        return (StatusCode::NOT_FOUND, "no such file").into_response();
    };
    // An older page asking for its files gets today's, to be revalidated.
    let cache = if build == BUILD { IMMUTABLE } else { NO_CACHE };
    respond(found, &headers, cache)
}

async fn favicon(headers: HeaderMap) -> Response {
    match asset("favicon.svg") {
        Some(icon) => respond(icon, &headers, "public, max-age=86400"),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

#[utoipa::path(
    get,
    path = "/api/pools",
    tag = "games",
    summary = "The quick-pairing pools",
    responses(
        (status = 200, description = "the pools", body = serde_json::Value),
        (status = 500, description = "the configured pools do not read", body = crate::api::ErrorBody)
    )
)]
async fn pools(State(app): State<Arc<App>>) -> Response {
    match app.config.lobby.parsed_pools() {
        Ok(pools) => axum::Json(
            pools
                .into_iter()
                .map(|(variant, tc)| json!({"variant": variant, "time_control": tc}))
                .collect::<Vec<_>>(),
        )
        .into_response(),
        Err(e) => ApiError::plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            e.to_string(),
        )
        .into_response(),
    }
}

#[derive(Deserialize)]
struct ReplayRequest {
    variant: Variant,
    #[serde(default)]
    fen: Option<String>,
    moves: Vec<String>,
}

/// The position before each move and after the last, and each move described: what a
/// replay viewer steps through. Any bad input is a 400 naming the move at fault.
#[utoipa::path(
    post,
    path = "/api/replay",
    tag = "games",
    summary = "The positions of a list of moves",
    request_body(content = serde_json::Value, description = "`{variant, fen, moves}`"),
    responses(
        (status = 200, description = "the positions and moves", body = serde_json::Value),
        (status = 400, description = "bad body, position (`invalid_position`) or move (`illegal_move`)", body = crate::api::ErrorBody)
    )
)]
async fn replay(body: Bytes) -> Response {
    let request: ReplayRequest = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => {
            return ApiError::plain(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidMessage,
                e.to_string(),
            )
            .into_response();
        }
    };
    if request.moves.len() > MAX_REPLAY_MOVES {
        return ApiError::plain(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidMessage,
            format!("at most {MAX_REPLAY_MOVES} moves"),
        )
        .into_response();
    }
    let start = match request.fen.as_deref() {
        Some(fen) => Position::from_fen(request.variant, fen),
        None => Ok(Position::start(request.variant)),
    };
    let mut pos = match start {
        Ok(p) => p,
        Err(e) => {
            return ApiError::plain(
                StatusCode::BAD_REQUEST,
                ErrorCode::InvalidPosition,
                e.to_string(),
            )
            .into_response();
        }
    };
    let mut positions = vec![pos.fen()];
    let mut played: Vec<MoveInfo> = Vec::with_capacity(request.moves.len());
    for (i, text) in request.moves.iter().enumerate() {
        let mv = match pos.parse_move(text) {
            Ok(mv) => mv,
            Err(e) => {
                return ApiError::plain(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::IllegalMove,
                    format!("move {} `{text}`: {e}", i + 1),
                )
                .into_response();
            }
        };
        played.push(pos.move_info(&mv));
        if pos.play(&mv).is_err() {
            return ApiError::plain(
                StatusCode::BAD_REQUEST,
                ErrorCode::IllegalMove,
                format!("move {} `{text}` is illegal", i + 1),
            )
            .into_response();
        }
        positions.push(pos.fen());
    }
    axum::Json(json!({"positions": positions, "played": played})).into_response()
}

/// The file, or `304 Not Modified` when the client has it; gzipped when accepted.
fn respond(a: &'static Asset, headers: &HeaderMap, cache: &'static str) -> Response {
    let mut out = HeaderMap::new();
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    out.insert(header::ETAG, HeaderValue::from_static(a.etag));
    out.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    out.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .any(|t| t.trim() == a.etag || t.trim() == "*")
        });
    if fresh {
        return (StatusCode::NOT_MODIFIED, out).into_response();
    }
    out.insert(header::CONTENT_TYPE, HeaderValue::from_static(a.mime));
    let gzip_ok = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(accepts_gzip);
    match a.gzip {
        Some(gz) if gzip_ok => {
            out.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            (out, gz).into_response()
        }
        _ => (out, a.body).into_response(),
    }
}

/// Does an `Accept-Encoding` value accept gzip (and not with `q=0`)?
fn accepts_gzip(value: &str) -> bool {
    value.split(',').any(|part| {
        let mut bits = part.split(';');
        let name = bits.next().unwrap_or_default().trim();
        let refused = bits.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        (name.eq_ignore_ascii_case("gzip") || name == "*") && !refused
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_encoding() {
        assert!(accepts_gzip("gzip, deflate, br"));
        assert!(accepts_gzip("br;q=1.0, gzip;q=0.8"));
        assert!(!accepts_gzip("gzip;q=0, br"));
        assert!(!accepts_gzip("identity"));
    }

    #[test]
    fn the_client_is_embedded_with_its_build_id() {
        let index = asset("index.html").expect("web/app/index.html is embedded");
        let html = std::str::from_utf8(index.body).expect("utf-8");
        assert!(html.contains(&format!("/assets/{BUILD}/")), "{html}");
        assert!(!html.contains("{{BUILD}}"));
        for a in ASSETS {
            assert!(a.etag.starts_with('"') && a.etag.ends_with('"'));
            if let Some(gz) = a.gzip {
                assert!(gz.len() < a.body.len(), "{}", a.path);
            }
        }
    }
}
