//! The node's connection to Redis: one multiplexed connection (a [`ConnectionManager`]
//! to one server, or a slot-aware cluster connection), every call bounded by
//! `redis.timeout_ms`, every failure counted and typed, and a health flag that the
//! rest of the node reads to decide between "write now" and "queue until Redis is back".
//! Also the key layout: `<prefix>{<tag>}:<rest>`, so that every key one script touches
//! shares a hash tag (one Redis Cluster slot).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster_async::ClusterConnection;
use redis::{Cmd, FromRedisValue, Pipeline, RedisFuture, ScriptInvocation, Value};
use tokio::sync::watch;

use crate::config::RedisConfig;
use crate::metrics::Metrics;

/// Why a Redis operation failed.
#[derive(Debug, thiserror::Error)]
pub enum RedisStoreError {
    /// Redis answered with an error, or the connection failed.
    #[error("redis: {0}")]
    Redis(#[from] redis::RedisError),
    /// No answer within `redis.timeout_ms`.
    #[error("redis did not answer in time")]
    Timeout,
    /// A value in Redis could not be read.
    #[error("bad data in redis: {0}")]
    Decode(String),
    /// Another node holds the game's lease now: this node must stop writing.
    #[error("the game's lease is held by another node")]
    Fenced,
}

impl RedisStoreError {
    /// A decode error from anything displayable.
    pub fn decode(e: impl std::fmt::Display) -> RedisStoreError {
        RedisStoreError::Decode(e.to_string())
    }
}

/// One connection of either kind; cheap to clone (both multiplex).
#[derive(Clone)]
enum Conn {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// The node's Redis: connection, key prefix, timeout, health.
#[derive(Clone)]
pub struct Redis {
    conn: Conn,
    prefix: Arc<str>,
    timeout: Duration,
    up: Arc<AtomicBool>,
    up_tx: Arc<watch::Sender<bool>>,
    metrics: Arc<Metrics>,
}

/// A connection manager that retries quickly and gives up on a call after `timeout`.
pub async fn connection_manager(
    url: &str,
    timeout: Duration,
) -> Result<ConnectionManager, RedisStoreError> {
    let client = redis::Client::open(url)?;
    let config = ConnectionManagerConfig::new()
        .set_min_delay(Duration::from_millis(50))
        .set_max_delay(Duration::from_millis(500))
        .set_number_of_retries(2)
        .set_response_timeout(Some(timeout))
        .set_connection_timeout(Some(timeout));
    let connect = client.get_connection_manager_with_config(config);
    match tokio::time::timeout(timeout * 4, connect).await {
        Ok(c) => Ok(c?),
        Err(_) => Err(RedisStoreError::Timeout),
    }
}

/// The first URL of a (possibly comma-separated) list.
pub fn first_url(url: &str) -> &str {
    url.split(',').next().unwrap_or(url).trim()
}

impl Redis {
    /// Connects as the configuration says.
    pub async fn connect(
        config: &RedisConfig,
        metrics: Arc<Metrics>,
    ) -> Result<Redis, RedisStoreError> {
        let timeout = config.timeout();
        let conn = if config.cluster {
            let nodes: Vec<&str> = config.url.split(',').map(str::trim).collect();
            let client = redis::cluster::ClusterClientBuilder::new(nodes)
                .response_timeout(timeout)
                .connection_timeout(timeout)
                .build()?;
            match tokio::time::timeout(timeout * 4, client.get_async_connection()).await {
                Ok(c) => Conn::Cluster(c?),
                Err(_) => return Err(RedisStoreError::Timeout),
            }
        } else {
            Conn::Single(connection_manager(first_url(&config.url), timeout).await?)
        };
        let (up_tx, _) = watch::channel(true);
        Ok(Redis {
            conn,
            prefix: config.prefix.as_str().into(),
            timeout,
            up: Arc::new(AtomicBool::new(true)),
            up_tx: Arc::new(up_tx),
            metrics,
        })
    }

    /// The key `<prefix>{<tag>}:<rest>`.
    pub fn key(&self, tag: &str, rest: &str) -> String {
        format!("{}{{{tag}}}:{rest}", self.prefix)
    }

    /// The pub/sub channel `<prefix><name>`.
    pub fn channel(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// The configured prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// Did the last call succeed (or the health check since)?
    pub fn is_up(&self) -> bool {
        self.up.load(Ordering::Relaxed)
    }

    /// Changes of health, for the tasks that recover when Redis returns.
    pub fn health(&self) -> watch::Receiver<bool> {
        self.up_tx.subscribe()
    }

    /// Records the outcome of a call.
    fn mark(&self, ok: bool) {
        if !ok {
            self.metrics.redis_errors.inc();
        }
        if self.up.swap(ok, Ordering::Relaxed) != ok {
            if ok {
                tracing::info!("redis is reachable again");
            } else {
                tracing::warn!("redis is unreachable");
            }
            self.up_tx.send_replace(ok);
        }
    }

    async fn bounded<T>(
        &self,
        fut: impl std::future::Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, RedisStoreError> {
        match tokio::time::timeout(self.timeout, fut).await {
            Ok(Ok(v)) => {
                self.mark(true);
                Ok(v)
            }
            Ok(Err(e)) => {
                // A script or command error is Redis working; only transport failures
                // mean Redis is away.
                let transport = e.is_io_error()
                    || e.is_connection_dropped()
                    || e.is_connection_refusal()
                    || e.is_timeout()
                    || e.is_unrecoverable_error();
                if transport {
                    self.mark(false);
                } else {
                    self.metrics.redis_errors.inc();
                }
                Err(e.into())
            }
            Err(_) => {
                self.mark(false);
                Err(RedisStoreError::Timeout)
            }
        }
    }

    /// Runs one command.
    pub async fn query<T: FromRedisValue>(&self, cmd: &Cmd) -> Result<T, RedisStoreError> {
        let mut conn = self.conn.clone();
        self.bounded(cmd.query_async(&mut conn)).await
    }

    /// Runs a script (EVALSHA, loading it on first use).
    pub async fn script<T: FromRedisValue>(
        &self,
        invocation: &ScriptInvocation<'_>,
    ) -> Result<T, RedisStoreError> {
        let mut conn = self.conn.clone();
        self.bounded(invocation.invoke_async(&mut conn)).await
    }

    /// Checks that Redis answers (used while it is marked down).
    pub async fn ping(&self) -> bool {
        self.query::<String>(&redis::cmd("PING")).await.is_ok()
    }
}

/// Milliseconds since the Unix epoch on this node's clock.
pub fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
