//! Who sees a game's events: the sessions that follow it, each a [`Sink`] (its outbox)
//! written straight from the task that shows the events (the game's actor, or the proxy
//! of a game owned by another node), and the in-process readers: of every event (the
//! Bot API's streams, the computer's seat) on a broadcast made when the first of them
//! subscribes and dropped when the last is gone, and of the game's end alone (arena
//! and tournament organisers, one per game they start) on a broadcast of a few slots
//! that gets only the events an end depends on. No task per followed game: an event's
//! shared bytes go into every follower's queue in the showing task's turn.
//!
//! Who attends the game as a player is read from here, not counted: a player is
//! connected while an entry of theirs is here (a session's, until its outbox closes or
//! it lets go; or an attendance without frames, [`Followers::attend`], held by a Bot
//! API stream, a computer's seat, or the owner's answerer for a session on another
//! node). The game's task hears of every change on [`Followers::changed`].
//!
//! A session follows in two steps: [`Followers::follow`] before it joins, so that no
//! event shown meanwhile is missed (they wait in the entry), then [`Following::start`]
//! with the version its join was answered at, which queues the joined state and then
//! the waiting events after that version, under the same lock as [`Followers::publish`],
//! so that a follower's frames are in version order.

use std::sync::{Arc, Mutex, MutexGuard};

use axum::extract::ws::Utf8Bytes;
use shared::rules::Color;
use tokio::sync::{Notify, broadcast};

use super::{GameError, Versioned};
use crate::game::GameEvent;

/// Slots of the end readers' broadcast: it gets at most one berserk per player and the
/// `game_over`, so its readers never lag.
const END_BUFFER: usize = 4;

/// Events a session joining a game may miss while its join is answered: past this, it
/// is too slow and is closed.
pub const JOIN_BACKLOG: usize = 256;

/// Where a follower's frames go: a session's outbox.
pub trait Sink: Send + Sync {
    /// Queues a frame; `false` if the follower is gone (closing, or too slow).
    fn push(&self, frame: Utf8Bytes) -> bool;
    /// Queues two frames to leave in one write (a move's event and its `move_ack`).
    fn push_pair(&self, first: Utf8Bytes, second: Utf8Bytes) -> bool;
    /// Closes the follower as too slow to keep up.
    fn too_slow(&self);
}

/// A session among a game's followers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FollowerId(u64);

/// One session following the game.
struct Entry {
    key: FollowerId,
    sink: Arc<dyn Sink>,
    /// The colour the session plays (`None`: a spectator).
    plays: Option<Color>,
    state: Joined,
}

enum Joined {
    /// Joining: the events shown meanwhile.
    Waiting(Vec<Arc<Versioned>>),
    /// Joined at `after`: later events go to the sink as they are shown.
    Live { after: u64 },
    /// No frames: an attendance, or a session's entry it stopped (it still attends
    /// until it lets go of the entry, after its next join).
    Quiet,
}

/// The sink of an attendance: takes nothing.
struct NoFrames;

impl Sink for NoFrames {
    fn push(&self, _: Utf8Bytes) -> bool {
        true
    }
    fn push_pair(&self, _: Utf8Bytes, _: Utf8Bytes) -> bool {
        true
    }
    fn too_slow(&self) {}
}

#[derive(Default)]
struct Inner {
    sessions: Vec<Entry>,
    next_key: u64,
    readers: Option<broadcast::Sender<Arc<Versioned>>>,
    /// The readers of the end: `berserk` and `game_over` only.
    ends: Option<broadcast::Sender<Arc<Versioned>>>,
    /// The showing task has exited: nothing more will be shown.
    ended: bool,
    /// The game's `game_over` has been shown.
    over: bool,
    /// The version of the last event shown.
    last: u64,
}

impl Inner {
    /// Which players have an entry.
    fn players(&self) -> [bool; 2] {
        let mut on = [false; 2];
        for color in self.sessions.iter().filter_map(|e| e.plays) {
            on[color.index()] = true;
        }
        on
    }
}

/// The followers of one game, shared by its handles and its showing task.
pub struct Followers {
    inner: Mutex<Inner>,
    /// A player's entry came or went.
    changed: Notify,
    /// The broadcast's capacity for in-process readers (`game.event_buffer`).
    buffer: usize,
}

impl std::fmt::Debug for Followers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("Followers")
            .field("sessions", &inner.sessions.len())
            .field("ended", &inner.ended)
            .finish()
    }
}

impl Followers {
    /// No followers yet; in-process readers get a broadcast of `buffer` events.
    pub fn new(buffer: usize) -> Arc<Followers> {
        Arc::new(Followers {
            inner: Mutex::new(Inner::default()),
            changed: Notify::new(),
            buffer: buffer.max(1),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Shows an event: queued for every session (the copy with legal moves for the
    /// player it puts on the move), sent to the readers; with `ack`, that follower's
    /// frame goes with the given one in one write. A session whose queue is closed is
    /// no longer followed. `true` if `ack` was queued.
    pub fn publish(&self, event: &Arc<Versioned>, ack: Option<(FollowerId, Utf8Bytes)>) -> bool {
        let mut inner = self.lock();
        let mut acked = false;
        let mut ack = ack;
        let players = inner.players();
        inner.last = inner.last.max(event.version);
        inner.sessions.retain_mut(|entry| match &mut entry.state {
            Joined::Quiet => true,
            Joined::Live { after } if *after >= event.version => true,
            Joined::Live { .. } => {
                let frame = event.json_for(entry.plays).clone();
                match ack.take_if(|(to, _)| *to == entry.key) {
                    Some((_, second)) => {
                        acked = entry.sink.push_pair(frame, second);
                        acked
                    }
                    None => entry.sink.push(frame),
                }
            }
            Joined::Waiting(backlog) if backlog.len() < JOIN_BACKLOG => {
                backlog.push(event.clone());
                true
            }
            Joined::Waiting(_) => {
                entry.sink.too_slow();
                false
            }
        });
        if let Some(tx) = &inner.readers
            && tx.send(event.clone()).is_err()
        {
            // Every reader has gone: the buffer goes too, until the next one.
            inner.readers = None;
        }
        inner.over |= matches!(event.event, GameEvent::GameOver { .. });
        if matches!(
            event.event,
            GameEvent::GameOver { .. } | GameEvent::Berserk { .. }
        ) && let Some(tx) = &inner.ends
            && tx.send(event.clone()).is_err()
        {
            inner.ends = None;
        }
        if inner.players() != players {
            self.changed.notify_one();
        }
        acked
    }

    /// A reader of every event from now on (skip those at or below the version of the
    /// state you read); [`GameError::Gone`] once the game's task has exited.
    pub fn subscribe(&self) -> Result<broadcast::Receiver<Arc<Versioned>>, GameError> {
        let mut inner = self.lock();
        if inner.ended {
            return Err(GameError::Gone);
        }
        let buffer = self.buffer;
        Ok(inner
            .readers
            .get_or_insert_with(|| broadcast::channel(buffer).0)
            .subscribe())
    }

    /// A reader of the events a game's end depends on (`berserk`, `game_over`) from now
    /// on, on a broadcast of a few slots: for whoever follows many games to their ends
    /// only. [`GameError::Gone`] once the game's task has exited.
    pub fn subscribe_end(&self) -> Result<broadcast::Receiver<Arc<Versioned>>, GameError> {
        let mut inner = self.lock();
        if inner.ended {
            return Err(GameError::Gone);
        }
        Ok(inner
            .ends
            .get_or_insert_with(|| broadcast::channel(END_BUFFER).0)
            .subscribe())
    }

    /// Starts following for a session that plays `plays` (`None`: watches): events
    /// wait until [`Following::start`]. Call it before joining.
    pub fn follow(
        self: &Arc<Self>,
        sink: Arc<dyn Sink>,
        plays: Option<Color>,
    ) -> Result<Following, GameError> {
        let inner = self.lock();
        if inner.ended {
            return Err(GameError::Gone);
        }
        Ok(self.enter(inner, sink, plays, Joined::Waiting(Vec::new())))
    }

    /// Adds a session's entry in `state` under the lock it is given, then lets go of
    /// the lock and tells the game's task if a player came.
    fn enter(
        self: &Arc<Self>,
        mut inner: MutexGuard<'_, Inner>,
        sink: Arc<dyn Sink>,
        plays: Option<Color>,
        state: Joined,
    ) -> Following {
        let key = FollowerId(inner.next_key);
        inner.next_key += 1;
        inner.sessions.push(Entry {
            key,
            sink,
            plays,
            state,
        });
        drop(inner);
        if plays.is_some() {
            self.changed.notify_one();
        }
        Following {
            followers: self.clone(),
            key,
        }
    }

    /// Starts following, joined already, for a session given the game's state of
    /// `version` without asking the game's task (a new game's `game_start`, made as the
    /// game announced its start): under the same lock as [`Followers::publish`],
    /// `first` queues that state, and every event after it follows as it is shown.
    /// `None` (nothing queued, no entry made) if an event after `version` was shown
    /// before: the session follows and joins as usual.
    pub fn follow_from(
        self: &Arc<Self>,
        sink: Arc<dyn Sink>,
        plays: Option<Color>,
        version: u64,
        first: impl FnOnce(),
    ) -> Result<Option<Following>, GameError> {
        let inner = self.lock();
        if inner.ended {
            return Err(GameError::Gone);
        }
        if inner.last > version {
            return Ok(None);
        }
        first();
        let state = Joined::Live { after: version };
        Ok(Some(self.enter(inner, sink, plays, state)))
    }

    /// The player of `color` attends without frames (a Bot API stream, a computer's
    /// seat, a session on another node) until the returned entry is dropped. Call it
    /// before joining, as [`Followers::follow`].
    pub fn attend(self: &Arc<Self>, color: Color) -> Result<Following, GameError> {
        let following = self.follow(Arc::new(NoFrames), Some(color))?;
        following.stop();
        Ok(following)
    }

    /// Does the player of `color` attend: a session of theirs (or an attendance)?
    pub fn attends(&self, color: Color) -> bool {
        self.lock().players()[color.index()]
    }

    /// Resolves once a player's entry came or went since the last time it resolved
    /// (one waiter: the game's task).
    pub async fn changed(&self) {
        self.changed.notified().await;
    }

    /// Sessions following, and readers subscribed.
    pub fn count(&self) -> usize {
        let inner = self.lock();
        let readers = |tx: &Option<broadcast::Sender<Arc<Versioned>>>| {
            tx.as_ref().map_or(0, broadcast::Sender::receiver_count)
        };
        inner.sessions.len() + readers(&inner.readers) + readers(&inner.ends)
    }

    /// The showing task has exited: readers see their channel close, sessions are let
    /// go, and nobody can follow any more.
    pub fn end(&self) {
        let mut inner = self.lock();
        inner.ended = true;
        inner.readers = None;
        inner.ends = None;
        inner.sessions.clear();
        drop(inner);
        self.changed.notify_one();
    }

    /// For a finished game held without its actor (at its hand-over, then at each of
    /// the registry's sweeps): the broadcast goes once no reader holds it (its ring
    /// holds the last events), and the sessions' list gives back the room it no longer
    /// uses.
    pub fn compact(&self) {
        let mut inner = self.lock();
        let inner = &mut *inner;
        for tx in [&mut inner.readers, &mut inner.ends] {
            if tx.as_ref().is_some_and(|tx| tx.receiver_count() == 0) {
                *tx = None;
            }
        }
        inner.sessions.shrink_to_fit();
    }

    /// The bytes the followers keep: the value itself (in its `Arc`), its list of
    /// sessions by capacity (with the events waiting for a joining session), and the
    /// readers' broadcast while it exists (its ring of `buffer` slots; the events in it
    /// are counted by whoever else holds them). The sessions' queues are theirs.
    pub fn heap_bytes(&self) -> usize {
        let inner = self.lock();
        let waiting: usize = inner
            .sessions
            .iter()
            .map(|e| match &e.state {
                Joined::Waiting(backlog) => backlog.capacity() * size_of::<Arc<Versioned>>(),
                Joined::Live { .. } | Joined::Quiet => 0,
            })
            .sum();
        let slot = size_of::<Arc<Versioned>>() + 4 * size_of::<usize>();
        let readers = inner.readers.as_ref().map_or(0, |_| self.buffer * slot)
            + inner.ends.as_ref().map_or(0, |_| END_BUFFER * slot);
        2 * size_of::<usize>()
            + size_of::<Followers>()
            + inner.sessions.capacity() * size_of::<Entry>()
            + waiting
            + readers
    }

    /// Has the showing task exited?
    pub fn has_ended(&self) -> bool {
        self.lock().ended
    }
}

/// A session's place among a game's followers; dropping it (or [`Following::stop`])
/// stops the frames.
pub struct Following {
    followers: Arc<Followers>,
    key: FollowerId,
}

impl std::fmt::Debug for Following {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Following").field("key", &self.key).finish()
    }
}

impl Following {
    /// The join was answered at `version`: `first` queues what the session is to get
    /// first (the state, or the events it missed), then the events shown meanwhile
    /// after `version` follow, and every later one as it is shown.
    pub fn start(&self, version: u64, first: impl FnOnce()) {
        let mut inner = self.followers.lock();
        let Some(entry) = inner.sessions.iter_mut().find(|e| e.key == self.key) else {
            // The game ended meanwhile, or the queue closed: the state still goes.
            first();
            return;
        };
        first();
        let Joined::Waiting(backlog) = &mut entry.state else {
            return;
        };
        let backlog = std::mem::take(backlog);
        entry.state = Joined::Live { after: version };
        for event in backlog.iter().filter(|e| e.version > version) {
            if !entry.sink.push(event.json_for(entry.plays).clone()) {
                break;
            }
        }
    }

    /// Who this is among the game's followers.
    pub fn id(&self) -> FollowerId {
        self.key
    }

    /// Still receiving: the game's task has not exited, the session did not stop,
    /// and its queue took every frame.
    pub fn is_active(&self) -> bool {
        let inner = self.followers.lock();
        !inner.ended
            && inner
                .sessions
                .iter()
                .any(|e| e.key == self.key && !matches!(e.state, Joined::Quiet))
    }

    /// Has the game's `game_over` been shown (queued for this follower too, if it is
    /// still active)? A game is over for its players before its end is shown: the
    /// end is stored and archived first.
    pub fn end_shown(&self) -> bool {
        self.followers.lock().over
    }

    /// Stops the frames (the session leaves the game after, or follows it anew); a
    /// player still attends until this is dropped, so that following anew before
    /// letting go never shows them away.
    pub fn stop(&self) {
        let mut inner = self.followers.lock();
        if let Some(entry) = inner.sessions.iter_mut().find(|e| e.key == self.key) {
            entry.state = Joined::Quiet;
        }
    }
}

impl Drop for Following {
    fn drop(&mut self) {
        let mut inner = self.followers.lock();
        let Some(at) = inner.sessions.iter().position(|e| e.key == self.key) else {
            return;
        };
        let plays = inner.sessions.remove(at).plays;
        drop(inner);
        if plays.is_some() {
            self.followers.changed.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use shared::protocol::{GameEvent, GameId};

    use super::*;

    #[derive(Default)]
    struct Queue {
        frames: Mutex<Vec<String>>,
        slow: std::sync::atomic::AtomicBool,
        limit: Option<usize>,
    }

    impl Sink for Queue {
        fn push(&self, frame: Utf8Bytes) -> bool {
            let mut frames = self.frames.lock().unwrap();
            if self.limit.is_some_and(|l| frames.len() >= l) {
                return false;
            }
            frames.push(frame.to_string());
            true
        }
        fn push_pair(&self, first: Utf8Bytes, second: Utf8Bytes) -> bool {
            let mut frames = self.frames.lock().unwrap();
            frames.push(format!("{first}+{second}"));
            true
        }
        fn too_slow(&self) {
            self.slow.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn event(version: u64) -> Arc<Versioned> {
        let event = GameEvent::DrawOffered { by: Color::White };
        Arc::new(Versioned::new(GameId("g".into()), version, event, None))
    }

    fn versions(q: &Queue) -> Vec<u64> {
        q.frames
            .lock()
            .unwrap()
            .iter()
            .map(|f| {
                let v: serde_json::Value =
                    serde_json::from_str(f.split('+').next().unwrap()).unwrap();
                v["version"].as_u64().unwrap_or(0)
            })
            .collect()
    }

    #[test]
    fn events_shown_while_joining_follow_the_state_in_order() {
        let followers = Followers::new(4);
        let q = Arc::new(Queue::default());
        let following = followers.follow(q.clone(), None).unwrap();
        followers.publish(&event(3), None);
        followers.publish(&event(4), None);
        followers.publish(&event(5), None);
        assert!(versions(&q).is_empty(), "nothing before the state");
        // Joined at version 4: the state first, then 5 only.
        following.start(4, || {
            q.frames.lock().unwrap().push(r#"{"state":true}"#.into());
        });
        followers.publish(&event(6), None);
        assert_eq!(versions(&q), vec![0, 5, 6]);
        drop(following);
        followers.publish(&event(7), None);
        assert_eq!(versions(&q), vec![0, 5, 6]);
        assert_eq!(followers.count(), 0);
    }

    #[test]
    fn a_start_frame_is_followed_from_unless_an_event_after_it_was_shown() {
        let followers = Followers::new(4);
        followers.publish(&event(1), None);
        let q = Arc::new(Queue::default());
        let state = || q.frames.lock().unwrap().push(r#"{"state":true}"#.into());
        // The frame shows version 1: followed from it, attending at once.
        let a = followers
            .follow_from(q.clone(), Some(Color::White), 1, state)
            .unwrap()
            .expect("nothing after the frame was shown");
        assert!(followers.attends(Color::White));
        followers.publish(&event(2), None);
        assert_eq!(versions(&q), vec![0, 2]);
        // A frame of version 1 after version 2 was shown: nothing queued, no entry.
        let late = Arc::new(Queue::default());
        let missed = followers
            .follow_from(late.clone(), Some(Color::Black), 1, || {
                late.frames.lock().unwrap().push("{}".into());
            })
            .unwrap();
        assert!(missed.is_none());
        assert!(late.frames.lock().unwrap().is_empty());
        assert!(!followers.attends(Color::Black));
        drop(a);
        followers.end();
        let gone = followers.follow_from(Arc::new(Queue::default()), None, 2, || {});
        assert!(matches!(gone, Err(GameError::Gone)));
    }

    #[test]
    fn an_ack_goes_with_its_followers_frame_only() {
        let followers = Followers::new(4);
        let (a, b) = (Arc::new(Queue::default()), Arc::new(Queue::default()));
        let fa = followers.follow(a.clone(), Some(Color::White)).unwrap();
        let fb = followers.follow(b.clone(), None).unwrap();
        fa.start(0, || {});
        fb.start(0, || {});
        assert!(followers.publish(&event(1), Some((fa.id(), "ack".into()))));
        assert!(a.frames.lock().unwrap()[0].ends_with("}+ack"));
        assert!(!b.frames.lock().unwrap()[0].contains("ack"));
        // Not among the followers: not sent, and said so.
        drop(fa);
        assert!(!followers.publish(&event(2), Some((FollowerId(0), "ack".into()))));
        assert_eq!(versions(&b), vec![1, 2]);
    }

    #[test]
    fn a_closed_queue_is_let_go_and_a_stuck_join_is_too_slow() {
        let followers = Followers::new(4);
        let full = Arc::new(Queue {
            limit: Some(1),
            ..Queue::default()
        });
        let a = followers.follow(full.clone(), None).unwrap();
        a.start(0, || {});
        followers.publish(&event(1), None);
        assert!(a.is_active());
        followers.publish(&event(2), None);
        assert!(!a.is_active(), "its queue refused a frame");
        let stuck = Arc::new(Queue::default());
        let b = followers.follow(stuck.clone(), None).unwrap();
        for v in 3..3 + JOIN_BACKLOG as u64 + 1 {
            followers.publish(&event(v), None);
        }
        assert!(stuck.slow.load(std::sync::atomic::Ordering::SeqCst));
        assert!(!b.is_active());
    }

    #[test]
    fn a_player_attends_while_an_entry_of_theirs_is_here() {
        let followers = Followers::new(4);
        assert!(!followers.attends(Color::White));
        // A session of White's: attends from the follow, through a stop (following
        // anew before letting go), until dropped.
        let a = followers
            .follow(Arc::new(Queue::default()), Some(Color::White))
            .unwrap();
        assert!(followers.attends(Color::White));
        assert!(!followers.attends(Color::Black));
        a.start(0, || {});
        let b = followers
            .follow(Arc::new(Queue::default()), Some(Color::White))
            .unwrap();
        a.stop();
        assert!(!a.is_active(), "stopped: no more frames");
        assert!(followers.attends(Color::White));
        drop(a);
        assert!(followers.attends(Color::White), "the other session");
        drop(b);
        assert!(!followers.attends(Color::White));
        // An attendance without frames; a spectator attends nothing.
        let seat = followers.attend(Color::Black).unwrap();
        let watcher = followers.follow(Arc::new(Queue::default()), None).unwrap();
        watcher.start(0, || {});
        followers.publish(&event(1), None);
        assert!(followers.attends(Color::Black));
        drop(seat);
        assert!(!followers.attends(Color::Black));
        // A session whose queue closes attends no more.
        let full = Arc::new(Queue {
            limit: Some(1),
            ..Queue::default()
        });
        let c = followers.follow(full, Some(Color::Black)).unwrap();
        c.start(1, || {});
        followers.publish(&event(2), None);
        assert!(followers.attends(Color::Black));
        followers.publish(&event(3), None);
        assert!(
            !followers.attends(Color::Black),
            "its queue refused a frame"
        );
    }

    #[tokio::test]
    async fn the_games_task_hears_of_every_change_of_who_attends() {
        let followers = Followers::new(4);
        let heard = |f: &Arc<Followers>| {
            let f = f.clone();
            async move {
                tokio::time::timeout(std::time::Duration::from_millis(50), f.changed())
                    .await
                    .is_ok()
            }
        };
        let w = followers.follow(Arc::new(Queue::default()), None).unwrap();
        assert!(!heard(&followers).await, "a spectator changes nothing");
        let p = followers.attend(Color::White).unwrap();
        assert!(heard(&followers).await);
        drop(w);
        assert!(!heard(&followers).await);
        drop(p);
        assert!(heard(&followers).await);
    }

    #[test]
    fn a_finished_games_broadcast_goes_with_its_last_reader() {
        let followers = Followers::new(256);
        let idle = followers.heap_bytes();
        let rx = followers.subscribe().unwrap();
        followers.publish(&event(1), None);
        let reading = followers.heap_bytes();
        assert!(
            reading >= idle + 256 * size_of::<Arc<Versioned>>(),
            "the ring"
        );
        followers.compact();
        assert!(
            followers.lock().readers.is_some(),
            "a reader still holds it"
        );
        drop(rx);
        followers.compact();
        assert!(followers.lock().readers.is_none());
        assert_eq!(followers.heap_bytes(), idle);
    }

    #[test]
    fn end_readers_get_only_what_an_end_depends_on_on_a_few_slots() {
        let followers = Followers::new(256);
        let idle = followers.heap_bytes();
        let mut rx = followers.subscribe_end().unwrap();
        assert!(
            followers.heap_bytes() < idle + 256 * size_of::<Arc<Versioned>>() / 8,
            "a few slots, not the game's event buffer"
        );
        assert_eq!(followers.count(), 1, "a reader keeps the game followed");
        let clock = shared::protocol::ClockState {
            white_ms: 1000,
            black_ms: 500,
            running: None,
        };
        let made =
            |version, event| Arc::new(Versioned::new(GameId("g".into()), version, event, None));
        // Many moves and offers, then two berserks and the end: no lag, nothing else.
        for v in 1..=100 {
            followers.publish(&event(v), None);
        }
        for (v, by) in [(101, Color::White), (102, Color::Black)] {
            followers.publish(&made(v, GameEvent::Berserk { by, clock }), None);
        }
        let outcome = shared::protocol::Outcome {
            winner: Some(Color::White),
            reason: shared::protocol::OutcomeReason::Resignation,
            detail: None,
        };
        followers.publish(
            &made(
                103,
                GameEvent::GameOver {
                    outcome,
                    clock,
                    ratings: None,
                },
            ),
            None,
        );
        let got: Vec<u64> = std::iter::from_fn(|| rx.try_recv().ok().map(|v| v.version)).collect();
        assert_eq!(got, vec![101, 102, 103]);
        followers.end();
        assert!(matches!(
            rx.try_recv(),
            Err(broadcast::error::TryRecvError::Closed)
        ));
        assert!(matches!(followers.subscribe_end(), Err(GameError::Gone)));
    }

    #[test]
    fn readers_come_and_go_and_see_the_end() {
        let followers = Followers::new(4);
        followers.publish(&event(1), None);
        let mut rx = followers.subscribe().unwrap();
        followers.publish(&event(2), None);
        assert_eq!(rx.try_recv().unwrap().version, 2);
        drop(rx);
        followers.publish(&event(3), None);
        assert!(
            followers.lock().readers.is_none(),
            "the buffer went with the reader"
        );
        let mut rx = followers.subscribe().unwrap();
        let q = Arc::new(Queue::default());
        let following = followers.follow(q, Some(Color::White)).unwrap();
        followers.end();
        assert!(matches!(
            rx.try_recv(),
            Err(broadcast::error::TryRecvError::Closed)
        ));
        assert!(!following.is_active());
        assert!(matches!(followers.subscribe(), Err(GameError::Gone)));
        assert!(followers.follow(Arc::new(Queue::default()), None).is_err());
    }
}
