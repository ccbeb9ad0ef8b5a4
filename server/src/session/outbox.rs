//! The outgoing side of a session: a bounded queue of frames drained by a writer task
//! that owns the socket's write half (`socket.rs`). A full queue means the client
//! cannot keep up: the session is closed and its queue freed rather than grown.
//! Closing is a signal beside the queue, so a close frame goes out even when the queue
//! is full.
//!
//! The queue is `flume`'s bounded channel, whose buffer holds only what is queued (a
//! playing session's few frames), where tokio's allocates blocks of 32 entries, one when
//! it opens and a second once 32 have passed: 2.6 KiB for every playing connection, four
//! of them a game (`docs/performance.md`, "Queues that hold only what is queued").

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use shared::protocol::{ErrorCode, GameId, ServerMessage, close};
use tokio_util::sync::CancellationToken;

use super::socket::{Frame, FrameWriter};
use crate::metrics::Metrics;

/// Time the writer gets to flush what is queued and send the close frame.
const CLOSE_FLUSH: Duration = Duration::from_secs(1);

/// The most queued frames the writer puts into one write to the socket.
const BATCH: usize = 32;

/// The first close reason wins; later ones are ignored.
#[derive(Debug, Default)]
pub struct Closer {
    token: CancellationToken,
    /// Set with the token: read on every frame queued, where the token's own check
    /// takes its lock.
    asked: AtomicBool,
    reason: Mutex<Option<(u16, &'static str)>>,
}

impl Closer {
    /// Asks for the session to close with `code` and `reason`.
    pub fn close(&self, code: u16, reason: &'static str) {
        let mut slot = self.reason.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some((code, reason));
        }
        self.asked.store(true, Ordering::Release);
        self.token.cancel();
    }

    /// Resolves once a close was asked for.
    pub async fn closed(&self) {
        self.token.cancelled().await;
    }

    /// Has a close been asked for?
    pub fn is_closed(&self) -> bool {
        self.asked.load(Ordering::Acquire)
    }

    fn reason(&self) -> Option<(u16, &'static str)> {
        *self.reason.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// What the writer takes from the queue: a text frame, two that leave in one write (a
/// move's event and its `move_ack`, queued together by the game's actor), a ping, or
/// the pong answering the client's. An entry is kept small: the pair, rarer than single
/// frames, is boxed.
#[derive(Debug)]
pub enum Queued {
    /// One text frame.
    Text(Utf8Bytes),
    /// Two text frames, in this order.
    Pair(Box<(Utf8Bytes, Utf8Bytes)>),
    /// A WebSocket ping with this payload.
    Ping([u8; 8]),
    /// A WebSocket pong with this payload (the client's ping's, at most 125 bytes).
    Pong(tungstenite::Bytes),
}

impl Queued {
    /// This entry's frames, in order.
    fn frames(&self) -> impl Iterator<Item = Frame<'_>> {
        let (first, second) = match self {
            Queued::Text(text) => (Frame::text(text.as_str()), None),
            Queued::Pair(pair) => (
                Frame::text(pair.0.as_str()),
                Some(Frame::text(pair.1.as_str())),
            ),
            Queued::Ping(payload) => (Frame::ping(payload), None),
            Queued::Pong(payload) => (Frame::pong(payload), None),
        };
        std::iter::once(first).chain(second)
    }
}

/// The sending half, cloned into every task that writes to this client.
#[derive(Clone, Debug)]
pub struct Outbox {
    tx: flume::Sender<Queued>,
    closer: Arc<Closer>,
    metrics: Arc<Metrics>,
}

impl Outbox {
    /// A queue of `capacity` frames, and the receiver for [`writer`].
    pub fn new(capacity: usize, metrics: Arc<Metrics>) -> (Outbox, flume::Receiver<Queued>) {
        let (tx, rx) = flume::bounded(capacity);
        let outbox = Outbox {
            tx,
            closer: Arc::new(Closer::default()),
            metrics,
        };
        (outbox, rx)
    }

    /// The close signal.
    pub fn closer(&self) -> &Arc<Closer> {
        &self.closer
    }

    /// Queues a message. Returns `false` if the session is closing (now or already).
    pub fn send(&self, msg: &ServerMessage) -> bool {
        self.push(Queued::Text(msg.to_json().into()))
    }

    /// Queues an already serialised message (shared, not copied: one event's JSON
    /// goes to every follower of the game).
    pub fn send_json(&self, json: Utf8Bytes) -> bool {
        self.push(Queued::Text(json))
    }

    /// Answers a refusal with a typed `error` (about a game, and a move of it, if
    /// `game` says so), counted among the clients' errors.
    pub fn error(
        &self,
        code: ErrorCode,
        message: impl Into<String>,
        game: Option<(&GameId, Option<u64>)>,
    ) {
        self.metrics.client_errors.inc();
        self.send(&ServerMessage::Error {
            code,
            message: message.into(),
            game_id: game.map(|(id, _)| id.clone()),
            move_id: game.and_then(|(_, move_id)| move_id),
        });
    }

    /// Queues a WebSocket ping.
    pub fn ping(&self, payload: u64) -> bool {
        self.push(Queued::Ping(payload.to_be_bytes()))
    }

    /// Queues the pong answering a client's ping (RFC 6455 5.5.3).
    pub fn pong(&self, payload: tungstenite::Bytes) -> bool {
        self.push(Queued::Pong(payload))
    }

    fn push(&self, queued: Queued) -> bool {
        if self.closer.is_closed() {
            return false;
        }
        let frames = match &queued {
            Queued::Text(_) | Queued::Ping(_) | Queued::Pong(_) => 1,
            Queued::Pair(_) => 2,
        };
        match self.tx.try_send(queued) {
            Ok(()) => {
                self.metrics.messages_out.inc_by(frames);
                true
            }
            Err(flume::TrySendError::Full(_)) => {
                self.metrics.slow_consumers.inc();
                self.closer.close(close::TOO_SLOW, "too slow");
                false
            }
            Err(flume::TrySendError::Disconnected(_)) => false,
        }
    }

    /// Closes the session with `code` and `reason` after what is already queued.
    pub fn close(&self, code: u16, reason: &'static str) {
        self.closer.close(code, reason);
    }
}

/// A game's events reach a session through its outbox, written by the game's task.
impl crate::game::Sink for Outbox {
    fn push(&self, frame: Utf8Bytes) -> bool {
        self.send_json(frame)
    }

    fn push_pair(&self, first: Utf8Bytes, second: Utf8Bytes) -> bool {
        Outbox::push(self, Queued::Pair(Box::new((first, second))))
    }

    fn too_slow(&self) {
        self.metrics.slow_consumers.inc();
        self.close(close::TOO_SLOW, "too slow");
    }
}

/// Writes queued frames to the socket until a close is asked for or the socket fails;
/// then flushes (briefly) and sends the close frame. Frames already queued when the
/// writer wakes leave in one write: every write to a socket is a system call, and on a
/// busy node those are most of the cost of a move; a move's acknowledgement and the
/// mover's own event are queued as one ([`Queued::Pair`]) so that they share a write.
pub(crate) async fn writer(
    mut socket: FrameWriter,
    rx: flume::Receiver<Queued>,
    closer: Arc<Closer>,
    metrics: Arc<Metrics>,
) {
    loop {
        tokio::select! {
            biased;
            () = closer.closed() => break,
            frame = rx.recv_async() => match frame {
                Ok(frame) => {
                    metrics.socket_writes.inc();
                    // Boxed, as the close below: every connection holds this task's
                    // future while it waits for a frame, and a batch is held only
                    // while it is written.
                    if Box::pin(write_batch(&mut socket, &rx, frame)).await.is_err() {
                        closer.close(close::NORMAL, "");
                        return;
                    }
                }
                Err(flume::RecvError::Disconnected) => break,
            },
        }
    }
    let (code, reason) = closer.reason().unwrap_or((close::NORMAL, ""));
    let slow = code == close::TOO_SLOW;
    let finish = async move {
        // A client too slow to read gets no backlog, only the close frame.
        if !slow {
            while let Ok(queued) = rx.try_recv() {
                if write_batch(&mut socket, &rx, queued).await.is_err() {
                    return;
                }
            }
        }
        // Nothing more can be queued.
        drop(rx);
        let _ = socket.close(code, reason).await;
    };
    let _ = Box::pin(tokio::time::timeout(CLOSE_FLUSH, finish)).await;
}

/// Writes `first` and whatever else is queued (up to `BATCH` entries) in one write.
async fn write_batch(
    socket: &mut FrameWriter,
    rx: &flume::Receiver<Queued>,
    first: Queued,
) -> std::io::Result<()> {
    let mut batch = Vec::with_capacity(BATCH);
    batch.push(first);
    while batch.len() < BATCH {
        match rx.try_recv() {
            Ok(queued) => batch.push(queued),
            Err(_) => break,
        }
    }
    let frames: Vec<Frame<'_>> = batch.iter().flat_map(Queued::frames).collect();
    socket.write(&frames).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queued_entry_takes_at_most_40_bytes() {
        // A text frame's shared bytes and the tag: the queue's buffer grows by entries
        // of this size while a client reads slowly, and stays at its largest.
        assert!(std::mem::size_of::<Queued>() <= 40);
    }

    #[test]
    fn a_full_queue_closes_as_too_slow() {
        let metrics = Arc::new(Metrics::default());
        let (out, rx) = Outbox::new(2, metrics.clone());
        let msg = ServerMessage::PoolLeft;
        assert!(out.send(&msg));
        assert!(out.send(&msg));
        assert!(!out.closer().is_closed());
        assert!(!out.send(&msg));
        assert!(out.closer().is_closed());
        assert_eq!(out.closer().reason(), Some((close::TOO_SLOW, "too slow")));
        assert_eq!(metrics.slow_consumers.get(), 1);
        // Nothing more is queued once closing; later reasons do not replace the first.
        assert!(rx.try_recv().is_ok());
        assert!(!out.send(&msg));
        out.close(close::NORMAL, "");
        assert_eq!(out.closer().reason(), Some((close::TOO_SLOW, "too slow")));
    }
}
