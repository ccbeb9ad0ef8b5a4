//! Redis for tests: a key prefix no other test uses, a connection to the shared Redis on
//! 127.0.0.1:6379 under such a prefix, and a redis-server of a test's own on a free
//! port (no persistence; killed when dropped) for tests that stop, slow or measure it.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use damka::cluster::redis::Redis;
use damka::config::RedisConfig;
use damka::metrics::Metrics;

/// A key prefix no other test uses: `test:<tag>:<pid>:<nanos>:`.
pub fn unique_prefix(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("test:{tag}:{}:{nanos}:", std::process::id())
}

/// A connection to the shared Redis on 127.0.0.1:6379 under [`unique_prefix`]`(tag)`.
pub async fn shared_redis(tag: &str) -> Redis {
    let config = RedisConfig {
        url: "redis://127.0.0.1:6379".into(),
        cluster: false,
        prefix: unique_prefix(tag),
        timeout_ms: 2000,
    };
    Redis::connect(&config, Arc::new(Metrics::default()))
        .await
        .expect("redis on 127.0.0.1:6379")
}

/// Deletes every key under `prefix` on the shared Redis (one test's keys, as a Redis
/// restarted empty would have none; never the other tests').
pub fn delete_prefix(prefix: &str) {
    let script = "local n = 0 for _, k in ipairs(redis.call('KEYS', ARGV[1] .. '*')) do redis.call('DEL', k) n = n + 1 end return n";
    let out = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", "6379", "EVAL", script, "0", prefix])
        .output()
        .expect("redis-cli runs");
    assert!(out.status.success(), "keys deleted: {out:?}");
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A redis-server of the test's own; killed when dropped.
pub struct OwnRedis(Child);

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a redis-server on `port` without persistence, with `extra` arguments, and
/// waits (up to 5 s) until it accepts connections.
pub fn own_redis(port: u16, extra: &[&str]) -> OwnRedis {
    let child = Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--save",
            "",
            "--appendonly",
            "no",
        ])
        .args(extra)
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server");
    let redis = OwnRedis(child);
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    redis
}
