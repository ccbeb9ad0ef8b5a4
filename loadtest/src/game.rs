//! A bot's own copy of a game: the position rebuilt with `shared::rules` from the moves
//! it receives (checked against the server's FEN), the version sequence check that
//! counts dropped and out-of-order events, the random legal move a player picks, and
//! the send times shared between the players and spectators of a game for round trips.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shared::protocol::{ClockState, GameEvent, GameId, GameState, ServerMessage};
use shared::rules::{Color, Move, Position, Variant};
use tokio::time::Instant;

/// Why a bot's copy of a game disagrees with what it received.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The initial FEN could not be read.
    #[error("bad initial FEN `{0}`")]
    Fen(String),
    /// A received move is not legal in our copy of the position.
    #[error("move `{text}` is not legal at ply {ply}")]
    Illegal {
        /// The move.
        text: String,
        /// Where.
        ply: u32,
    },
    /// After a move our position differs from the server's.
    #[error("position differs from the server's after ply {0}")]
    Diverged(u32),
}

/// Where a received version falls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seq {
    /// The next one.
    Next,
    /// Later than the next: this many events are missing.
    Gap(u64),
    /// Already seen.
    Stale,
}

/// A game as one bot sees it.
#[derive(Clone, Debug)]
pub struct GameView {
    /// The game.
    pub id: GameId,
    /// The position now.
    pub position: Position,
    /// Plies played.
    pub ply: u32,
    /// The last version seen.
    pub version: u64,
    /// The bot's side, or none for a spectator.
    pub me: Option<Color>,
}

impl GameView {
    /// From the full state the server sends on start or watch.
    pub fn from_state(state: &GameState, me: Option<Color>) -> Result<GameView, ViewError> {
        let position = Position::from_fen(state.variant, &state.initial_fen)
            .map_err(|_| ViewError::Fen(state.initial_fen.clone()))?;
        let mut view = GameView {
            id: state.game_id.clone(),
            position,
            ply: 0,
            version: state.version,
            me,
        };
        for text in &state.moves {
            view.apply(text, None)?;
        }
        if view.position.fen() != state.fen {
            return Err(ViewError::Diverged(view.ply));
        }
        Ok(view)
    }

    /// A game from the variant's start position (the relay baseline has no server to
    /// send a state).
    pub fn fresh(id: GameId, variant: Variant, me: Option<Color>, version: u64) -> GameView {
        GameView {
            id,
            position: Position::start(variant),
            ply: 0,
            version,
            me,
        }
    }

    /// Checks `version` against the last one seen, and remembers it if newer.
    pub fn sequence(&mut self, version: u64) -> Seq {
        let expected = self.version + 1;
        if version < expected {
            return Seq::Stale;
        }
        self.version = version;
        if version == expected {
            Seq::Next
        } else {
            Seq::Gap(version - expected)
        }
    }

    /// Plays a received move on our copy; checks the resulting FEN if one is given.
    pub fn apply(&mut self, text: &str, fen: Option<&str>) -> Result<(), ViewError> {
        let illegal = || ViewError::Illegal {
            text: text.to_string(),
            ply: self.ply,
        };
        let mv = self.position.parse_move(text).map_err(|_| illegal())?;
        self.position.play(&mv).map_err(|_| illegal())?;
        self.ply += 1;
        match fen {
            Some(fen) if fen != self.position.fen() => Err(ViewError::Diverged(self.ply)),
            _ => Ok(()),
        }
    }

    /// Is it this bot's move?
    pub fn my_turn(&self) -> bool {
        self.me == Some(self.position.side_to_move())
    }

    /// A random legal move, if any.
    pub fn choose(&self, rng: &mut fastrand::Rng) -> Option<Move> {
        let moves = self.position.legal_moves();
        if moves.is_empty() {
            return None;
        }
        moves.get(rng.usize(..moves.len())).cloned()
    }

    /// The move's text in the variant's notation.
    pub fn text(&self, mv: &Move) -> String {
        self.position.move_text(mv)
    }

    /// Have the rules ended the game (no legal move; in chess also a dead position)?
    pub fn rules_over(&self) -> bool {
        match &self.position {
            Position::Chess(p) if p.is_dead_position() => true,
            p => p.legal_moves().is_empty(),
        }
    }

    /// Do `legal` (a `legal_moves` list received) and our own copy's legal moves name
    /// the same moves?
    pub fn same_legal_moves(&self, legal: &[String]) -> bool {
        let mut ours = self.position.legal_move_texts();
        let mut theirs = legal.to_vec();
        ours.sort_unstable();
        theirs.sort_unstable();
        ours == theirs
    }

    /// The event damka would send its spectators for `mv` played here, as the relay
    /// baseline's frame: same shape, same size, same parsing on the receiving side
    /// (damka's copy for the opponent, now to move, also carries its legal moves; the
    /// relay copies one frame to everyone, and spectators are most of a fan-out).
    pub fn event_frame(&self, mv: &Move, version: u64) -> String {
        let mut after = self.position.clone();
        let _ = after.play(mv);
        let by = self.position.side_to_move();
        ServerMessage::GameEvent {
            game_id: self.id.clone(),
            version,
            event: GameEvent::Move {
                by,
                played: self.position.move_info(mv),
                fen: after.fen(),
                legal_moves: Vec::new(),
                draw_offer_refusal: None,
                clock: ClockState {
                    white_ms: 180_000,
                    black_ms: 180_000,
                    running: Some(by.opponent()),
                },
            },
        }
        .to_json()
    }
}

/// How many recent sends a game remembers (spectators may read a little late).
const RING: usize = 16;

/// When each recent move of one game was sent, keyed by ply (damka) or version (relay).
#[derive(Default)]
pub struct MoveClock {
    sent: Mutex<[(u64, Option<Instant>); RING]>,
}

impl MoveClock {
    /// The move with this key is being sent now.
    pub fn sent(&self, key: u64, at: Instant) {
        if let Ok(mut s) = self.sent.lock() {
            s[(key % RING as u64) as usize] = (key, Some(at));
        }
    }

    /// Time since the move with this key was sent, if it is still remembered.
    pub fn since(&self, key: u64, now: Instant) -> Option<Duration> {
        let s = self.sent.lock().ok()?;
        match s[(key % RING as u64) as usize] {
            (k, Some(at)) if k == key => Some(now.saturating_duration_since(at)),
            _ => None,
        }
    }
}

/// The [`MoveClock`] of every game in play, by game id.
#[derive(Default)]
pub struct Tracks {
    games: Mutex<HashMap<GameId, Arc<MoveClock>>>,
}

impl Tracks {
    /// The clock of a game, created on first use.
    pub fn get(&self, id: &GameId) -> Arc<MoveClock> {
        match self.games.lock() {
            Ok(mut g) => g.entry(id.clone()).or_default().clone(),
            Err(_) => Arc::default(),
        }
    }

    /// Forgets a finished game.
    pub fn remove(&self, id: &GameId) {
        if let Ok(mut g) = self.games.lock() {
            g.remove(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::draughts::DraughtsVariant;

    #[test]
    fn random_games_stay_legal_and_relay_frames_parse() {
        let mut rng = fastrand::Rng::with_seed(7);
        for variant in Variant::ALL {
            let mut mover = GameView::fresh(GameId::from("g"), variant, Some(Color::White), 0);
            let mut watcher = GameView::fresh(GameId::from("g"), variant, None, 0);
            for _ in 0..200 {
                if mover.rules_over() {
                    break;
                }
                mover.me = Some(mover.position.side_to_move());
                let Some(mv) = mover.choose(&mut rng) else {
                    break;
                };
                let frame = mover.event_frame(&mv, watcher.version + 1);
                let text = mover.text(&mv);
                mover.apply(&text, None).unwrap();
                let Ok(ServerMessage::GameEvent {
                    version,
                    event:
                        GameEvent::Move {
                            played,
                            fen,
                            legal_moves,
                            ..
                        },
                    ..
                }) = serde_json::from_str::<ServerMessage>(&frame)
                else {
                    panic!("bad frame {frame}");
                };
                assert!(legal_moves.is_empty(), "a spectator's frame: {frame}");
                assert!(mover.same_legal_moves(&mover.position.legal_move_texts()));
                assert_eq!(watcher.sequence(version), Seq::Next);
                watcher.apply(&played.text, Some(&fen)).unwrap();
            }
            assert_eq!(mover.position, watcher.position, "{variant}");
        }
    }

    #[test]
    fn versions() {
        let mut v = GameView::fresh(
            GameId::from("g"),
            Variant::Draughts(DraughtsVariant::Russian),
            None,
            3,
        );
        assert_eq!(v.sequence(4), Seq::Next);
        assert_eq!(v.sequence(4), Seq::Stale);
        assert_eq!(v.sequence(7), Seq::Gap(2));
        assert_eq!(v.sequence(8), Seq::Next);
    }

    #[test]
    fn move_clock_ring() {
        let c = MoveClock::default();
        let t = Instant::now();
        c.sent(3, t);
        assert!(c.since(3, t).is_some());
        assert!(c.since(3 + RING as u64, t).is_none());
        c.sent(3 + RING as u64, t);
        assert!(c.since(3, t).is_none());
    }
}
