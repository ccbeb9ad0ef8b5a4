//! The pub/sub bus between nodes: one subscriber connection whose task owns the map
//! channel → local handler and resubscribes everything after a reconnection, and one
//! publisher task that publishes in order and keeps what it could not publish until
//! Redis answers again (the queue whose depth `/metrics` shows). Plain PUBLISH and
//! SUBSCRIBE: in a Redis Cluster they reach every shard, so the bus needs no slot
//! awareness; `docs/cluster.md` says why pub/sub and not streams.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::ConnectionManager;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::redis::{StoreError, connection_manager};
use crate::metrics::Metrics;

/// Most messages kept while Redis is unreachable; older ones are dropped first.
const MAX_QUEUE: usize = 100_000;

enum Sub {
    Subscribe {
        channel: String,
        handler: mpsc::UnboundedSender<String>,
        done: oneshot::Sender<()>,
    },
    Unsubscribe(String),
}

/// The node's handle on the bus. Cheap to clone.
#[derive(Clone)]
pub struct Bus {
    subs: mpsc::UnboundedSender<Sub>,
    publish: mpsc::UnboundedSender<(String, String)>,
    conn: ConnectionManager,
    timeout: Duration,
    metrics: Arc<Metrics>,
}

impl Bus {
    /// Connects to `url` and starts the subscriber and publisher tasks, which end with
    /// `stop`.
    pub async fn start(
        url: &str,
        timeout: Duration,
        metrics: Arc<Metrics>,
        stop: CancellationToken,
    ) -> Result<Bus, StoreError> {
        let client = redis::Client::open(url)?;
        let conn = connection_manager(url, timeout).await?;
        let (subs, subs_rx) = mpsc::unbounded_channel();
        let (publish, publish_rx) = mpsc::unbounded_channel();
        tokio::spawn(subscriber(client, subs_rx, timeout, stop.clone()));
        tokio::spawn(publisher(
            conn.clone(),
            publish_rx,
            timeout,
            metrics.clone(),
            stop,
        ));
        Ok(Bus {
            subs,
            publish,
            conn,
            timeout,
            metrics,
        })
    }

    /// Routes `channel`'s messages to `handler` (replacing any earlier one); returns
    /// once Redis confirmed the subscription (or at once if Redis is unreachable: the
    /// subscription is made when it returns).
    pub async fn subscribe(&self, channel: String, handler: mpsc::UnboundedSender<String>) {
        let (done, confirmed) = oneshot::channel();
        let sent = self.subs.send(Sub::Subscribe {
            channel,
            handler,
            done,
        });
        if sent.is_ok() {
            let _ = tokio::time::timeout(self.timeout, confirmed).await;
        }
    }

    /// Stops routing `channel`.
    pub fn unsubscribe(&self, channel: String) {
        let _ = self.subs.send(Sub::Unsubscribe(channel));
    }

    /// Publishes in order with everything else queued; never waits.
    pub fn publish(&self, channel: String, message: String) {
        self.metrics.redis_queue.inc();
        if self.publish.send((channel, message)).is_err() {
            self.metrics.redis_queue.dec();
        }
    }

    /// Publishes now; how many subscribers got it.
    pub async fn publish_now(&self, channel: &str, message: &str) -> Result<i64, StoreError> {
        let mut conn = self.conn.clone();
        let cmd = redis::cmd("PUBLISH").arg(channel).arg(message).clone();
        match tokio::time::timeout(self.timeout, cmd.query_async(&mut conn)).await {
            Ok(r) => Ok(r?),
            Err(_) => Err(StoreError::Timeout),
        }
    }
}

async fn subscriber(
    client: redis::Client,
    mut subs: mpsc::UnboundedReceiver<Sub>,
    timeout: Duration,
    stop: CancellationToken,
) {
    let mut handlers: HashMap<String, mpsc::UnboundedSender<String>> = HashMap::new();
    loop {
        let connected = tokio::select! {
            () = stop.cancelled() => return,
            c = tokio::time::timeout(timeout, client.get_async_pubsub()) => c,
        };
        let Ok(Ok(pubsub)) = connected else {
            // Keep the map current while Redis is away; retry shortly.
            let retry = tokio::time::sleep(Duration::from_millis(200));
            tokio::pin!(retry);
            loop {
                tokio::select! {
                    () = &mut retry => break,
                    () = stop.cancelled() => return,
                    sub = subs.recv() => match sub {
                        None => return,
                        Some(Sub::Subscribe { channel, handler, done }) => {
                            handlers.insert(channel, handler);
                            let _ = done.send(());
                        }
                        Some(Sub::Unsubscribe(channel)) => {
                            handlers.remove(&channel);
                        }
                    },
                }
            }
            continue;
        };
        let (mut sink, mut stream) = pubsub.split();
        if !handlers.is_empty() {
            let channels: Vec<&String> = handlers.keys().collect();
            if sink.subscribe(channels).await.is_err() {
                continue;
            }
            tracing::info!(channels = handlers.len(), "pub/sub resubscribed");
        }
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                sub = subs.recv() => match sub {
                    None => return,
                    Some(Sub::Subscribe { channel, handler, done }) => {
                        let _ = sink.subscribe(&channel).await;
                        handlers.insert(channel, handler);
                        let _ = done.send(());
                    }
                    Some(Sub::Unsubscribe(channel)) => {
                        handlers.remove(&channel);
                        let _ = sink.unsubscribe(&channel).await;
                    }
                },
                msg = stream.next() => match msg {
                    None => break,
                    Some(msg) => {
                        let channel = msg.get_channel_name();
                        let Ok(payload) = msg.get_payload::<String>() else { continue };
                        if let Some(handler) = handlers.get(channel)
                            && handler.send(payload).is_err()
                        {
                            handlers.remove(channel);
                        }
                    }
                },
            }
        }
        tracing::warn!("pub/sub connection lost; reconnecting");
    }
}

async fn publisher(
    conn: ConnectionManager,
    mut rx: mpsc::UnboundedReceiver<(String, String)>,
    timeout: Duration,
    metrics: Arc<Metrics>,
    stop: CancellationToken,
) {
    let mut queue: VecDeque<(String, String)> = VecDeque::new();
    loop {
        if queue.is_empty() {
            tokio::select! {
                () = stop.cancelled() => return,
                m = rx.recv() => match m {
                    Some(m) => queue.push_back(m),
                    None => return,
                },
            }
        }
        while let Ok(m) = rx.try_recv() {
            queue.push_back(m);
        }
        while queue.len() > MAX_QUEUE {
            queue.pop_front();
            metrics.redis_queue.dec();
        }
        let Some((channel, message)) = queue.front() else {
            continue;
        };
        let mut c = conn.clone();
        let cmd = redis::cmd("PUBLISH").arg(channel).arg(message).clone();
        match tokio::time::timeout(timeout, cmd.query_async::<i64>(&mut c)).await {
            Ok(Ok(_)) => {
                queue.pop_front();
                metrics.redis_queue.dec();
            }
            _ => {
                metrics.redis_errors.inc();
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(Duration::from_millis(200)) => {}
                }
            }
        }
    }
}
