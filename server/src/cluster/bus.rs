//! The pub/sub bus between nodes: one subscriber connection whose task owns the map
//! channel → local handler and resubscribes everything after a reconnection, and one
//! publisher task that publishes in order, everything queued in one pipeline (up to
//! `cluster.publish_batch` PUBLISHes per round trip), and retries what it could not
//! publish until Redis answers again. Every queue is bounded: the publish queue holds at most
//! [`PUBLISH_QUEUE`] messages (its depth is the `redis_queue` gauge of `/metrics`), and
//! each handler is a bounded channel its owner sized. A message that finds a queue full
//! is counted (`damka_cluster_queue_full_total`) and dropped; [`Bus::publish_wait`]
//! waits for room instead (back-pressure for callers that can wait). Every subscriber
//! of a game's events also catches up from the game's log, so a dropped event is
//! replayed rather than lost. Both tasks run on the node's task tracker and end with its
//! stop token. Plain PUBLISH and SUBSCRIBE: in a Redis Cluster they reach every shard,
//! so the bus needs no slot awareness; `docs/cluster.md` says why pub/sub and not
//! streams.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use redis::aio::ConnectionManager;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::redis::{RedisStoreError, connection_manager};
use crate::metrics::Metrics;

/// Most messages waiting to be published (Redis slow or unreachable); more are dropped.
pub const PUBLISH_QUEUE: usize = 65_536;
/// Most subscription changes waiting for the subscriber task.
const SUB_QUEUE: usize = 4_096;
/// Most subscription changes made in one round trip: the subscriber takes every change
/// queued (up to this many) and makes each run of subscriptions, or of
/// unsubscriptions, with one command. A wave of 5,000 game starts subscribed one
/// channel per round trip, in one task, and delayed every game start behind it.
const SUB_BATCH: usize = 1_024;

enum Sub {
    Subscribe {
        channel: String,
        handler: mpsc::Sender<String>,
        done: oneshot::Sender<()>,
    },
    Unsubscribe(String),
}

/// The node's handle on the bus. Cheap to clone.
#[derive(Clone)]
pub struct Bus {
    subs: mpsc::Sender<Sub>,
    publish: mpsc::Sender<(String, String)>,
    conn: ConnectionManager,
    timeout: Duration,
    metrics: Arc<Metrics>,
    tasks: TaskTracker,
}

impl Bus {
    /// Connects to `url` and starts the subscriber and publisher tasks on `tasks`; they
    /// end with `stop`. The publisher sends at most `publish_batch` messages per round
    /// trip.
    pub async fn start(
        url: &str,
        timeout: Duration,
        publish_batch: usize,
        metrics: Arc<Metrics>,
        stop: CancellationToken,
        tasks: TaskTracker,
    ) -> Result<Bus, RedisStoreError> {
        let client = redis::Client::open(url)?;
        let conn = connection_manager(url, timeout).await?;
        let (subs, subs_rx) = mpsc::channel(SUB_QUEUE);
        let (publish, publish_rx) = mpsc::channel(PUBLISH_QUEUE);
        tasks.spawn(subscriber(
            client,
            subs_rx,
            timeout,
            metrics.clone(),
            stop.clone(),
        ));
        tasks.spawn(publisher(
            conn.clone(),
            publish_rx,
            publish_batch.max(1),
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
            tasks,
        })
    }

    /// Routes `channel`'s messages to `handler` (replacing any earlier one); returns
    /// once Redis confirmed the subscription (or at once if Redis is unreachable: the
    /// subscription is made when it returns). A message that finds `handler` full is
    /// dropped and counted.
    pub async fn subscribe(&self, channel: String, handler: mpsc::Sender<String>) {
        let (done, confirmed) = oneshot::channel();
        let sent = self
            .subs
            .send(Sub::Subscribe {
                channel,
                handler,
                done,
            })
            .await;
        if sent.is_ok() {
            let _ = tokio::time::timeout(self.timeout, confirmed).await;
        }
    }

    /// Stops routing `channel`. Never waits: with the queue full, a tracked task
    /// hands the change over when there is room.
    pub fn unsubscribe(&self, channel: String) {
        match self.subs.try_send(Sub::Unsubscribe(channel)) {
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => {}
            Err(mpsc::error::TrySendError::Full(sub)) => {
                self.metrics.cluster_queue_full.inc();
                let subs = self.subs.clone();
                self.tasks.spawn(async move {
                    let _ = subs.send(sub).await;
                });
            }
        }
    }

    /// Publishes in order with everything else queued; never waits. With the queue
    /// full the message is dropped and counted.
    pub fn publish(&self, channel: String, message: String) {
        self.metrics.redis_queue.inc();
        match self.publish.try_send((channel, message)) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.metrics.redis_queue.dec();
                self.metrics.cluster_queue_full.inc();
            }
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.metrics.redis_queue.dec();
            }
        }
    }

    /// Publishes in order with everything else queued, waiting for room in the queue
    /// (counted when it had to wait).
    pub async fn publish_wait(&self, channel: String, message: String) {
        self.metrics.redis_queue.inc();
        let item = match self.publish.try_send((channel, message)) {
            Ok(()) => return,
            Err(mpsc::error::TrySendError::Closed(_)) => {
                self.metrics.redis_queue.dec();
                return;
            }
            Err(mpsc::error::TrySendError::Full(item)) => item,
        };
        self.metrics.cluster_queue_full.inc();
        if self.publish.send(item).await.is_err() {
            self.metrics.redis_queue.dec();
        }
    }

    /// Publishes now; how many subscribers got it.
    pub async fn publish_now(&self, channel: &str, message: &str) -> Result<i64, RedisStoreError> {
        let mut conn = self.conn.clone();
        let cmd = redis::cmd("PUBLISH").arg(channel).arg(message).clone();
        match tokio::time::timeout(self.timeout, cmd.query_async(&mut conn)).await {
            Ok(r) => Ok(r?),
            Err(_) => Err(RedisStoreError::Timeout),
        }
    }
}

/// Hands `payload` to `handler`; false if the handler is gone. A full handler drops
/// the message (counted): one slow reader must not hold up every channel.
fn deliver(handler: &mpsc::Sender<String>, payload: String, metrics: &Metrics) -> bool {
    match handler.try_send(payload) {
        Ok(()) => true,
        Err(mpsc::error::TrySendError::Full(_)) => {
            metrics.cluster_queue_full.inc();
            true
        }
        Err(mpsc::error::TrySendError::Closed(_)) => false,
    }
}

async fn subscriber(
    client: redis::Client,
    mut subs: mpsc::Receiver<Sub>,
    timeout: Duration,
    metrics: Arc<Metrics>,
    stop: CancellationToken,
) {
    let mut handlers: HashMap<String, mpsc::Sender<String>> = HashMap::new();
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
        let mut batch = Vec::with_capacity(SUB_BATCH);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                n = subs.recv_many(&mut batch, SUB_BATCH) => {
                    if n == 0 {
                        return;
                    }
                    for run in runs(batch.drain(..)) {
                        run.make(&mut sink, &mut handlers).await;
                    }
                },
                msg = stream.next() => match msg {
                    None => break,
                    Some(msg) => {
                        let channel = msg.get_channel_name();
                        let Ok(payload) = msg.get_payload::<String>() else { continue };
                        if let Some(handler) = handlers.get(channel)
                            && !deliver(handler, payload, &metrics)
                        {
                            // Its owner is gone: Redis stops sending the channel here.
                            handlers.remove(channel);
                            let _ = sink.unsubscribe(channel).await;
                        }
                    }
                },
            }
        }
        tracing::warn!("pub/sub connection lost; reconnecting");
    }
}

/// Consecutive subscription changes of one kind, made with one command.
enum Run {
    /// Channels to route to their handlers, each confirmed to its subscriber.
    Subscribe(Vec<(String, mpsc::Sender<String>, oneshot::Sender<()>)>),
    /// Channels to stop routing.
    Unsubscribe(Vec<String>),
}

impl Run {
    /// Makes the changes: one `SUBSCRIBE` or `UNSUBSCRIBE` for the whole run.
    async fn make(
        self,
        sink: &mut redis::aio::PubSubSink,
        handlers: &mut HashMap<String, mpsc::Sender<String>>,
    ) {
        match self {
            Run::Subscribe(subs) => {
                let channels: Vec<&String> = subs.iter().map(|(c, _, _)| c).collect();
                let _ = sink.subscribe(channels).await;
                for (channel, handler, done) in subs {
                    handlers.insert(channel, handler);
                    let _ = done.send(());
                }
            }
            Run::Unsubscribe(channels) => {
                for channel in &channels {
                    handlers.remove(channel);
                }
                let _ = sink.unsubscribe(channels).await;
            }
        }
    }
}

/// Groups subscription changes, in order, into runs of one kind: the changes are made
/// in the order they were asked, a run at a time.
fn runs(changes: impl IntoIterator<Item = Sub>) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    for change in changes {
        match (change, out.last_mut()) {
            (
                Sub::Subscribe {
                    channel,
                    handler,
                    done,
                },
                Some(Run::Subscribe(run)),
            ) => {
                run.push((channel, handler, done));
            }
            (
                Sub::Subscribe {
                    channel,
                    handler,
                    done,
                },
                _,
            ) => {
                out.push(Run::Subscribe(vec![(channel, handler, done)]));
            }
            (Sub::Unsubscribe(channel), Some(Run::Unsubscribe(run))) => run.push(channel),
            (Sub::Unsubscribe(channel), _) => out.push(Run::Unsubscribe(vec![channel])),
        }
    }
    out
}

async fn publisher(
    conn: ConnectionManager,
    mut rx: mpsc::Receiver<(String, String)>,
    most: usize,
    timeout: Duration,
    metrics: Arc<Metrics>,
    stop: CancellationToken,
) {
    let mut batch: Vec<(String, String)> = Vec::with_capacity(most);
    loop {
        let received = tokio::select! {
            () = stop.cancelled() => return,
            n = rx.recv_many(&mut batch, most) => n,
        };
        if received == 0 {
            return;
        }
        // Everything already queued goes in one pipeline: one round trip, not one per
        // message. The batch waits at the head of the queue until Redis takes it all:
        // order is kept, and while Redis is away the bounded queue behind it fills.
        let pipe = publish_pipeline(&batch);
        loop {
            let mut c = conn.clone();
            match tokio::time::timeout(timeout, pipe.query_async::<()>(&mut c)).await {
                Ok(Ok(())) => {
                    metrics
                        .redis_queue
                        .inc_by(-i64::try_from(batch.len()).unwrap_or(i64::MAX));
                    batch.clear();
                    break;
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
}

/// One PUBLISH per message, in queue order, their replies ignored (a pipeline's
/// replies come back in one read).
fn publish_pipeline(batch: &[(String, String)]) -> redis::Pipeline {
    let mut pipe = redis::pipe();
    for (channel, message) in batch {
        pipe.cmd("PUBLISH").arg(channel).arg(message).ignore();
    }
    pipe
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(channel: &str) -> Sub {
        let (handler, _) = mpsc::channel(1);
        let (done, _) = oneshot::channel();
        Sub::Subscribe {
            channel: channel.into(),
            handler,
            done,
        }
    }

    fn shape(runs: &[Run]) -> Vec<(char, Vec<String>)> {
        runs.iter()
            .map(|r| match r {
                Run::Subscribe(v) => ('s', v.iter().map(|(c, _, _)| c.clone()).collect()),
                Run::Unsubscribe(v) => ('u', v.clone()),
            })
            .collect()
    }

    /// Changes queued together are made as runs of one kind, in the order asked: a
    /// channel subscribed, dropped and subscribed again ends subscribed.
    #[test]
    fn changes_are_grouped_in_order() {
        let changes = vec![
            sub("a"),
            sub("b"),
            Sub::Unsubscribe("a".into()),
            Sub::Unsubscribe("b".into()),
            sub("a"),
        ];
        let v = |s: &[&str]| s.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        assert_eq!(
            shape(&runs(changes)),
            vec![
                ('s', v(&["a", "b"])),
                ('u', v(&["a", "b"])),
                ('s', v(&["a"]))
            ]
        );
        assert!(runs(Vec::new()).is_empty());
    }
}
