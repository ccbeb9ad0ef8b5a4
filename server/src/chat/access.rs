//! Who may read and write which room. A game's players' room is its two players'
//! alone; its spectators' room, an arena's and a tournament's are open to everyone to
//! read. As on lichess, guests (anonymous users) read but never write, block or report
//! (a guest's id goes with its token; muting a room is in the guest's browser);
//! everyone else writes where they read. The room's game (live, on any node, or
//! archived), arena or tournament must exist.

use std::sync::Arc;

use shared::protocol::{ChatRoom, ErrorCode, GameId, GameRoom, UserInfo};

use super::ChatError;
use crate::arena::Arenas;
use crate::db::Db;
use crate::game::GameRegistry;
use crate::tournament::Tournaments;

/// Where rooms live.
pub struct Places<'a> {
    /// Live games.
    pub games: &'a Arc<GameRegistry>,
    /// Arenas.
    pub arenas: &'a Arenas,
    /// Tournaments.
    pub tournaments: &'a Tournaments,
    /// The archive.
    pub db: &'a Db,
}

/// What a user may do in a room they may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// May they say lines?
    pub write: bool,
}

fn no_game() -> ChatError {
    ChatError::NoSuchPlace(ErrorCode::GameNotFound, "no such game".into())
}

/// The two players of a game, live or archived.
async fn players(places: &Places<'_>, id: &GameId) -> Result<[String; 2], ChatError> {
    if let Some(h) = places.games.find(id).await {
        let spec = &h.meta().spec;
        return Ok([spec.white.id.0.clone(), spec.black.id.0.clone()]);
    }
    match places.db.game(&id.0).await? {
        Some(g) => Ok([g.white.id, g.black.id]),
        None => Err(no_game()),
    }
}

/// What `user` may do in `room`; refused if they may not read it or it does not exist.
pub async fn access(
    places: &Places<'_>,
    user: &UserInfo,
    room: &ChatRoom,
) -> Result<Access, ChatError> {
    match room {
        ChatRoom::Game(id, side) => {
            let players = players(places, id).await?;
            let plays = players.contains(&user.id.0);
            if *side == GameRoom::Player && !plays {
                return Err(ChatError::Forbidden(
                    "the players' room is for the game's two players",
                ));
            }
        }
        ChatRoom::Arena(id) => {
            let live = match places.arenas.get(id) {
                Some(h) => h.info().await.is_ok(),
                None => false,
            };
            if !live && places.db.arena(id).await?.is_none() {
                return Err(ChatError::NoSuchPlace(
                    ErrorCode::ArenaNotFound,
                    "no such arena".into(),
                ));
            }
        }
        ChatRoom::Tournament(id) => {
            if places.tournaments.view(id).await.is_err() {
                return Err(ChatError::NoSuchPlace(
                    ErrorCode::TournamentNotFound,
                    "no such tournament".into(),
                ));
            }
        }
    }
    Ok(Access { write: !user.guest })
}

/// Refuses a user who may not write.
pub fn writable(access: Access) -> Result<(), ChatError> {
    if access.write {
        Ok(())
    } else {
        Err(ChatError::Forbidden(
            "guests read the chat but cannot write: sign in to talk",
        ))
    }
}

/// Refuses a guest what only an account may do: block a user (a guest's blocks would go
/// with its id, which goes with its token) or report a line.
pub fn account(user: &UserInfo) -> Result<(), ChatError> {
    if user.guest {
        Err(ChatError::Forbidden(
            "guests read the chat only: sign in to block or report",
        ))
    } else {
        Ok(())
    }
}
