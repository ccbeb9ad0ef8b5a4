//! A live game's event log, bounded: the actor holds the events its replica has not
//! stored yet, the events not shown yet, and the last [`KEEP_SHOWN`] shown (for a
//! `resume` from a moment ago), those shown as their frames only ([`Held::Frame`]).
//! Of the events it let go it keeps only what the actor still reads: the mover's
//! clock after each move on the record (for the archive), and whether a
//! `player_left` or a `game_over` was ever announced. A replay from before the first
//! event held is refused ([`EventLog::after`] gives `None`): the joiner gets the full
//! state instead (`docs/protocol.md`, "Versions and reconnection").

use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use shared::protocol::GameEvent;
use shared::rules::Color;

use super::{MoverCopy, Versioned};

/// How many events already stored and shown the log still holds: a `resume` after a
/// short break (two moves a side) gets them replayed; from further back the full state
/// is the smaller answer anyway (one frame, where each event is one). Each held event is
/// ~0.5 KiB of a live game's memory (`docs/performance.md`).
pub const KEEP_SHOWN: u64 = 4;

/// What a full rewrite of the stored log writes in place of an event no longer held
/// (Redis restarted empty): read back, it counts as an event let go.
pub const PLACEHOLDER: &str = "{}";

/// An event the log holds: whole until it is shown, then its frame and what the
/// log's readers ask of it (the store writes frames, the replay sends them). The
/// structured event and its `Arc` were most of a held event's memory, and nobody reads
/// them again but a replay, which parses the frame back ([`Held::versioned`]).
#[derive(Debug)]
pub enum Held {
    /// Not shown yet.
    Whole(Arc<Versioned>),
    /// Shown: the `game_event` frame everyone but the mover had.
    Frame {
        /// The game's version after it.
        version: u64,
        /// The frame, without legal moves.
        json: Utf8Bytes,
        /// What kind of event it was, as far as the log's readers ask.
        mark: Mark,
    },
}

/// What the readers of a [`Held::Frame`] ask of its event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// It put a side on the move ([`GameEvent::puts_on_move`]).
    PutsOnMove,
    /// The `game_over`.
    Over,
    /// Anything else.
    Other,
}

impl Mark {
    fn of(event: &GameEvent) -> Mark {
        match event {
            GameEvent::GameOver { .. } => Mark::Over,
            e if e.puts_on_move() => Mark::PutsOnMove,
            _ => Mark::Other,
        }
    }
}

impl Held {
    /// The game's version after the event.
    pub fn version(&self) -> u64 {
        match self {
            Held::Whole(e) => e.version,
            Held::Frame { version, .. } => *version,
        }
    }

    /// The frame everyone but the player it put on the move gets.
    pub fn json(&self) -> &Utf8Bytes {
        match self {
            Held::Whole(e) => &e.json,
            Held::Frame { json, .. } => json,
        }
    }

    fn mark(&self) -> Mark {
        match self {
            Held::Whole(e) => Mark::of(&e.event),
            Held::Frame { mark, .. } => *mark,
        }
    }

    /// Whether the event put a side on the move.
    pub fn puts_on_move(&self) -> bool {
        self.mark() == Mark::PutsOnMove
    }

    /// Whether the event is the `game_over`.
    pub fn is_over(&self) -> bool {
        self.mark() == Mark::Over
    }

    /// The event whole, if it is still held so (not yet shown).
    pub fn whole(&self) -> Option<&Arc<Versioned>> {
        match self {
            Held::Whole(e) => Some(e),
            Held::Frame { .. } => None,
        }
    }

    /// The copy with legal moves for the player the event put on the move, while it
    /// is not shown yet.
    pub fn mover(&self) -> Option<&MoverCopy> {
        self.whole().and_then(|e| e.mover.as_ref())
    }

    /// The event whole: as held, or parsed back from its frame (without a mover copy).
    pub fn versioned(&self) -> Option<Arc<Versioned>> {
        match self {
            Held::Whole(e) => Some(e.clone()),
            Held::Frame { json, .. } => Versioned::parse(json),
        }
    }
}

/// The events of one game held in memory, and what is left of those let go.
#[derive(Debug, Default)]
pub struct EventLog {
    /// Events let go from the front: the first held is version `dropped + 1`.
    dropped: u64,
    events: Vec<Held>,
    /// The mover's clock after each move still on the record (takebacks remove theirs).
    clocks: Vec<u64>,
    /// A `player_left` was announced for White, for Black.
    left: [bool; 2],
    /// A `game_over` was announced.
    over: bool,
    /// Events up to this version are held as their frames ([`EventLog::shown`]).
    framed: u64,
}

impl EventLog {
    /// The log of a game restored from its store: `dropped` events were let go before
    /// (placeholders), then `events`, which must follow on.
    pub fn restored(dropped: u64, events: Vec<Arc<Versioned>>) -> EventLog {
        let mut log = EventLog {
            dropped,
            ..EventLog::default()
        };
        for e in events {
            log.push(e);
        }
        log
    }

    /// The version of the last event.
    pub fn version(&self) -> u64 {
        self.dropped + self.events.len() as u64
    }

    /// Events let go: the first held is the next version.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Appends the next event (its version must be [`EventLog::version`] + 1).
    pub fn push(&mut self, e: Arc<Versioned>) {
        debug_assert_eq!(e.version, self.version() + 1);
        match &e.event {
            GameEvent::Move { by, clock, .. } => self.clocks.push(match by {
                Color::White => clock.white_ms,
                Color::Black => clock.black_ms,
            }),
            GameEvent::TakenBack { plies, .. } => {
                let keep = self.clocks.len().saturating_sub(*plies as usize);
                self.clocks.truncate(keep);
            }
            GameEvent::PlayerLeft { color, .. } => self.left[color.index()] = true,
            GameEvent::GameOver { .. } => self.over = true,
            _ => {}
        }
        self.events.push(Held::Whole(e));
    }

    /// The events after version `since`, all held; `None` if some of them were let go.
    pub fn after(&self, since: u64) -> Option<&[Held]> {
        let from = since.checked_sub(self.dropped)?;
        let from = usize::try_from(from).unwrap_or(usize::MAX);
        Some(&self.events[from.min(self.events.len())..])
    }

    /// The events held after version `since` (from the first held if `since` is older).
    pub fn held_after(&self, since: u64) -> &[Held] {
        self.after(since).unwrap_or(&self.events)
    }

    /// The mover's clock after each move on the record, in order.
    pub fn move_clocks(&self) -> &[u64] {
        &self.clocks
    }

    /// Whether a `player_left` of `color` was ever announced.
    pub fn left_announced(&self, color: Color) -> bool {
        self.left[color.index()]
    }

    /// Whether the `game_over` was announced.
    pub fn over_announced(&self) -> bool {
        self.over
    }

    fn index(&self, version: u64) -> usize {
        let i = version.saturating_sub(self.dropped);
        usize::try_from(i)
            .unwrap_or(usize::MAX)
            .min(self.events.len())
    }

    /// Keeps the events up to version `shown` as their frames: their copies with
    /// legal moves went to their players (a replay makes the one it gives anew from the
    /// game as it is then, [`super::actor::Actor::missed`]), and nobody reads their
    /// structured form again.
    pub fn shown(&mut self, shown: u64) {
        let (from, to) = (self.index(self.framed), self.index(shown));
        for held in &mut self.events[from..to] {
            if let Held::Whole(e) = held {
                *held = Held::Frame {
                    version: e.version,
                    json: e.json.clone(),
                    mark: Mark::of(&e.event),
                };
            }
        }
        self.framed = shown.max(self.framed);
    }

    /// Lets go of the events the store holds (up to version `stored`) that were shown
    /// (up to version `shown`), but the last [`KEEP_SHOWN`] shown.
    pub fn trim(&mut self, stored: u64, shown: u64) {
        let cut = stored.min(shown.saturating_sub(KEEP_SHOWN));
        if cut <= self.dropped {
            return;
        }
        let n = self.index(cut);
        self.events.drain(..n);
        self.dropped += n as u64;
    }
}

#[cfg(test)]
mod tests {
    use shared::protocol::{ClockState, GameId};

    use super::super::ToMove;
    use super::*;

    fn played() -> shared::rules::MoveInfo {
        let start = shared::rules::Position::start(shared::rules::Variant::Chess);
        let mv = start.parse_move("e2e4").expect("a move");
        start.move_info(&mv)
    }

    fn clock(white_ms: u64, black_ms: u64) -> ClockState {
        ClockState {
            white_ms,
            black_ms,
            running: None,
        }
    }

    /// An event of version `version`, a `move` of `by` (with a mover copy) when `by`
    /// is given, else a spectator count.
    fn event(version: u64, by: Option<Color>, ms: u64) -> Arc<Versioned> {
        let id = GameId::from("g1");
        let (event, to_move) = match by {
            Some(by) => (
                GameEvent::Move {
                    by,
                    played: played(),
                    fen: String::new(),
                    legal_moves: Vec::new(),
                    draw_offer_refusal: None,
                    clock: clock(ms, ms + 1),
                },
                Some(ToMove {
                    color: by.opponent(),
                    legal: vec!["11-15".into()],
                    draw_offer: None,
                }),
            ),
            None => (GameEvent::Spectators { count: 1 }, None),
        };
        Arc::new(Versioned::new(id, version, event, to_move))
    }

    fn moves(n: u64) -> EventLog {
        let mut log = EventLog::default();
        for v in 1..=n {
            let by = if v % 2 == 1 {
                Color::White
            } else {
                Color::Black
            };
            log.push(event(v, Some(by), v * 100));
        }
        log
    }

    #[test]
    fn only_the_events_not_stored_and_the_last_shown_stay() {
        let mut log = moves(40);
        log.trim(30, 40);
        assert_eq!(log.version(), 40);
        assert_eq!(log.dropped(), 30);
        assert_eq!(log.after(30).map(<[_]>::len), Some(10));
        assert!(log.after(29).is_none());
        assert_eq!(log.after(40).map(<[_]>::len), Some(0));
        // Everything stored and shown: the last few stay.
        log.trim(40, 40);
        assert_eq!(log.dropped(), 40 - KEEP_SHOWN);
        let first = 40 - KEEP_SHOWN;
        assert_eq!(log.after(first).map(|e| e[0].version()), Some(first + 1));
        assert!(log.after(first - 1).is_none());
        // Nothing stored yet: nothing goes.
        let mut fresh = moves(20);
        fresh.trim(0, 20);
        assert_eq!(fresh.dropped(), 0);
        // Not shown yet: nothing goes either.
        fresh.trim(20, 0);
        assert_eq!(fresh.dropped(), 0);
    }

    #[test]
    fn the_clocks_of_moves_let_go_stay_for_the_archive() {
        let mut log = moves(20);
        log.trim(20, 20);
        log.push(Arc::new(Versioned::new(
            GameId::from("g1"),
            21,
            GameEvent::TakenBack {
                plies: 2,
                fen: String::new(),
                legal_moves: Vec::new(),
                draw_offer_refusal: None,
                clock: clock(0, 0),
            },
            None,
        )));
        let white_then_black: Vec<u64> = (1..=18)
            .map(|v| if v % 2 == 1 { v * 100 } else { v * 100 + 1 })
            .collect();
        assert_eq!(log.move_clocks(), white_then_black.as_slice());
    }

    #[test]
    fn announcements_are_remembered_after_their_events_go() {
        let mut log = EventLog::default();
        let id = GameId::from("g1");
        let left = GameEvent::PlayerLeft {
            color: Color::Black,
            claim_after_ms: 1,
        };
        log.push(Arc::new(Versioned::new(id, 1, left, None)));
        for v in 2..=20 {
            log.push(event(v, None, 0));
        }
        log.trim(20, 20);
        assert!(log.after(0).is_none());
        assert!(log.left_announced(Color::Black));
        assert!(!log.left_announced(Color::White));
        assert!(!log.over_announced());
    }

    #[test]
    fn the_events_shown_keep_no_mover_copy() {
        let mut log = moves(6);
        log.push(event(7, None, 0));
        log.shown(5);
        let movers = |log: &EventLog| -> Vec<bool> {
            log.after(0)
                .unwrap_or(&[])
                .iter()
                .map(|e| e.mover().is_some())
                .collect()
        };
        assert_eq!(
            movers(&log),
            [false, false, false, false, false, true, false]
        );
        log.push(event(8, Some(Color::Black), 800));
        log.shown(8);
        assert_eq!(movers(&log), [false; 8]);
    }

    #[test]
    fn events_shown_are_held_as_their_frames() {
        let mut log = moves(10);
        log.push(Arc::new(Versioned::new(
            GameId::from("g1"),
            11,
            GameEvent::GameOver {
                outcome: shared::protocol::Outcome {
                    winner: Some(Color::White),
                    reason: shared::protocol::OutcomeReason::Resignation,
                    detail: None,
                },
                clock: clock(1, 2),
                ratings: None,
            },
            None,
        )));
        // Shown and stored up to 9: those as frames (the last four shown stay), 10
        // and 11 whole.
        log.shown(9);
        log.trim(9, 9);
        let held = log.held_after(0);
        let whole: Vec<(u64, bool)> = held
            .iter()
            .map(|e| (e.version(), e.whole().is_some()))
            .collect();
        assert_eq!(
            whole,
            [
                (6, false),
                (7, false),
                (8, false),
                (9, false),
                (10, true),
                (11, true)
            ]
        );
        assert!(held[..5].iter().all(Held::puts_on_move));
        assert!(held[5].is_over() && !held[5].puts_on_move());
        // A frame parses back into its event.
        let back = held[2].versioned().expect("parsed");
        assert_eq!(back.version, 8);
        let by = match &back.event {
            GameEvent::Move { by, .. } => Some(*by),
            _ => None,
        };
        assert_eq!(by, Some(Color::Black));
        assert_eq!(back.json, *held[2].json());
        log.shown(11);
        log.trim(11, 11);
        assert!(log.held_after(0).iter().all(|e| e.whole().is_none()));
        assert!(log.held_after(0)[KEEP_SHOWN as usize - 1].is_over());
    }

    #[test]
    fn a_restored_log_follows_on_its_placeholders() {
        let events = (11..=14).map(|v| event(v, Some(Color::White), v)).collect();
        let log = EventLog::restored(10, events);
        assert_eq!(log.version(), 14);
        assert!(log.after(9).is_none());
        assert_eq!(log.after(12).map(<[_]>::len), Some(2));
        assert_eq!(log.move_clocks(), [11, 12, 13, 14]);
    }
}
