//! Calls between nodes over the bus: a question published on a channel whoever
//! answers listens on, the answer published on the asking node's `node:<id>` channel
//! and matched to its question by number. The envelope only: what is asked and
//! answered is the caller's type (games: [`crate::game::remote`]).

use std::sync::atomic::Ordering;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::Cluster;

/// A question on the wire.
#[derive(Debug, Serialize, Deserialize)]
pub struct Request<Q> {
    /// Matches the answer to the question (0: no answer wanted).
    pub req: u64,
    /// The asking node (answers go to its `node:<id>` channel).
    pub from: String,
    /// What.
    pub op: Q,
}

/// An answer on the wire.
#[derive(Debug, Serialize, Deserialize)]
pub struct Reply<A> {
    /// The question's number.
    pub req: u64,
    /// The answer.
    pub result: A,
}

/// Only the number of an answer, to match it to its question.
#[derive(Deserialize)]
struct ReplyNumber {
    req: u64,
}

/// Why a call got no answer.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// Nobody listened on the channel until the deadline.
    #[error("nobody answers on the channel now")]
    NoListener,
    /// Someone listened but did not answer in time.
    #[error("the answering node did not answer")]
    Timeout,
    /// The question or the answer could not be (de)serialised.
    #[error("unreadable call: {0}")]
    Codec(String),
}

/// A question's place in the node's table of calls awaiting an answer; removed when
/// the call ends, however it ends (answered, timed out, or cancelled by its caller).
struct Awaiting<'a> {
    cluster: &'a Cluster,
    req: u64,
}

impl Drop for Awaiting<'_> {
    fn drop(&mut self) {
        self.cluster.pending().remove(&self.req);
    }
}

impl Cluster {
    /// Calls awaiting an answer.
    pub fn awaiting_answers(&self) -> usize {
        self.pending().len()
    }

    /// Publishes `op` on `channel` and waits for the answer. While nobody listens
    /// there (e.g. a takeover is under way), retries every 100 ms until
    /// `cluster.command_timeout_ms`.
    pub async fn call<Q: Serialize, A: DeserializeOwned>(
        &self,
        channel: &str,
        op: &Q,
    ) -> Result<A, CallError> {
        self.metrics.remote_commands.inc();
        let deadline = Instant::now() + Duration::from_millis(self.config.command_timeout_ms);
        loop {
            let req = self.next_req.fetch_add(1, Ordering::Relaxed);
            let (tx, rx) = oneshot::channel();
            self.pending().insert(req, tx);
            let _awaiting = Awaiting { cluster: self, req };
            let request = Request {
                req,
                from: self.node.clone(),
                op,
            };
            let json = match serde_json::to_string(&request) {
                Ok(json) => json,
                Err(e) => return Err(CallError::Codec(e.to_string())),
            };
            let delivered = self.bus.publish_now(channel, &json).await.unwrap_or(0);
            if delivered > 0 {
                let answer = tokio::time::timeout_at(deadline, rx).await;
                return match answer {
                    Ok(Ok(payload)) => serde_json::from_str::<Reply<A>>(&payload)
                        .map(|r| r.result)
                        .map_err(|e| CallError::Codec(e.to_string())),
                    _ => {
                        self.metrics.remote_timeouts.inc();
                        Err(CallError::Timeout)
                    }
                };
            }
            if Instant::now() >= deadline {
                self.metrics.remote_timeouts.inc();
                return Err(CallError::NoListener);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Publishes `op` on `channel` without waiting for an answer (in order with
    /// everything else this node publishes).
    pub fn send<Q: Serialize>(&self, channel: String, op: &Q) {
        let request = Request {
            req: 0,
            from: self.node.clone(),
            op,
        };
        if let Ok(json) = serde_json::to_string(&request) {
            self.bus.publish(channel, json);
        }
    }

    /// Answers question `req` of node `to`, waiting for room in the publish queue.
    pub async fn answer<A: Serialize>(&self, to: &str, req: u64, result: A) {
        if let Ok(json) = serde_json::to_string(&Reply { req, result }) {
            self.bus.publish_wait(self.node_channel(to), json).await;
        }
    }

    /// Completes the call an answer on this node's channel belongs to.
    pub(super) fn on_reply(&self, payload: String) {
        let Ok(number) = serde_json::from_str::<ReplyNumber>(&payload) else {
            return;
        };
        if let Some(tx) = self.pending().remove(&number.req) {
            let _ = tx.send(payload);
        }
    }
}
