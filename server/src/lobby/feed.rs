//! The lobby feed's subscribers on this node and the last `lobby` message gathered for
//! them (`crate::feed` gathers it). The message is serialised once and every subscriber
//! is handed the same bytes; with no subscriber the gatherer sleeps and the last
//! message is dropped, so that a later subscriber never sees an old one.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::ws::Utf8Bytes;
use tokio::sync::{Notify, watch};

/// The feed's subscribers and its latest message.
#[derive(Debug)]
pub struct Feed {
    latest: watch::Sender<Option<Utf8Bytes>>,
    subscribers: AtomicUsize,
    woken: Notify,
}

impl Default for Feed {
    fn default() -> Feed {
        Feed {
            latest: watch::channel(None).0,
            subscribers: AtomicUsize::new(0),
            woken: Notify::new(),
        }
    }
}

/// One session's subscription: the latest message as it changes. Dropping it
/// unsubscribes.
#[derive(Debug)]
pub struct Subscription {
    feed: Arc<Feed>,
    /// The latest `lobby` message (none until the first is gathered).
    pub latest: watch::Receiver<Option<Utf8Bytes>>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.feed.subscribers.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Feed {
    /// Subscribes, waking the gatherer if it slept.
    pub fn subscribe(self: &Arc<Self>) -> Subscription {
        self.subscribers.fetch_add(1, Ordering::AcqRel);
        self.woken.notify_one();
        Subscription {
            feed: self.clone(),
            latest: self.latest.subscribe(),
        }
    }

    /// Subscribers on this node now.
    pub fn subscribers(&self) -> usize {
        self.subscribers.load(Ordering::Acquire)
    }

    /// Waits until someone subscribes (at once if someone has).
    pub async fn wanted(&self) {
        loop {
            let woken = self.woken.notified();
            if self.subscribers() > 0 {
                return;
            }
            woken.await;
        }
    }

    /// Hands a new `lobby` message to every subscriber.
    pub fn publish(&self, json: Utf8Bytes) {
        self.latest.send_replace(Some(json));
    }

    /// Forgets the latest message (nobody follows the feed any more).
    pub fn clear(&self) {
        self.latest.send_replace(None);
    }
}
