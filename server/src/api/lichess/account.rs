//! The account and users as lichess's API shows them: `GET /api/account`,
//! `GET /api/account/playing`, `POST /api/bot/account/upgrade`,
//! `GET /api/users/status?ids=…`, `GET /api/user/{name}`, `GET /api/bot/online`.

use std::sync::Arc;

use axum::Extension;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use shared::protocol::{ErrorCode, UserId};
use tokio::sync::mpsc;

use super::{BotState, Dialect, account_named, ndjson, ok, push, shapes};
use crate::api::bearer::{self, Caller};
use crate::api::{ApiError, ApiQuery, db_error};
use crate::app::App;
use crate::tokens::Scope;

fn account_json(caller: &Caller, created_ms: i64, perfs: Value) -> Value {
    let mut v = json!({
        "id": caller.user.id.0,
        "username": caller.user.name,
        "createdAt": created_ms,
        "seenAt": crate::db::players::now_ms(),
        "perfs": perfs,
        "url": format!("/@/{}", caller.user.name),
    });
    if caller.user.bot {
        v["title"] = json!("BOT");
    }
    v
}

/// `GET /api/account`.
#[utoipa::path(
    get,
    path = "/api/account",
    tag = "lichess",
    summary = "Your account, as lichess shows it",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "the account", body = serde_json::Value),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "the token lacks a scope (`missing_scope`) or the account may not do this", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn account(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let caller = match bearer::caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let created = match app.db.player_by_id(&caller.user.id.0).await {
        Ok(p) => p.map_or_else(crate::db::players::now_ms, |p| p.created_ms),
        Err(e) => return db_error(&e),
    };
    let perfs = match app.db.perf_ratings(&caller.user.id.0).await {
        Ok(r) => shapes::perfs(&r, Dialect::of(&headers)),
        Err(e) => return db_error(&e),
    };
    axum::Json(account_json(&caller, created, perfs)).into_response()
}

/// `GET /api/account/playing`: `{"nowPlaying": [...]}`.
#[utoipa::path(
    get,
    path = "/api/account/playing",
    tag = "lichess",
    summary = "Your live games",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{nowPlaying: [...]}`", body = serde_json::Value),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "the token lacks a scope (`missing_scope`) or the account may not do this", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn playing(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let caller = match bearer::caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let dialect = Dialect::of(&headers);
    let ids = app
        .presence
        .games_of(&caller.user.id)
        .await
        .unwrap_or_default();
    let mut games = Vec::new();
    for id in ids {
        let Some(handle) = app.games.find(&id).await else {
            continue;
        };
        if let Ok(state) = handle.state().await
            && state.outcome.is_none()
        {
            games.push(shapes::game_summary(&state, &caller.user, dialect));
        }
    }
    axum::Json(json!({ "nowPlaying": games })).into_response()
}

/// `POST /api/bot/account/upgrade`: an account that has played no game becomes a bot,
/// for good.
#[utoipa::path(
    post,
    path = "/api/bot/account/upgrade",
    tag = "lichess",
    summary = "Make the account a bot",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "`{ok: true}`", body = serde_json::Value),
        (status = 400, description = "the account has played (`has_games`)", body = crate::api::ErrorBody),
        (status = 401, description = "no valid bearer token (`unauthorized`)", body = crate::api::ErrorBody),
        (status = 403, description = "the token lacks a scope (`missing_scope`) or the account may not do this", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn upgrade(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let caller = match bearer::caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    if let Err(e) = caller
        .require(Scope::BotPlay)
        .and_then(|()| caller.require_account())
    {
        return e.into_response();
    }
    if caller.user.bot {
        return ok();
    }
    match app.db.upgrade_to_bot(&caller.user.id.0).await {
        Ok(true) => ok(),
        Ok(false) => ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::HasGames,
            "only an account that has played no game can become a bot",
        )
        .into_response(),
        Err(e) => db_error(&e),
    }
}

#[derive(Deserialize)]
/// The query string.
pub struct Ids {
    ids: String,
}

/// `GET /api/users/status?ids=a,b`: `[{id, name, online, playing}]`.
#[utoipa::path(
    get,
    path = "/api/users/status",
    tag = "lichess",
    summary = "Who is online and playing",
    params(("ids" = String, Query, description = "user ids separated by commas")),
    responses(
        (status = 200, description = "`[{id, name, online, playing}]`", body = serde_json::Value),
        (status = 400, description = "too many ids, or none", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn statuses(State(app): State<Arc<App>>, ApiQuery(q): ApiQuery<Ids>) -> Response {
    let ids: Vec<UserId> = q
        .ids
        .split(',')
        .map(|s| UserId(s.trim().to_lowercase()))
        .filter(|u| !u.0.is_empty())
        .collect();
    if ids.len() > crate::presence::MAX_QUERY {
        return ApiError::new(
            StatusCode::BAD_REQUEST,
            ErrorCode::TooMany,
            format!("at most {} ids", crate::presence::MAX_QUERY),
        )
        .into_response();
    }
    let statuses = match app.presence.statuses(&ids).await {
        Ok(s) => s,
        Err(e) => {
            return ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Unavailable,
                e.to_string(),
            )
            .into_response();
        }
    };
    let mut out = Vec::new();
    for s in statuses {
        let (name, bot) = match app.db.name_and_bot(&s.id.0).await {
            Ok(Some(found)) => found,
            Ok(None) => (s.id.0.clone(), false),
            Err(e) => return db_error(&e),
        };
        let mut v = json!({ "id": s.id.0, "name": name, "online": s.online });
        if !s.playing.is_empty() {
            v["playing"] = json!(true);
        }
        if bot {
            v["title"] = json!("BOT");
        }
        out.push(v);
    }
    axum::Json(out).into_response()
}

/// `GET /api/user/{name}`: the public account.
#[utoipa::path(
    get,
    path = "/api/user/{name}",
    tag = "lichess",
    summary = "A user, as lichess shows it",
    params(("name" = String, Path, description = "the user's name")),
    responses(
        (status = 200, description = "the user", body = serde_json::Value),
        (status = 404, description = "no such user (`unknown_user`)", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn user(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> Response {
    let player = match account_named(&app, &name).await {
        Ok(p) => p,
        Err(r) => return r,
    };
    let bot = app.db.account_flags(&player.id).await.is_ok_and(|f| f.bot);
    let online = app
        .presence
        .is_online(&UserId(player.id.clone()))
        .await
        .unwrap_or(false);
    let perfs = match app.db.perf_ratings(&player.id).await {
        Ok(r) => shapes::perfs(&r, Dialect::of(&headers)),
        Err(e) => return db_error(&e),
    };
    let mut v = json!({
        "id": player.id,
        "username": player.name,
        "createdAt": player.created_ms,
        "online": online,
        "perfs": perfs,
        "url": format!("/@/{}", player.name),
    });
    if bot {
        v["title"] = json!("BOT");
    }
    axum::Json(v).into_response()
}

#[derive(Deserialize)]
/// The query string.
pub struct Nb {
    nb: Option<u32>,
}

/// `GET /api/bot/online?nb=`: the bots online now, as NDJSON.
#[utoipa::path(
    get,
    path = "/api/bot/online",
    tag = "lichess",
    summary = "The bots online",
    params(("nb" = Option<u32>, Query, description = "how many, at most 300 (default 50)")),
    responses(
        (status = 200, description = "one bot a line", content_type = "application/x-ndjson", body = String),
        (status = 400, description = "a bad `nb`", body = crate::api::ErrorBody),
        (status = 503, description = "the database or a game's node does not answer (`unavailable`); nothing changed", body = crate::api::ErrorBody)
    )
)]
pub async fn online_bots(
    State(app): State<Arc<App>>,
    Extension(state): Extension<Arc<BotState>>,
    headers: HeaderMap,
    ApiQuery(q): ApiQuery<Nb>,
) -> Response {
    let nb = q.nb.unwrap_or(50).min(300);
    let bots = match app.db.bots(1000).await {
        Ok(b) => b,
        Err(e) => return db_error(&e),
    };
    let ids: Vec<UserId> = bots.iter().map(|(id, _)| UserId(id.clone())).collect();
    let online = app.presence.statuses(&ids).await.unwrap_or_default();
    let slot = match state.open_stream(&UserId("anonymous:bot-online".into()), &app.metrics) {
        Ok(s) => s,
        Err(e) => return e.into_response(),
    };
    let dialect = Dialect::of(&headers);
    let (tx, rx) = mpsc::channel(usize::try_from(nb).unwrap_or(300) + 1);
    for ((id, name), status) in bots
        .iter()
        .zip(online)
        .filter(|(_, s)| s.online)
        .take(nb as usize)
    {
        let perfs = match app.db.perf_ratings(id).await {
            Ok(r) => shapes::perfs(&r, dialect),
            Err(e) => return db_error(&e),
        };
        let bot = json!({
            "id": id, "username": name, "title": "BOT", "online": status.online, "perfs": perfs,
        });
        let _ = push(&tx, &bot);
    }
    drop(tx);
    ndjson(rx, slot)
}
