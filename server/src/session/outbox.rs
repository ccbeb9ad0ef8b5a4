//! The outgoing side of a session: a bounded queue of frames drained by a writer task
//! that owns the socket's sink. A full queue means the client cannot keep up: the
//! session is closed and its queue freed rather than grown. Closing is a signal beside
//! the queue, so a close frame goes out even when the queue is full.
//!
//! The queue is `flume`'s bounded channel, whose buffer holds only what is queued (a
//! playing session's few frames), where tokio's allocates blocks of 32 entries, one when
//! it opens and a second once 32 have passed: 2.6 KiB for every playing connection, four
//! of them a game (`docs/performance.md`, "Queues that hold only what is queued").

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use shared::protocol::{ErrorCode, GameId, ServerMessage, close};
use tokio_util::sync::CancellationToken;

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
/// move's event and its `move_ack`, queued together by the game's actor), or a ping.
/// An entry is kept small: the pair, rarer than single frames, is boxed.
#[derive(Debug)]
pub enum Queued {
    /// One text frame.
    Text(Utf8Bytes),
    /// Two text frames, in this order.
    Pair(Box<(Utf8Bytes, Utf8Bytes)>),
    /// A WebSocket ping with this payload.
    Ping(u64),
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
        self.push(Queued::Ping(payload))
    }

    fn push(&self, queued: Queued) -> bool {
        if self.closer.is_closed() {
            return false;
        }
        let frames = match &queued {
            Queued::Text(_) | Queued::Ping(_) => 1,
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
pub async fn writer(
    mut sink: SplitSink<WebSocket, Message>,
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
                    // future while it waits for a frame.
                    if Box::pin(write_batch(&mut sink, &rx, frame)).await.is_err() {
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
                if feed(&mut sink, queued).await.is_err() {
                    return;
                }
            }
        }
        // Nothing more can be queued.
        drop(rx);
        let frame = CloseFrame {
            code,
            reason: reason.into(),
        };
        let _ = sink.send(Message::Close(Some(frame))).await;
        let _ = sink.close().await;
    };
    let _ = Box::pin(tokio::time::timeout(CLOSE_FLUSH, finish)).await;
}

/// Writes `first` and whatever else is queued (up to `BATCH` entries), then flushes once.
async fn write_batch(
    sink: &mut SplitSink<WebSocket, Message>,
    rx: &flume::Receiver<Queued>,
    first: Queued,
) -> Result<(), axum::Error> {
    feed(sink, first).await?;
    for _ in 1..BATCH {
        match rx.try_recv() {
            Ok(queued) => feed(sink, queued).await?,
            Err(_) => break,
        }
    }
    sink.flush().await
}

/// Buffers a queue entry's frames in the sink, unflushed.
async fn feed(sink: &mut SplitSink<WebSocket, Message>, queued: Queued) -> Result<(), axum::Error> {
    match queued {
        Queued::Text(text) => sink.feed(Message::Text(text)).await,
        Queued::Pair(pair) => {
            let (first, second) = *pair;
            sink.feed(Message::Text(first)).await?;
            sink.feed(Message::Text(second)).await
        }
        Queued::Ping(payload) => {
            sink.feed(Message::Ping(payload.to_be_bytes().to_vec().into()))
                .await
        }
    }
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
