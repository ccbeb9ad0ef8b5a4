//! Gathers the lobby feed (the home page's `lobby` message) while some session of this
//! node follows it: the pools with their waiting and playing counts, the open seeks, the
//! users online, a few live games with their positions, the arenas and tournaments
//! starting next. Everything comes from the stores every node shares (Redis with a
//! cluster), so each node's feed shows the whole cluster. At most one gathering per
//! `lobby.feed_ms`; a message is serialised and handed to the subscribers
//! ([`crate::lobby::feed::Feed`]) only when something changed. With no subscriber the
//! task sleeps and asks nothing of anyone.

use std::sync::Arc;
use std::time::Duration;

use shared::arena::ArenaStatus;
use shared::protocol::{LobbyFeed, LobbyGame, LobbyPool, ServerMessage, TournamentStatus};

use crate::app::App;
use crate::game::GameHandle;

/// Arenas and tournaments the feed lists, each.
const EVENTS: usize = 5;

/// Arenas and tournaments change rarely and listing tournaments reads the database:
/// they are gathered once every this many gatherings.
const EVENTS_EVERY: u32 = 20;

/// Runs until the server stops.
pub async fn run(app: Arc<App>) {
    let period = Duration::from_millis(app.config.lobby.feed_ms);
    let mut version = 0u64;
    let mut last: Option<LobbyFeed> = None;
    let mut round = 0u32;
    loop {
        tokio::select! {
            () = app.stopping.cancelled() => return,
            () = app.feed.wanted() => {}
        }
        let events = match (&last, round % EVENTS_EVERY) {
            (Some(prev), r) if r != 0 => (prev.arenas.clone(), prev.tournaments.clone()),
            _ => events(&app).await,
        };
        round = round.wrapping_add(1);
        let mut now = gather(&app).await;
        (now.arenas, now.tournaments) = events;
        if last.as_ref() != Some(&now) {
            version += 1;
            let mut sent = now.clone();
            sent.version = version;
            let msg = ServerMessage::Lobby {
                lobby: Box::new(sent),
            };
            app.feed.publish(msg.to_json().into());
            last = Some(now);
        }
        tokio::select! {
            () = app.stopping.cancelled() => return,
            () = tokio::time::sleep(period) => {}
        }
        if app.feed.subscribers() == 0 {
            app.feed.clear();
            last = None;
            round = 0;
        }
    }
}

/// Everything but the arenas and tournaments, version 0. A store that cannot answer
/// leaves its part empty (the feed goes on; the next gathering tries again).
async fn gather(app: &Arc<App>) -> LobbyFeed {
    let waiting = app.lobby.pool_waiting().await.unwrap_or_default();
    let playing = app.presence.playing_counts().await.unwrap_or_default();
    let pools = app
        .config
        .lobby
        .parsed_pools()
        .unwrap_or_default()
        .into_iter()
        .map(|(variant, time_control)| LobbyPool {
            variant,
            time_control,
            waiting: waiting.get(&(variant, time_control)).copied().unwrap_or(0),
            playing: playing.get(&(variant, time_control)).copied().unwrap_or(0),
        })
        .collect();
    let mut games = Vec::new();
    for handle in app.games.top_anywhere(app.config.lobby.feed_games).await {
        if let Some(game) = shown(&handle).await {
            games.push(game);
        }
    }
    LobbyFeed {
        version: 0,
        online: app
            .presence
            .online_count()
            .await
            .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
        pools,
        seeks: app.lobby.seeks().await.unwrap_or_default(),
        games,
        arenas: Vec::new(),
        tournaments: Vec::new(),
    }
}

/// A live game as the feed shows it (none if it ended or cannot be asked).
async fn shown(handle: &GameHandle) -> Option<LobbyGame> {
    let state = handle.state().await.ok()?;
    if state.outcome.is_some() {
        return None;
    }
    Some(LobbyGame {
        game_id: state.game_id,
        variant: state.variant,
        time_control: state.time_control,
        white: state.white,
        black: state.black,
        fen: state.fen,
        last_move: state.moves.last().cloned(),
        plies: u32::try_from(state.moves.len()).unwrap_or(u32::MAX),
    })
}

/// The arenas starting next or running, and the tournaments upcoming or running.
async fn events(
    app: &Arc<App>,
) -> (
    Vec<shared::arena::ArenaInfo>,
    Vec<shared::protocol::TournamentSummary>,
) {
    let mut arenas = app.arenas.list().await;
    arenas.retain(|a| a.status != ArenaStatus::Finished && !a.private);
    arenas.truncate(EVENTS);
    let mut tournaments = app.tournaments.list().await.unwrap_or_default();
    tournaments.retain(|t| t.status != TournamentStatus::Finished);
    tournaments.truncate(EVENTS);
    (arenas, tournaments)
}
