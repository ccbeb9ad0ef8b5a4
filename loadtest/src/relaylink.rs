//! The relay split over processes: the like-for-like baseline of the multinode scenario.
//! Relay processes started with the same Redis and prefix share their rooms: a room is
//! full when its members on every process add up to its size (one `INCR` per joiner;
//! the joiner that fills it publishes the start), and every frame a member sends is
//! published on the room's channel for the members on the other processes, as damka's
//! nodes send game events to followers on another node. Each process subscribes to a
//! room's channel while it has members there.

use std::sync::Arc;

use futures_util::StreamExt;
use redis::aio::MultiplexedConnection;
use tokio::sync::{mpsc, oneshot};

/// What a linked relay process was told about one of its rooms.
#[derive(Debug, PartialEq, Eq)]
pub enum LinkEvent {
    /// The room is full, counting every process: its members get the start frame.
    Start,
    /// A frame a member on another process sent.
    Frame(String),
}

/// The payload that starts a room (frames are `<origin> <text>`, never a bare word).
const START: &str = "start";
/// Seconds a room's member count is kept in Redis.
const COUNT_TTL_SECS: i64 = 3600;

/// Why the link failed.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// Redis refused or could not be reached.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// The subscriber task has ended.
    #[error("the relay's subscriber has stopped")]
    Stopped,
}

enum Sub {
    Subscribe(String, oneshot::Sender<()>),
    Unsubscribe(String),
}

/// One relay process's connection to the others.
pub struct Link {
    origin: String,
    prefix: String,
    conn: MultiplexedConnection,
    subs: mpsc::Sender<Sub>,
}

impl Link {
    /// Connects to `url`; rooms are shared with every process using the same `prefix`.
    /// `deliver` gets each room's events from the other processes (and the start).
    pub async fn connect<D>(url: &str, prefix: &str, deliver: D) -> Result<Arc<Link>, LinkError>
    where
        D: Fn(&str, LinkEvent) + Send + Sync + 'static,
    {
        let client = redis::Client::open(url)?;
        let conn = client.get_multiplexed_async_connection().await?;
        let pubsub = client.get_async_pubsub().await?;
        let origin = format!("{}-{}", std::process::id(), fastrand::u64(..));
        let (subs, subs_rx) = mpsc::channel(4096);
        let channel_prefix = format!("{prefix}:room:");
        tokio::spawn(subscriber(
            pubsub,
            subs_rx,
            channel_prefix,
            origin.clone(),
            deliver,
        ));
        Ok(Arc::new(Link {
            origin,
            prefix: prefix.to_string(),
            conn,
            subs,
        }))
    }

    fn channel(&self, room: &str) -> String {
        format!("{}:room:{room}", self.prefix)
    }

    /// Subscribes to `room`'s channel; returns once Redis confirmed it.
    pub async fn subscribe(&self, room: &str) -> Result<(), LinkError> {
        let (done, confirmed) = oneshot::channel();
        self.subs
            .send(Sub::Subscribe(self.channel(room), done))
            .await
            .map_err(|_| LinkError::Stopped)?;
        confirmed.await.map_err(|_| LinkError::Stopped)
    }

    /// Stops listening to `room`.
    pub fn unsubscribe(&self, room: &str) {
        let _ = self.subs.try_send(Sub::Unsubscribe(self.channel(room)));
    }

    /// Counts one more member of `room` (of `size`); the member that fills it
    /// publishes the start to every process.
    pub async fn joined(&self, room: &str, size: usize) -> Result<(), LinkError> {
        let key = format!("{}:count:{room}", self.prefix);
        let mut conn = self.conn.clone();
        let (count,): (i64,) = redis::pipe()
            .cmd("INCR")
            .arg(&key)
            .cmd("EXPIRE")
            .arg(&key)
            .arg(COUNT_TTL_SECS)
            .ignore()
            .query_async(&mut conn)
            .await?;
        if usize::try_from(count).ok() == Some(size) {
            redis::cmd("PUBLISH")
                .arg(self.channel(room))
                .arg(START)
                .query_async::<i64>(&mut conn)
                .await?;
        }
        Ok(())
    }

    /// Sends `text` to `room`'s members on the other processes.
    pub async fn publish(&self, room: &str, text: &str) -> Result<(), LinkError> {
        let mut conn = self.conn.clone();
        redis::cmd("PUBLISH")
            .arg(self.channel(room))
            .arg(format!("{} {text}", self.origin))
            .query_async::<i64>(&mut conn)
            .await?;
        Ok(())
    }
}

/// Reads a payload: the start, a frame from another process, or one of ours (None).
fn event(payload: String, origin: &str) -> Option<LinkEvent> {
    if payload == START {
        return Some(LinkEvent::Start);
    }
    let (from, text) = payload.split_once(' ')?;
    (from != origin).then(|| LinkEvent::Frame(text.to_string()))
}

async fn subscriber<D>(
    pubsub: redis::aio::PubSub,
    mut subs: mpsc::Receiver<Sub>,
    channel_prefix: String,
    origin: String,
    deliver: D,
) where
    D: Fn(&str, LinkEvent),
{
    let (mut sink, mut stream) = pubsub.split();
    loop {
        tokio::select! {
            sub = subs.recv() => match sub {
                None => return,
                Some(Sub::Subscribe(channel, done)) => {
                    if sink.subscribe(&channel).await.is_err() {
                        return;
                    }
                    let _ = done.send(());
                }
                Some(Sub::Unsubscribe(channel)) => {
                    let _ = sink.unsubscribe(&channel).await;
                }
            },
            msg = stream.next() => {
                let Some(msg) = msg else { return };
                let Some(room) = msg.get_channel_name().strip_prefix(channel_prefix.as_str())
                else {
                    continue;
                };
                let Ok(payload) = msg.get_payload::<String>() else { continue };
                if let Some(e) = event(payload, &origin) {
                    deliver(room, e);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads() {
        assert_eq!(event("start".into(), "1-2"), Some(LinkEvent::Start));
        assert_eq!(
            event("9-9 {\"a\": 1}".into(), "1-2"),
            Some(LinkEvent::Frame("{\"a\": 1}".into()))
        );
        assert_eq!(event("1-2 {}".into(), "1-2"), None, "our own frame");
        assert_eq!(event("garbage".into(), "1-2"), None);
    }
}
