//! The account and users as lichess's API shows them: `GET /api/account`,
//! `GET /api/account/playing`, `POST /api/bot/account/upgrade`,
//! `GET /api/users/status?ids=…`, `GET /api/user/{name}`, `GET /api/bot/online`.

use std::sync::Arc;

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};
use shared::protocol::{ErrorCode, UserId};
use tokio::sync::mpsc;

use super::{BotState, Dialect, ndjson, ok, push, shapes};
use crate::api::bearer::{self, Caller};
use crate::api::{ApiError, db_error};
use crate::app::App;
use crate::tokens::Scope;

fn account_json(caller: &Caller, created_ms: i64) -> Value {
    let mut v = json!({
        "id": caller.user.id.0,
        "username": caller.user.name,
        "createdAt": created_ms,
        "seenAt": crate::db::players::now_ms(),
        "perfs": {},
        "url": format!("/@/{}", caller.user.name),
    });
    if caller.user.bot {
        v["title"] = json!("BOT");
    }
    v
}

/// `GET /api/account`.
pub async fn account(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let caller = match bearer::caller(&app, &headers).await {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let created = match app.db.player_by_id(&caller.user.id.0).await {
        Ok(p) => p.map_or_else(crate::db::players::now_ms, |p| p.created_ms),
        Err(e) => return db_error(&e),
    };
    axum::Json(account_json(&caller, created)).into_response()
}

/// `GET /api/account/playing`: `{"nowPlaying": [...]}`.
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
pub async fn statuses(State(app): State<Arc<App>>, Query(q): Query<Ids>) -> Response {
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
        let name = match app.db.player_by_id(&s.id.0).await {
            Ok(Some(p)) => p.name,
            _ => s.id.0.clone(),
        };
        let mut v = json!({ "id": s.id.0, "name": name, "online": s.online });
        if !s.playing.is_empty() {
            v["playing"] = json!(true);
        }
        if app.db.account_flags(&s.id.0).await.is_ok_and(|f| f.bot) {
            v["title"] = json!("BOT");
        }
        out.push(v);
    }
    axum::Json(out).into_response()
}

/// `GET /api/user/{name}`: the public account.
pub async fn user(State(app): State<Arc<App>>, Path(name): Path<String>) -> Response {
    let player = match app.db.player_by_name(&name).await {
        Ok(Some(p)) => p,
        Ok(None) => {
            return ApiError::new(
                StatusCode::NOT_FOUND,
                ErrorCode::UnknownUser,
                format!("no account is called {name}"),
            )
            .into_response();
        }
        Err(e) => return db_error(&e),
    };
    let bot = app.db.account_flags(&player.id).await.is_ok_and(|f| f.bot);
    let online = app
        .presence
        .is_online(&UserId(player.id.clone()))
        .await
        .unwrap_or(false);
    let mut v = json!({
        "id": player.id,
        "username": player.name,
        "createdAt": player.created_ms,
        "online": online,
        "perfs": {},
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
pub async fn online_bots(
    State(app): State<Arc<App>>,
    Extension(state): Extension<Arc<BotState>>,
    Query(q): Query<Nb>,
) -> Response {
    let nb = q.nb.unwrap_or(50).min(300);
    let bots = match app.db.bots(1000).await {
        Ok(b) => b,
        Err(e) => return db_error(&e),
    };
    let ids: Vec<UserId> = bots.iter().map(|(id, _)| UserId(id.clone())).collect();
    let online = app.presence.statuses(&ids).await.unwrap_or_default();
    let slot = match state.open_stream(&UserId("anonymous:bot-online".into())) {
        Ok(s) => s,
        Err(e) => return e.into_response(),
    };
    let (tx, rx) = mpsc::channel(usize::try_from(nb).unwrap_or(300) + 1);
    for ((id, name), status) in bots
        .iter()
        .zip(online)
        .filter(|(_, s)| s.online)
        .take(nb as usize)
    {
        let _ = push(
            &tx,
            &json!({ "id": id, "username": name, "title": "BOT", "online": status.online }),
        );
    }
    drop(tx);
    ndjson(rx, slot)
}
