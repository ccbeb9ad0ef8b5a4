//! Test harness: a server on 127.0.0.1:0 with short intervals, a raw HTTP helper, and a
//! WebSocket client speaking the protocol; `damka` processes ([`node`]), Redis for tests
//! ([`redis_env`]) and scratch directories removed when the test ends ([`scratch`]).
#![allow(dead_code)]

pub mod node;
pub mod redis_env;
pub mod scratch;

use std::net::SocketAddr;
use std::time::Duration;

use damka::auth::{Authenticator, Claims, unix_now};
use damka::{Config, Server};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub const SECRET: &str = "e2e-test-secret";

/// How long a test waits for any one message.
pub const WAIT: Duration = Duration::from_secs(5);

pub fn config() -> Config {
    let mut c = Config::defaults();
    c.listen = "127.0.0.1:0".parse().unwrap();
    c.auth.secret = SECRET.into();
    c.ws.max_message_bytes = 4096;
    c.ws.rate_per_sec = 50.0;
    c.ws.rate_burst = 100.0;
    c.lobby.pool_tick_ms = 50;
    c.lobby.pools = vec!["russian 3+2".into(), "chess 0.05+0".into()];
    c.shutdown.grace_secs = 1;
    c.database.url = sqlite_url();
    // Tests send requests faster than any client should; `api_limits` tests the budgets.
    c.api.requests_per_min = 1_000_000;
    c.api.requests_burst = 100_000;
    c.api.moves_per_min = 1_000_000;
    c.api.moves_burst = 100_000;
    c
}

/// A new, empty SQLite database file for one test, in a scratch directory removed when
/// the test ends.
pub fn sqlite_url() -> String {
    let path = scratch::scratch_dir("db").join("damka.sqlite");
    format!("sqlite://{}", path.display())
}

/// The PostgreSQL server tests use (`POSTGRES_TEST_URL` overrides it).
pub fn postgres_admin_url() -> String {
    std::env::var("POSTGRES_TEST_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// A new, empty PostgreSQL database for one test, on the real server.
pub async fn postgres_url() -> String {
    use sqlx::Connection;
    let admin = postgres_admin_url();
    let mut conn = sqlx::PgConnection::connect(&admin)
        .await
        .expect("PostgreSQL on 127.0.0.1:5432 (start it, or set POSTGRES_TEST_URL)");
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).unwrap();
    let name: String = format!(
        "damka_t_{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    );
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .unwrap();
    let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
    format!("{base}/{name}")
}

/// A connection to `url` holding `table` locked in `mode` (`EXCLUSIVE`, `ACCESS
/// EXCLUSIVE`) inside a transaction: writes to it wait until the connection sends
/// `COMMIT` or is dropped. A database slow to write, for tests.
pub async fn lock_table(url: &str, table: &str, mode: &str) -> sqlx::PgConnection {
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    sqlx::query("BEGIN").execute(&mut conn).await.unwrap();
    sqlx::query(&format!("LOCK TABLE {table} IN {mode} MODE"))
        .execute(&mut conn)
        .await
        .unwrap();
    conn
}

/// Both back ends, each with a fresh database: `[("sqlite", url), ("postgres", url)]`.
pub async fn backends() -> Vec<(&'static str, String)> {
    vec![("sqlite", sqlite_url()), ("postgres", postgres_url().await)]
}

pub struct TestServer {
    pub server: Server,
    pub addr: SocketAddr,
}

pub async fn start(config: Config) -> TestServer {
    let server = Server::start(config).await.expect("server starts");
    let addr = server.local_addr();
    TestServer { server, addr }
}

/// One HTTP/1.1 request; returns status and body.
pub async fn http(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    http_with(addr, method, path, body, "").await
}

/// One HTTP/1.1 request with extra header lines (each ending in `\r\n`); returns
/// status and body (de-chunked).
pub async fn http_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    headers: &str,
) -> (u16, String) {
    http_within(WAIT, addr, method, path, body, headers).await
}

/// One HTTP/1.1 request with an optional bearer token; status and body.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: &str,
) -> (u16, String) {
    http_with(addr, method, path, body, &bearer(token)).await
}

/// The `Authorization` header line of a bearer token; none without one.
pub fn bearer(token: Option<&str>) -> String {
    token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default()
}

/// [`http_with`] with its own time limit for the whole answer.
pub async fn http_within(
    wait: Duration,
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    headers: &str,
) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(wait, stream.read_to_end(&mut response))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&response).to_string();
    let status = text[9..12].parse().unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, body)
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&after[..n]);
        rest = &after[n + 2..];
    }
    out
}

/// Registers an account: (token, user id).
pub async fn register(addr: SocketAddr, name: &str, password: &str) -> (String, String) {
    let body = json!({ "username": name, "password": password });
    token_and_user(addr, "/api/account/register", &body).await
}

/// POSTs `body` to `path`, which answers 200 with a token and a user: (token, user id).
async fn token_and_user(addr: SocketAddr, path: &str, body: &Value) -> (String, String) {
    let (status, body) = http(addr, "POST", path, &body.to_string()).await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    (
        v["token"].as_str().unwrap().to_string(),
        v["user"]["id"].as_str().unwrap().to_string(),
    )
}

/// Logs in: the status and the JSON body.
pub async fn login(addr: SocketAddr, name: &str, password: &str) -> (u16, Value) {
    let (status, body) = http(
        addr,
        "POST",
        "/api/account/login",
        &json!({ "username": name, "password": password }).to_string(),
    )
    .await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// GET a JSON document: status and value.
pub async fn get_json(addr: SocketAddr, path: &str) -> (u16, Value) {
    let (status, body) = http(addr, "GET", path, "").await;
    (status, serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// A guest token from the server.
pub async fn guest(addr: SocketAddr, name: &str) -> (String, String) {
    token_and_user(addr, "/api/auth/guest", &json!({ "name": name })).await
}

/// A token signed with the test secret.
pub fn token(sub: &str, exp: u64) -> String {
    let mut c = Config::defaults().auth;
    c.secret = SECRET.into();
    Authenticator::from_config(&c)
        .unwrap()
        .sign(&Claims {
            sub: sub.into(),
            name: Some(sub.into()),
            exp,
            iat: unix_now(),
            iss: "damka".into(),
            aud: "damka".into(),
            guest: false,
        })
        .unwrap()
}

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

pub struct Client {
    pub ws: Ws,
    pub user: String,
}

/// Opens /ws with the token in the Authorization header; the HTTP status on refusal.
pub async fn connect_raw(addr: SocketAddr, token: &str) -> Result<Ws, u16> {
    let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
    request
        .headers_mut()
        .insert("Authorization", format!("Bearer {token}").parse().unwrap());
    match tokio_tungstenite::connect_async(request).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(e) => panic!("connect failed: {e}"),
    }
}

impl Client {
    /// A client with this token, connected and past `hello`.
    pub async fn with_token(addr: SocketAddr, token: &str, user: &str) -> Client {
        let mut client = Client {
            ws: connect_raw(addr, token).await.expect("upgrade"),
            user: user.to_string(),
        };
        client.send(json!({ "type": "hello", "protocol": 1 })).await;
        client.recv_type("welcome").await;
        client
    }

    /// A guest connected and past `hello`.
    pub async fn guest(addr: SocketAddr, name: &str) -> Client {
        let (token, user) = guest(addr, name).await;
        let mut client = Client {
            ws: connect_raw(addr, &token).await.expect("upgrade"),
            user,
        };
        client.send(json!({ "type": "hello", "protocol": 1 })).await;
        let welcome = client.recv_type("welcome").await;
        assert_eq!(welcome["user"]["name"], name);
        client
    }

    pub async fn send(&mut self, v: Value) {
        self.ws
            .send(Message::Text(v.to_string().into()))
            .await
            .unwrap();
    }

    /// Sends a move and skips messages until its ack; the ack.
    pub async fn move_acked(&mut self, game_id: &str, mv: &str, move_id: u64) -> Value {
        self.send(json!({"type": "move", "game_id": game_id, "move": mv, "move_id": move_id}))
            .await;
        self.recv_type("move_ack").await
    }

    pub async fn send_raw(&mut self, m: Message) {
        self.ws.send(m).await.unwrap();
    }

    /// The next JSON message (pings are answered by the library and skipped).
    pub async fn recv(&mut self) -> Value {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a message in time")
                .expect("the socket is open")
                .expect("a frame");
            match msg {
                Message::Text(t) => return serde_json::from_str(&t).unwrap(),
                Message::Close(f) => panic!("closed: {f:?}"),
                _ => continue,
            }
        }
    }

    /// Skips messages until one of this type.
    pub async fn recv_type(&mut self, kind: &str) -> Value {
        loop {
            let v = self.recv().await;
            if v["type"] == kind {
                return v;
            }
        }
    }

    /// Skips messages until a game event of this kind.
    pub async fn recv_event(&mut self, kind: &str) -> Value {
        loop {
            let v = self.recv_type("game_event").await;
            if v["event"]["kind"] == kind {
                return v;
            }
        }
    }

    /// The `game_event` of version `version` (earlier messages skipped).
    pub async fn event_at(&mut self, version: u64) -> Value {
        loop {
            let v = self.recv_type("game_event").await;
            if v["version"] == version {
                return v;
            }
        }
    }

    /// Waits for the close frame; its code and reason.
    pub async fn closed(&mut self) -> (u16, String) {
        expect_close(&mut self.ws).await
    }
}

pub async fn expect_close(ws: &mut Ws) -> (u16, String) {
    loop {
        let msg = tokio::time::timeout(WAIT, ws.next())
            .await
            .expect("closed in time");
        match msg {
            Some(Ok(Message::Close(Some(f)))) => return (u16::from(f.code), f.reason.to_string()),
            Some(Ok(Message::Close(None))) => return (u16::from(CloseCode::Status), String::new()),
            Some(Ok(_)) => continue,
            Some(Err(e)) => panic!("socket error before the close frame: {e}"),
            None => panic!("socket ended without a close frame"),
        }
    }
}

/// `asker` offers a takeback and `other` accepts it: the `taken_back` event `asker` gets.
pub async fn taken_back(asker: &mut Client, other: &mut Client, game_id: &str) -> Value {
    asker
        .send(json!({"type": "takeback_offer", "game_id": game_id}))
        .await;
    other.recv_event("takeback_offered").await;
    other
        .send(json!({"type": "takeback_accept", "game_id": game_id}))
        .await;
    asker.recv_event("taken_back").await
}

/// Two guests in a started game: (white, black, game_id).
pub async fn game(addr: SocketAddr, variant: &str, tc: &str) -> (Client, Client, String) {
    let mut a = Client::guest(addr, "Alice").await;
    let mut b = Client::guest(addr, "Bob").await;
    a.send(json!({"type": "seek", "variant": variant, "time_control": tc, "color": "white"}))
        .await;
    let seek = a.recv_type("seek_created").await;
    b.send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let ga = a.recv_type("game_start").await;
    let gb = b.recv_type("game_start").await;
    assert_eq!(ga["game"]["game_id"], gb["game"]["game_id"]);
    assert_eq!(ga["game"]["white"]["id"], a.user.as_str());
    let id = ga["game"]["game_id"].as_str().unwrap().to_string();
    (a, b, id)
}

/// Makes `path` a FIFO standing for a file slow to read, and starts a thread that, once
/// a reader has the FIFO open (and waits in its read), asks `addr` for `/healthz`
/// (allowing 3 s), then writes `text` into the FIFO. The thread returns the status
/// `/healthz` answered with, none if it did not answer in time. The thread runs a
/// runtime of its own, so it answers whether or not the reader blocks the test's.
pub fn slow_file(
    path: &std::path::Path,
    addr: SocketAddr,
    text: Vec<u8>,
) -> std::thread::JoinHandle<Option<u16>> {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", path.display());
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async move {
            // Opening without blocking fails until a reader has the FIFO open.
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            let mut sender = loop {
                match tokio::net::unix::pipe::OpenOptions::new().open_sender(&path) {
                    Ok(sender) => break sender,
                    Err(_) if std::time::Instant::now() < deadline => {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                    Err(e) => panic!("nobody opened {}: {e}", path.display()),
                }
            };
            let health =
                tokio::time::timeout(Duration::from_secs(3), http(addr, "GET", "/healthz", ""))
                    .await;
            sender.write_all(&text).await.expect("written");
            health.ok().map(|(status, _)| status)
        })
    })
}
