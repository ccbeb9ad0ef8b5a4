//! The API's part of the OpenAPI 3.1 document (`GET /api/openapi.json`): the paths of
//! this folder's handlers, read from their `#[utoipa::path]` attributes, and what every
//! path shares, added by [`finish`]: the bearer scheme, and the refusals any `/api/`
//! request may get (`429` past its budget, with `Retry-After`; `503` when the database
//! does not answer). `crate::net` merges in its own path and the browser client's.

use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{ContentBuilder, OpenApi, Ref, ResponseBuilder};

use super::{
    account, analysis, arenas, games, guest, lichess, online, operations, preferences, tokens,
    tournaments, tv, users, ws,
};

/// The paths of `crate::api`.
#[derive(utoipa::OpenApi)]
#[openapi(
    info(
        title = "damka",
        description = "damka's HTTP API (docs/api.md) and lichess's Bot and Board API (docs/bots.md). Every refusal is an `ErrorBody`."
    ),
    paths(
        account::register,
        account::login,
        preferences::show,
        preferences::update,
        users::profile,
        users::games,
        users::rating_history,
        users::leaderboard,
        games::game,
        analysis::request,
        analysis::show_route,
        arenas::list,
        arenas::arena,
        arenas::create,
        online::online,
        tokens::list,
        tokens::create,
        tokens::revoke,
        tokens::revoke_own,
        tokens::test,
        tokens::logout_everywhere,
        tokens::logout,
        account::change_password,
        lichess::seek::seek,
        lichess::account::account,
        lichess::account::playing,
        lichess::account::upgrade,
        lichess::account::statuses,
        lichess::account::user,
        lichess::account::online_bots,
        lichess::events::stream,
        lichess::challenges::create,
        lichess::challenges::accept,
        lichess::challenges::decline,
        lichess::challenges::cancel,
        lichess::game::stream,
        lichess::game::play,
        lichess::game::act,
        lichess::chat::say,
        lichess::chat::read,
        lichess::game::answer,
        operations::healthz,
        operations::metrics,
        guest::guest,
        tv::tv,
        tournaments::tournaments,
        tournaments::create_tournament,
        tournaments::tournament,
        tournaments::tournament_pdn,
        tournaments::start_round,
        ws::ws,
    ),
    components(schemas(super::ErrorBody))
)]
pub struct ApiDoc;

/// Adds what every path shares to a document of them all.
pub fn finish(mut doc: OpenApi) -> OpenApi {
    let components = doc.components.get_or_insert_with(Default::default);
    components.add_security_scheme(
        "bearer",
        SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
    );
    let error = || {
        ContentBuilder::new()
            .schema(Some(Ref::from_schema_name("ErrorBody")))
            .build()
    };
    let limited = ResponseBuilder::new()
        .description(format!(
            "a request budget is spent (`rate_limited`): wait {} seconds",
            super::limits::RETRY_AFTER_SECS
        ))
        .header(
            "Retry-After",
            HeaderBuilder::new()
                .description(Some("seconds to wait"))
                .build(),
        )
        .content("application/json", error())
        .build();
    let unavailable = ResponseBuilder::new()
        .description("the database does not answer (`unavailable`); nothing changed")
        .content("application/json", error())
        .build();
    for (path, item) in doc.paths.paths.iter_mut() {
        if !path.starts_with("/api/") {
            continue;
        }
        for op in [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.delete,
            &mut item.patch,
        ]
        .into_iter()
        .flatten()
        {
            let responses = &mut op.responses.responses;
            responses
                .entry("429".to_string())
                .or_insert_with(|| limited.clone().into());
            responses
                .entry("503".to_string())
                .or_insert_with(|| unavailable.clone().into());
        }
    }
    doc
}
