//! Chat on the wire: the rooms (a game's players and its spectators, an arena, a
//! tournament), named by one string each, and a line as stored and shown.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::ids::{GameId, UserId};

/// The longest line, in characters (lichess's limit).
pub const MAX_LINE_CHARS: usize = 140;

/// The longest id inside a room name.
const MAX_ID_LEN: usize = 64;

/// Who a game's room is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameRoom {
    /// The two players.
    Player,
    /// Everyone watching.
    Spectator,
}

/// A chat room. On the wire it is one string: `game:<id>:player`,
/// `game:<id>:spectator`, `arena:<id>` or `tournament:<id>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum ChatRoom {
    /// A game's room.
    Game(GameId, GameRoom),
    /// An arena's room.
    Arena(String),
    /// A tournament's room.
    Tournament(String),
}

/// A room name that does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "not a chat room: rooms are game:<id>:player, game:<id>:spectator, arena:<id> or tournament:<id>"
)]
pub struct BadRoom;

fn id_ok(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl FromStr for ChatRoom {
    type Err = BadRoom;

    fn from_str(s: &str) -> Result<ChatRoom, BadRoom> {
        let mut parts = s.split(':');
        let room = match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some("game"), Some(id), Some("player"), None) => {
                ChatRoom::Game(GameId(id.to_string()), GameRoom::Player)
            }
            (Some("game"), Some(id), Some("spectator"), None) => {
                ChatRoom::Game(GameId(id.to_string()), GameRoom::Spectator)
            }
            (Some("arena"), Some(id), None, None) => ChatRoom::Arena(id.to_string()),
            (Some("tournament"), Some(id), None, None) => ChatRoom::Tournament(id.to_string()),
            _ => return Err(BadRoom),
        };
        let id = match &room {
            ChatRoom::Game(id, _) => id.0.as_str(),
            ChatRoom::Arena(id) | ChatRoom::Tournament(id) => id.as_str(),
        };
        if id_ok(id) { Ok(room) } else { Err(BadRoom) }
    }
}

impl TryFrom<String> for ChatRoom {
    type Error = BadRoom;

    fn try_from(s: String) -> Result<ChatRoom, BadRoom> {
        s.parse()
    }
}

impl From<ChatRoom> for String {
    fn from(room: ChatRoom) -> String {
        room.to_string()
    }
}

impl fmt::Display for ChatRoom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChatRoom::Game(id, GameRoom::Player) => write!(f, "game:{id}:player"),
            ChatRoom::Game(id, GameRoom::Spectator) => write!(f, "game:{id}:spectator"),
            ChatRoom::Arena(id) => write!(f, "arena:{id}"),
            ChatRoom::Tournament(id) => write!(f, "tournament:{id}"),
        }
    }
}

/// A line said in a room, as stored: `seq` numbers a room's lines from 1, in the order
/// they were said, so a client that saw up to `seq` asks for what came after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    /// Its number in the room.
    pub seq: u64,
    /// Who said it.
    pub user: UserId,
    /// Their name when they said it.
    pub name: String,
    /// What they said: plain text, never markup.
    pub text: String,
    /// When (Unix ms).
    pub at_ms: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rooms_read_and_print_the_same() {
        for name in [
            "game:abc123:player",
            "game:abc123:spectator",
            "arena:a1",
            "tournament:t-1_x",
        ] {
            let room: ChatRoom = name.parse().unwrap();
            assert_eq!(room.to_string(), name);
        }
        for bad in [
            "",
            "game:abc",
            "game::player",
            "game:a b:player",
            "game:x:referee",
            "arena:x:y",
            "lobby",
            "arena:<script>",
        ] {
            assert_eq!(bad.parse::<ChatRoom>(), Err(BadRoom), "{bad}");
        }
        let long = format!("arena:{}", "a".repeat(65));
        assert!(long.parse::<ChatRoom>().is_err());
    }
}
