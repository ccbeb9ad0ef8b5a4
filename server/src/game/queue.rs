//! A game's command queue: bounded, many senders (the game's handles), one receiver
//! (its actor or proxy), holding only what waits. tokio's `mpsc` keeps its channel
//! (two cache-padded halves) and blocks of 32 slots, one when it opens and a second
//! once 32 commands have passed: about 2 KiB for every live game, where a game rarely
//! has more than one command waiting (`docs/performance.md`, "The game's command queue
//! holds only what waits"). Here the queue is a `VecDeque` under a lock, room a
//! semaphore of the queue's capacity, and the receiver's wake-up a `Notify`.
//!
//! The receiver can close the queue and still take what is queued (a finished game's
//! actor hands it over, then drains its queue): a send after the close gives its
//! command back. Once every sender has gone and the queue is empty, `recv` ends.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::{Notify, Semaphore, SemaphorePermit, TryAcquireError};

/// A new queue of at most `capacity` commands (at least one).
pub(crate) fn queue<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let shared = Arc::new(Shared {
        items: Mutex::new(Items {
            queue: VecDeque::new(),
            closed: false,
            senders: 1,
        }),
        room: Semaphore::new(capacity.clamp(1, Semaphore::MAX_PERMITS)),
        ready: Notify::new(),
    });
    (Sender(shared.clone()), Receiver(shared))
}

struct Shared<T> {
    items: Mutex<Items<T>>,
    /// A permit for each free place; closed with the queue.
    room: Semaphore,
    /// Something was queued, or the last sender went.
    ready: Notify,
}

struct Items<T> {
    queue: VecDeque<T>,
    closed: bool,
    senders: usize,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, Items<T>> {
        self.items.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Why [`Sender::try_send`] gave its command back.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum TrySendError<T> {
    /// The queue is full.
    Full(T),
    /// The receiver closed the queue or has gone.
    Closed(T),
}

/// A sender; clones share the queue.
pub(crate) struct Sender<T>(Arc<Shared<T>>);

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.0.lock().senders += 1;
        Sender(self.0.clone())
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let last = {
            let mut items = self.0.lock();
            items.senders -= 1;
            items.senders == 0
        };
        if last {
            self.0.ready.notify_one();
        }
    }
}

impl<T> Sender<T> {
    /// Queues `value`, waiting for room; the value back if the queue is closed.
    pub(crate) async fn send(&self, value: T) -> Result<(), T> {
        match self.0.room.acquire().await {
            Ok(permit) => permit.forget(),
            Err(_) => return Err(value),
        }
        self.push(value)
    }

    /// Queues `value` if there is room now.
    pub(crate) fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        match self.try_reserve() {
            Ok(permit) => permit.send(value).map_err(TrySendError::Closed),
            Err(TrySendError::Full(())) => Err(TrySendError::Full(value)),
            Err(TrySendError::Closed(())) => Err(TrySendError::Closed(value)),
        }
    }

    /// A place in the queue if there is one now, for a command made once it is sure.
    pub(crate) fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        match self.0.room.try_acquire() {
            Ok(place) => Ok(Permit {
                sender: self,
                place,
            }),
            Err(TryAcquireError::NoPermits) => Err(TrySendError::Full(())),
            Err(TryAcquireError::Closed) => Err(TrySendError::Closed(())),
        }
    }

    /// Queues `value`, its place taken already.
    fn push(&self, value: T) -> Result<(), T> {
        {
            let mut items = self.0.lock();
            if items.closed {
                return Err(value);
            }
            items.queue.push_back(value);
        }
        self.0.ready.notify_one();
        Ok(())
    }
}

/// A place taken in the queue ([`Sender::try_reserve`]); given back if unused.
pub(crate) struct Permit<'a, T> {
    sender: &'a Sender<T>,
    place: SemaphorePermit<'a>,
}

impl<T> Permit<'_, T> {
    /// Queues `value` in the place; the value back if the queue was closed meanwhile.
    pub(crate) fn send(self, value: T) -> Result<(), T> {
        self.place.forget();
        self.sender.push(value)
    }
}

/// The receiver; dropping it closes the queue.
pub(crate) struct Receiver<T>(Arc<Shared<T>>);

impl<T> std::fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}

impl<T> Receiver<T> {
    /// The next command; `None` once the queue is empty and closed, or empty with no
    /// sender left. Cancel-safe: a command is taken only by the poll that returns it.
    pub(crate) async fn recv(&mut self) -> Option<T> {
        loop {
            {
                let mut items = self.0.lock();
                if let Some(value) = items.queue.pop_front() {
                    drop(items);
                    self.0.room.add_permits(1);
                    return Some(value);
                }
                if items.closed || items.senders == 0 {
                    return None;
                }
            }
            // A notification given while nobody waited is kept for this wait.
            self.0.ready.notified().await;
        }
    }

    /// Refuses every later send (each gets its command back); what is queued can still
    /// be received.
    pub(crate) fn close(&mut self) {
        self.0.lock().closed = true;
        self.0.room.close();
    }
}

impl<T> Drop for Receiver<T> {
    /// Closes the queue and drops what is still queued: a command's reply then
    /// answers its sender that the game is gone, rather than never.
    fn drop(&mut self) {
        self.close();
        let left = std::mem::take(&mut self.0.lock().queue);
        drop(left);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn commands_come_in_order_and_a_full_queue_refuses_or_waits() {
        let (tx, mut rx) = queue(2);
        tx.send(1).await.unwrap();
        tx.try_send(2).unwrap();
        assert_eq!(tx.try_send(3), Err(TrySendError::Full(3)));
        let waiting = {
            let tx = tx.clone();
            tokio::spawn(async move { tx.send(3).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "no room: the send waits");
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(waiting.await.unwrap(), Ok(()));
        assert_eq!(rx.recv().await, Some(2));
        assert_eq!(rx.recv().await, Some(3));
    }

    #[tokio::test]
    async fn a_closed_queue_is_drained_and_later_sends_get_their_command_back() {
        let (tx, mut rx) = queue(8);
        tx.send("a").await.unwrap();
        tx.send("b").await.unwrap();
        rx.close();
        assert_eq!(tx.send("c").await, Err("c"));
        assert_eq!(tx.try_send("d"), Err(TrySendError::Closed("d")));
        assert_eq!(rx.recv().await, Some("a"));
        assert_eq!(rx.recv().await, Some("b"));
        assert_eq!(rx.recv().await, None);
    }

    #[tokio::test]
    async fn a_sender_waiting_for_room_gets_its_command_back_at_the_close() {
        let (tx, mut rx) = queue(1);
        tx.send(1).await.unwrap();
        let waiting = {
            let tx = tx.clone();
            tokio::spawn(async move { tx.send(2).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        rx.close();
        assert_eq!(waiting.await.unwrap(), Err(2));
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(rx.recv().await, None);
    }

    #[tokio::test]
    async fn the_receiver_ends_once_every_sender_has_gone_and_wakes_for_a_send() {
        let (tx, mut rx) = queue::<u32>(4);
        let other = tx.clone();
        let receiver = tokio::spawn(async move {
            let mut got = Vec::new();
            while let Some(v) = rx.recv().await {
                got.push(v);
            }
            got
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        other.send(7).await.unwrap();
        drop(other);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!receiver.is_finished(), "one sender is left");
        tx.send(8).await.unwrap();
        drop(tx);
        assert_eq!(receiver.await.unwrap(), vec![7, 8]);
    }

    #[tokio::test]
    async fn a_dropped_receiver_refuses_sends_and_drops_what_was_queued() {
        let (tx, rx) = queue(4);
        let (reply, answer) = tokio::sync::oneshot::channel::<()>();
        tx.send(Some(reply)).await.unwrap();
        drop(rx);
        assert!(
            answer.await.is_err(),
            "the queued reply is dropped: its sender hears"
        );
        assert!(tx.send(None).await.is_err());
    }

    /// Many senders at once, the receiver polled inside a `select!` that often takes
    /// another branch: every command arrives once, each sender's in its order.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn many_senders_against_a_receiver_in_a_select_lose_nothing() {
        let (tx, mut rx) = queue::<(u32, u32)>(4);
        let mut senders = Vec::new();
        for s in 0..8 {
            let tx = tx.clone();
            senders.push(tokio::spawn(async move {
                for i in 0..500 {
                    tx.send((s, i)).await.unwrap();
                }
            }));
        }
        drop(tx);
        let mut next = [0u32; 8];
        let mut tick = tokio::time::interval(Duration::from_micros(50));
        loop {
            tokio::select! {
                biased;
                _ = tick.tick() => {}
                got = rx.recv() => match got {
                    Some((s, i)) => {
                        assert_eq!(next[s as usize], i, "sender {s} in order");
                        next[s as usize] += 1;
                    }
                    None => break,
                },
            }
        }
        assert_eq!(next, [500; 8]);
        for s in senders {
            s.await.unwrap();
        }
    }
}
