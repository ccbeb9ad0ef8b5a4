//! A finished game once its actor has gone: the small value the registry keeps in its
//! place for rematches and late watchers, served with no task of its own. Once a game
//! is over, archived, and its end shown to everyone and stored, its actor hands it over
//! ([`FinishedGame`]) and exits, dropping the law's record, the event log, the clock
//! and the rest; what stays is the game's meta, its followers, its final state (the
//! `game_state` a late watcher or a `resume` gets, as JSON), the frames from its
//! `game_over` on (a `resume` from just before the end replays them), and what a
//! rematch needs (the offer, whether it started, the clock when a drawn game on a match
//! clock carries its times into the next one). Commands sent to the game's handle
//! after the hand-over are answered here, in the caller's turn, under a small lock:
//! joins, leaves, the state, and a player's rematch or its decline (any other intent is
//! `game_over`). Its events (rematch offered, declined, started) are numbered on from
//! the game's version and shown to its followers and, with Redis, published on the
//! game's channel for other nodes' proxies; they are not stored: the game is archived
//! and its stored copy released. The registry lets it go after
//! `game.linger_after_end_secs` from the end, or [`GONE_GRACE`] after both players have
//! left it.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use shared::protocol::{GameEvent, GameState, OutcomeReason, UserId};
use shared::rules::Color;
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::clock::GameClock;
use super::replica::EVENT_PREFIX;
use super::{
    ActCmd, Acted, Followers, GameCmd, GameError, GameHandle, GameMeta, GameSpec, Intent, JoinCmd,
    JoinReply, Role, Versioned,
};
use crate::cluster::Cluster;

/// How long a finished game stays in memory once neither player follows it: long
/// enough for a page reload to come back and ask for a rematch.
pub const GONE_GRACE: Duration = Duration::from_secs(5);

/// The frames from the `game_over` on kept for a `resume`: the end and what followed
/// it (archived, rematch offers and declines); older ones give way to newer.
pub const KEEP_FRAMES: usize = 6;

/// Starts a rematch: the new game (colours swapped) and, for a drawn game on a match
/// clock, the finished game's clock, whose times the new game carries. The registry's.
pub type StartRematch =
    Arc<dyn Fn(GameSpec, Option<&GameClock>) -> Result<GameHandle, GameError> + Send + Sync>;

/// What a finished game's actor hands over.
pub struct FinishedParts {
    /// The game.
    pub meta: Arc<GameMeta>,
    /// Its followers, who go on following.
    pub followers: Arc<Followers>,
    /// The final state as a spectator sees it.
    pub state: GameState,
    /// The frames of the events from the `game_over` on, the last at `state.version`.
    pub frames: Vec<Utf8Bytes>,
    /// A standing rematch offer.
    pub rematch_offer: Option<Color>,
    /// The rematch has started.
    pub rematch_started: bool,
    /// The clock, when a rematch would carry its times (a drawn game on a match
    /// clock, INT 3.6.4); `None` otherwise.
    pub carry: Option<GameClock>,
    /// Spectators' sessions in the game.
    pub spectators: u32,
    /// When the game ended.
    pub ended_at: Instant,
    /// Since when neither player has a session in the game.
    pub players_gone_at: Option<Instant>,
}

/// What changes in a finished game: a few counters and the rematch.
struct Inner {
    /// The final state's JSON (version, connections and spectators as at the end).
    state: Box<str>,
    version: u64,
    /// The frames of the last events, the last at `version`.
    frames: Vec<Utf8Bytes>,
    rematch_offer: Option<Color>,
    rematch_started: bool,
    carry: Option<Box<GameClock>>,
    spectators: u32,
    ended_at: Instant,
    players_gone_at: Option<Instant>,
}

/// A finished game with no actor (see the module's header).
pub struct FinishedGame {
    meta: Arc<GameMeta>,
    followers: Arc<Followers>,
    cluster: Option<Arc<Cluster>>,
    start: StartRematch,
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for FinishedGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FinishedGame")
            .field("id", &self.meta.id)
            .finish_non_exhaustive()
    }
}

/// Nothing more is shown once the registry lets the game go.
impl Drop for FinishedGame {
    fn drop(&mut self) {
        self.followers.end();
    }
}

impl FinishedGame {
    /// The finished game from what its actor hands over; `cluster` to tell other
    /// nodes' proxies its events, `start` to start a rematch.
    pub fn new(
        parts: FinishedParts,
        cluster: Option<Arc<Cluster>>,
        start: StartRematch,
    ) -> Result<FinishedGame, serde_json::Error> {
        let skip = parts.frames.len().saturating_sub(KEEP_FRAMES);
        let frames: Vec<Utf8Bytes> = parts.frames[skip..].iter().map(exact).collect();
        parts.followers.compact();
        let inner = Inner {
            state: serde_json::to_string(&parts.state)?.into_boxed_str(),
            version: parts.state.version,
            frames,
            rematch_offer: parts.rematch_offer,
            rematch_started: parts.rematch_started,
            carry: parts.carry.map(Box::new),
            spectators: parts.spectators,
            ended_at: parts.ended_at,
            players_gone_at: parts.players_gone_at,
        };
        Ok(FinishedGame {
            meta: parts.meta,
            followers: parts.followers,
            cluster,
            start,
            inner: Mutex::new(inner),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every change is a few plain fields: a panic cannot leave them inconsistent.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The bytes this value keeps in memory: its own (in its `Arc`), the meta's and the
    /// followers' (see [`GameMeta::heap_bytes`], [`Followers::heap_bytes`]), the final
    /// state's JSON, the frames kept (each its own exact block) and the clock carried,
    /// if any. Allocator overhead aside, and the followers' sessions' own queues, which
    /// are theirs.
    pub fn retained_bytes(&self) -> usize {
        let inner = self.lock();
        let frames = inner.frames.capacity() * size_of::<Utf8Bytes>()
            + inner.frames.iter().map(|f| f.len()).sum::<usize>();
        let carry = inner.carry.as_ref().map_or(0, |_| size_of::<GameClock>());
        2 * size_of::<usize>()
            + size_of::<FinishedGame>()
            + self.meta.heap_bytes()
            + self.followers.heap_bytes()
            + inner.state.len()
            + frames
            + carry
    }

    /// The game.
    pub fn meta(&self) -> &Arc<GameMeta> {
        &self.meta
    }

    /// Its followers.
    pub fn followers(&self) -> &Arc<Followers> {
        &self.followers
    }

    /// Has it stayed long enough: `linger` after the end, or [`GONE_GRACE`] after both
    /// players left (not before the end)?
    pub fn expired(&self, now: Instant, linger: Duration) -> bool {
        let mut inner = self.lock();
        self.note_players(&mut inner, now);
        let t = inner.ended_at;
        let until = match inner.players_gone_at {
            Some(gone) => (t + linger).min(gone.max(t) + GONE_GRACE),
            None => t + linger,
        };
        now >= until
    }

    /// Answers a command sent to the game's handle.
    pub fn handle(&self, cmd: GameCmd) {
        match cmd {
            GameCmd::Join(join) => {
                let JoinCmd {
                    user,
                    role,
                    since,
                    reply,
                } = *join;
                let _ = reply.send(self.join(&user, role, since));
            }
            GameCmd::Leave(leave) => self.leave(leave.1),
            GameCmd::Act(act) => {
                let ActCmd {
                    user,
                    intent,
                    reply,
                    ..
                } = *act;
                let _ = reply.send(self.act(&user, intent).map(|version| Acted {
                    version,
                    draw_offer: None,
                    acked: false,
                }));
            }
            GameCmd::State { reply } => self.state_to(reply),
            GameCmd::Resync => {}
        }
    }

    fn state_to(&self, reply: oneshot::Sender<GameState>) {
        let inner = self.lock();
        if let Ok(state) = self.state(&inner) {
            let _ = reply.send(state);
        }
    }

    /// The final state with the version, connections and spectators of now. Players
    /// and spectators alike get it without legal moves or draw offer permission: the
    /// game is over.
    fn state(&self, inner: &Inner) -> Result<GameState, GameError> {
        let mut state: GameState = serde_json::from_str(&inner.state)
            .map_err(|e| GameError::Law(format!("the finished game's state: {e}")))?;
        state.version = inner.version;
        state.connected = [Color::White, Color::Black].map(|c| self.followers.attends(c));
        state.spectators = inner.spectators;
        Ok(state)
    }

    fn join(&self, user: &UserId, role: Role, since: Option<u64>) -> Result<JoinReply, GameError> {
        let plays = match role {
            Role::Player => Some(self.meta.color_of(user).ok_or(GameError::NotAPlayer)?),
            Role::Spectator => None,
        };
        let mut inner = self.lock();
        match plays {
            // The player's session (or attendance) came before its join.
            Some(_) => self.note_players(&mut inner, Instant::now()),
            None => inner.spectators += 1,
        }
        let missed = match since {
            Some(v) => missed(&inner, v),
            None => Some(Vec::new()),
        };
        Ok(JoinReply {
            state: self.state(&inner)?,
            missed,
        })
    }

    fn leave(&self, role: Role) {
        let mut inner = self.lock();
        match role {
            Role::Player => self.note_players(&mut inner, Instant::now()),
            Role::Spectator => inner.spectators = inner.spectators.saturating_sub(1),
        }
    }

    /// Since when neither player attends (read from the followers, not counted): kept
    /// from the first time it is seen, forgotten when one is back.
    fn note_players(&self, inner: &mut Inner, now: Instant) {
        if [Color::White, Color::Black]
            .into_iter()
            .any(|c| self.followers.attends(c))
        {
            inner.players_gone_at = None;
        } else {
            inner.players_gone_at.get_or_insert(now);
        }
    }

    fn act(&self, user: &UserId, intent: Intent) -> Result<u64, GameError> {
        let color = self.meta.color_of(user).ok_or(GameError::NotAPlayer)?;
        let mut inner = self.lock();
        match intent {
            Intent::Rematch => self.rematch(&mut inner, color),
            Intent::RematchDecline => {
                if inner.rematch_offer != Some(color.opponent()) {
                    return Err(GameError::NoOffer);
                }
                inner.rematch_offer = None;
                Ok(self.emit(&mut inner, GameEvent::RematchDeclined { by: color }))
            }
            _ => Err(GameError::Over),
        }
    }

    /// As the actor's rematch: offers, or accepts the standing offer by starting the
    /// new game (under this game's lock, so that two acceptances start one game).
    fn rematch(&self, inner: &mut Inner, color: Color) -> Result<u64, GameError> {
        let spec = &self.meta.spec;
        match rematch_step(spec, inner.rematch_started, inner.rematch_offer, color)? {
            RematchStep::Standing => return Ok(inner.version),
            RematchStep::Offer => {
                inner.rematch_offer = Some(color);
                return Ok(self.emit(inner, GameEvent::RematchOffered { by: color }));
            }
            RematchStep::Start => {}
        }
        let handle = (self.start)(rematch_spec(spec), inner.carry.as_deref())?;
        inner.rematch_started = true;
        inner.rematch_offer = None;
        let game_id = handle.id().clone();
        Ok(self.emit(inner, GameEvent::RematchStarted { game_id }))
    }

    /// Numbers an event, keeps its frame for a `resume`, shows it to the followers and
    /// other nodes.
    fn emit(&self, inner: &mut Inner, event: GameEvent) -> u64 {
        inner.version += 1;
        let versioned = Arc::new(Versioned::new(
            self.meta.id.clone(),
            inner.version,
            event,
            None,
        ));
        if inner.frames.len() >= KEEP_FRAMES {
            inner.frames.remove(0);
        }
        inner.frames.push(exact(&versioned.json));
        self.followers.publish(&versioned, None);
        if let Some(cluster) = &self.cluster {
            cluster.bus.publish(
                cluster.ev_channel(&self.meta.id),
                format!("{EVENT_PREFIX}{}", versioned.json),
            );
        }
        inner.version
    }
}

/// A frame in a block of its own, of its exact size: a serialised event's buffer may
/// be up to twice as large, and is shared with the log being dropped.
fn exact(frame: &Utf8Bytes) -> Utf8Bytes {
    Utf8Bytes::from(frame.as_str().to_owned())
}

/// The frames after version `since`, if all are kept.
fn missed(inner: &Inner, since: u64) -> Option<Vec<Utf8Bytes>> {
    let first = inner.version + 1 - inner.frames.len() as u64;
    let from = since.checked_add(1)?.checked_sub(first)?;
    let from = usize::try_from(from).ok()?;
    Some(
        inner
            .frames
            .get(from..)
            .map(<[_]>::to_vec)
            .unwrap_or_default(),
    )
}

/// What a player's rematch request does, the game being over.
pub enum RematchStep {
    /// The player's own offer stands already: nothing changes.
    Standing,
    /// The player offers.
    Offer,
    /// The opponent's offer stands: the rematch starts.
    Start,
}

/// The rematch rules, the same for a live actor and a [`FinishedGame`]: arena games
/// have none (the arena pairs again), and one rematch starts at most.
pub fn rematch_step(
    spec: &GameSpec,
    started: bool,
    offer: Option<Color>,
    color: Color,
) -> Result<RematchStep, GameError> {
    if spec.arena.is_some() {
        return Err(GameError::RematchNotAllowed(
            "arena games have no rematch: the arena pairs again",
        ));
    }
    if started {
        return Err(GameError::RematchNotAllowed(
            "the rematch has already started",
        ));
    }
    Ok(match offer {
        Some(c) if c == color => RematchStep::Standing,
        Some(c) if c == color.opponent() => RematchStep::Start,
        _ => RematchStep::Offer,
    })
}

/// The rematch of a game: colours swapped, outside any tournament.
pub fn rematch_spec(spec: &GameSpec) -> GameSpec {
    GameSpec {
        white: spec.black.clone(),
        black: spec.white.clone(),
        tournament: None,
        ..spec.clone()
    }
}

/// Whether a game that ended with `reason` and `winner` was drawn (an aborted game is
/// not): a match clock runs on through drawn games until the first win (INT 3.6.4).
pub fn drawn(winner: Option<Color>, reason: OutcomeReason) -> bool {
    winner.is_none() && reason != OutcomeReason::Aborted
}

#[cfg(test)]
mod tests {
    use shared::clock::LagPolicy;
    use shared::protocol::{GameId, RatingChange, Ratings, UserInfo};
    use shared::rules::Variant;

    use super::super::ToMove;
    use super::super::log::EventLog;
    use super::super::record::Record;
    use super::*;

    fn player(id: &str, name: &str) -> UserInfo {
        UserInfo {
            id: UserId(format!("u:{id}")),
            name: name.into(),
            guest: false,
            rating: Some(1500),
            bot: false,
        }
    }

    /// A finished game as its actor holds it at the end.
    struct Ended {
        meta: Arc<GameMeta>,
        followers: Arc<Followers>,
        record: Record,
        log: EventLog,
        state: GameState,
    }

    /// A rated Russian 5+3 game of `plies` plies (each the first legal move) that
    /// White then resigns, its events logged and trimmed as its actor does.
    fn played(plies: usize) -> Ended {
        let spec = GameSpec {
            variant: Variant::Draughts(shared::rules::draughts::DraughtsVariant::Russian),
            time_control: "5+3".parse().expect("a control"),
            rated: true,
            white: player("alice_the_first", "Alice the First"),
            black: player("bob_the_second", "Bob the Second"),
            start_fen: None,
            ruleset: None,
            tournament: None,
            arena: None,
            berserk: false,
        };
        let id = GameId::from("k3Xp9aQe");
        let meta = Arc::new(GameMeta::new(id.clone(), spec, 1500, true));
        let mut record = Record::for_spec(&meta.spec).expect("a record");
        let now = Instant::now();
        let mut clock = GameClock::new(meta.spec.time_control, LagPolicy::Off, now, Color::White)
            .expect("a clock");
        let mut log = EventLog::default();
        while record.ply() < plies {
            let by = record.turn();
            let Some(text) = record.position().legal_move_texts().into_iter().next() else {
                break;
            };
            let played = record.play(by, &text, false).expect("legal");
            if record.ply() == 1 {
                clock.first_move(now).expect("starts");
            } else {
                let _ = clock.press(by, now, 0, None);
            }
            let turn = record.turn();
            let to_move = ToMove {
                color: turn,
                legal: record.position().legal_move_texts(),
                draw_offer: Some(record.offer_refusal(turn)),
            };
            let event = GameEvent::Move {
                by,
                played: played.info,
                fen: record.fen(),
                legal_moves: Vec::new(),
                draw_offer_refusal: None,
                clock: clock.state(now),
            };
            let version = log.version() + 1;
            log.push(Arc::new(Versioned::new(
                id.clone(),
                version,
                event,
                Some(to_move),
            )));
            log.shown(version);
            log.trim(version, version);
        }
        assert_eq!(record.ply(), plies, "the game went on");
        let outcome = record.resign(Color::White).expect("resigns");
        clock.stop(now);
        let change = |before, after| Some(RatingChange { before, after });
        let over = GameEvent::GameOver {
            outcome: outcome.clone(),
            clock: clock.state(now),
            ratings: Some(Ratings {
                white: change(1500, 1488),
                black: change(1500, 1512),
            }),
        };
        let version = log.version() + 1;
        log.push(Arc::new(Versioned::new(id.clone(), version, over, None)));
        log.shown(version);
        log.trim(version, version);
        let spec = &meta.spec;
        let state = GameState {
            game_id: id,
            ruleset: Some(record.ruleset()),
            version,
            variant: spec.variant,
            time_control: spec.time_control,
            speed: None,
            rated: spec.rated,
            white: spec.white.clone(),
            black: spec.black.clone(),
            initial_fen: record.initial_fen(),
            fen: record.fen(),
            moves: record.moves().map(str::to_owned).collect(),
            last_move: record.last_move().cloned(),
            turn: record.turn(),
            legal_moves: Vec::new(),
            draw_offer_refusal: None,
            clock: clock.state(now),
            draw_offer: None,
            takeback_offer: None,
            connected: [true, true],
            away: Vec::new(),
            spectators: 0,
            outcome: Some(outcome),
            archived: false,
            berserk: Vec::new(),
            arena: None,
            tournament: None,
            created_ms: Some(1_764_000_000_000),
            break_until_ms: None,
        };
        Ended {
            meta,
            followers: Followers::new(64),
            record,
            log,
            state,
        }
    }

    fn no_rematch() -> StartRematch {
        Arc::new(|_, _| Err(GameError::ShuttingDown))
    }

    /// What stays of a finished game of 40 plies once its actor has handed it over,
    /// by [`FinishedGame::retained_bytes`], plus the registry's entry for it: at most
    /// 4 KiB. Printed beside it, a lower bound of what the actor held for the same game
    /// at its end: the frames its log still held and the law's record as its stored
    /// JSON (its heap is larger: positions, history), without the actor itself.
    #[test]
    fn a_finished_game_of_40_plies_keeps_at_most_4_kib() {
        let ended = played(40);
        let held: usize = ended
            .log
            .held_after(0)
            .iter()
            .map(|e| e.json().len() + e.mover().map_or(0, |m| m.json.len()))
            .sum();
        let law = serde_json::to_string(ended.record.parts().0).map_or(0, |j| j.len());
        let frames = ended
            .log
            .held_after(0)
            .iter()
            .skip_while(|e| !e.is_over())
            .map(|e| e.json().clone())
            .collect();
        let parts = FinishedParts {
            meta: ended.meta.clone(),
            followers: ended.followers.clone(),
            state: ended.state.clone(),
            frames,
            rematch_offer: None,
            rematch_started: false,
            carry: None,
            spectators: 0,
            ended_at: Instant::now(),
            players_gone_at: None,
        };
        let game = FinishedGame::new(parts, None, no_rematch()).expect("made");
        let entry = std::mem::size_of::<(GameId, Arc<FinishedGame>)>() + game.meta.id.0.len();
        let kept = game.retained_bytes() + entry;
        println!(
            "kept once finished: {kept} bytes (final state {} bytes); the actor held at least \
             {held} bytes of frames and {law} bytes of the law's record (as JSON)",
            game.lock().state.len()
        );
        assert!(kept <= 4096, "{kept} bytes kept");
        assert!(kept > game.lock().state.len(), "everything is counted");
    }

    /// A finished game answers a late watcher with its final state, a `resume` from
    /// before its end with the `game_over` and what followed, refuses moves, and keeps
    /// the rematch offer, its decline and a second offer in order.
    #[test]
    fn a_finished_game_answers_joins_and_rematch_offers() {
        let ended = played(12);
        let white = ended.meta.spec.white.id.clone();
        let black = ended.meta.spec.black.id.clone();
        let over_at = ended.state.version;
        let frames = vec![ended.log.held_after(over_at - 1)[0].json().clone()];
        let parts = FinishedParts {
            meta: ended.meta.clone(),
            followers: ended.followers.clone(),
            state: ended.state.clone(),
            frames,
            rematch_offer: None,
            rematch_started: false,
            carry: None,
            spectators: 0,
            ended_at: Instant::now(),
            players_gone_at: Some(Instant::now()),
        };
        let game = FinishedGame::new(parts, None, no_rematch()).expect("made");
        // Black's session and two of White's attend.
        let followers = ended.followers.clone();
        let black_there = followers.attend(Color::Black).expect("attends");
        let white_there = [Color::White; 2].map(|c| followers.attend(c).expect("attends"));
        let late = game
            .join(&UserId::from("u:carol"), Role::Spectator, None)
            .expect("joins");
        assert_eq!(late.state.outcome, ended.state.outcome);
        assert_eq!((late.state.version, late.state.spectators), (over_at, 1));
        let resumed = game
            .join(&white, Role::Player, Some(over_at - 1))
            .expect("resumes");
        let missed = resumed.missed.expect("held");
        assert_eq!(missed.len(), 1);
        assert!(missed[0].as_str().contains("game_over"), "{}", missed[0]);
        assert!(
            game.join(&white, Role::Player, Some(1))
                .expect("joins")
                .missed
                .is_none()
        );
        assert_eq!(game.act(&black, Intent::Resign), Err(GameError::Over));
        assert_eq!(
            game.act(&black, Intent::RematchDecline),
            Err(GameError::NoOffer)
        );
        assert_eq!(game.act(&white, Intent::Rematch), Ok(over_at + 1));
        assert_eq!(
            game.act(&white, Intent::Rematch),
            Ok(over_at + 1),
            "offered already"
        );
        assert_eq!(game.act(&black, Intent::RematchDecline), Ok(over_at + 2));
        assert_eq!(game.act(&black, Intent::Rematch), Ok(over_at + 3));
        let missed = game
            .join(&black, Role::Player, Some(over_at))
            .expect("resumes")
            .missed
            .expect("held");
        let kinds: Vec<&str> = ["rematch_offered", "rematch_declined", "rematch_offered"].into();
        assert_eq!(missed.len(), kinds.len());
        for (frame, kind) in missed.iter().zip(kinds) {
            assert!(frame.as_str().contains(kind), "{frame}");
        }
        // Accepting starts the rematch through the registry, here gone.
        assert_eq!(
            game.act(&white, Intent::Rematch),
            Err(GameError::ShuttingDown)
        );
        // Black's session and White's two leave: the game goes a short grace later.
        let linger = Duration::from_secs(60);
        let [white_a, white_b] = white_there;
        drop((black_there, white_a));
        game.leave(Role::Player);
        game.leave(Role::Player);
        assert!(!game.expired(Instant::now() + GONE_GRACE, linger));
        drop(white_b);
        game.leave(Role::Player);
        let now = Instant::now();
        assert!(!game.expired(now, linger));
        assert!(game.expired(now + GONE_GRACE, linger));
    }
}
