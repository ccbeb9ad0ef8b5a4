//! A minimal HTTP/1.1 client for the few requests the load test makes over HTTP:
//! `POST /api/auth/guest` on a kept-alive connection so that thousands of tokens do
//! not cost thousands of TCP connections (and their TIME_WAIT ports), one account
//! registration (an arena's organiser), and `GET /metrics`; and for the Bot API
//! scenario, requests with a bearer token and an NDJSON stream read line by line.

use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::net::{NetError, tcp};
use crate::target::{SourcePool, Target};

/// The largest response body read: an arena's final standings at 10,000 players are
/// about 3.4 MB (every sheet, game by game).
const MAX_BODY: usize = 32 * 1024 * 1024;

/// Why a guest token could not be had.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// Connecting failed.
    #[error(transparent)]
    Net(#[from] NetError),
    /// Reading or writing failed.
    #[error("http i/o: {0}")]
    Io(#[from] std::io::Error),
    /// The response was not what the server sends.
    #[error("bad http response: {0}")]
    Bad(String),
    /// The server answered with an error status.
    #[error("http status {status}: {body}")]
    Status {
        /// The status code.
        status: u16,
        /// The body, for the report.
        body: String,
    },
}

#[derive(Deserialize)]
struct GuestReply {
    token: String,
}

/// One kept-alive connection to a damka node's HTTP side.
pub struct HttpClient<'a> {
    target: Target,
    sources: &'a SourcePool,
    conn: Option<BufReader<TcpStream>>,
}

impl<'a> HttpClient<'a> {
    /// A client; it connects on first use.
    pub fn new(target: Target, sources: &'a SourcePool) -> HttpClient<'a> {
        HttpClient {
            target,
            sources,
            conn: None,
        }
    }

    /// A guest token for `name`. Retries once on a fresh connection if the kept-alive
    /// one was closed by the server.
    pub async fn guest_token(&mut self, name: &str) -> Result<String, HttpError> {
        let body = serde_json::json!({ "name": name }).to_string();
        let first = self.post("/api/auth/guest", &body).await;
        let reply = match first {
            Err(HttpError::Io(_) | HttpError::Bad(_)) => {
                self.conn = None;
                self.post("/api/auth/guest", &body).await?
            }
            other => other?,
        };
        let reply: GuestReply =
            serde_json::from_str(&reply).map_err(|e| HttpError::Bad(e.to_string()))?;
        Ok(reply.token)
    }

    /// Registers an account and returns its token.
    pub async fn register(&mut self, username: &str, password: &str) -> Result<String, HttpError> {
        let body = serde_json::json!({ "username": username, "password": password }).to_string();
        let reply = self.post("/api/account/register", &body).await?;
        let reply: GuestReply =
            serde_json::from_str(&reply).map_err(|e| HttpError::Bad(e.to_string()))?;
        Ok(reply.token)
    }

    /// `GET path`: the body of a 2xx answer.
    pub async fn get(&mut self, path: &str) -> Result<String, HttpError> {
        self.request("GET", path, "").await
    }

    async fn post(&mut self, path: &str, body: &str) -> Result<String, HttpError> {
        self.request("POST", path, body).await
    }

    async fn request(&mut self, method: &str, path: &str, body: &str) -> Result<String, HttpError> {
        self.call(method, path, None, body).await
    }

    /// `method path` with a JSON `body`, sent with `bearer` if given: the body of a 2xx
    /// answer. Never retried (a move must not be sent twice).
    pub async fn call(
        &mut self,
        method: &str,
        path: &str,
        bearer: Option<&str>,
        body: &str,
    ) -> Result<String, HttpError> {
        let auth = bearer.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
        let result = self.exchange(method, path, &auth, body).await;
        if result.is_err() {
            // A half-read answer leaves the connection unusable.
            if !matches!(result, Err(HttpError::Status { .. })) {
                self.conn = None;
            }
        }
        result
    }

    async fn exchange(
        &mut self,
        method: &str,
        path: &str,
        auth: &str,
        body: &str,
    ) -> Result<String, HttpError> {
        if self.conn.is_none() {
            self.conn = Some(BufReader::new(tcp(&self.target, self.sources).await?));
        }
        let Some(conn) = self.conn.as_mut() else {
            return Err(HttpError::Bad("no connection".into()));
        };
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.target.authority(),
            body.len()
        );
        conn.get_mut().write_all(request.as_bytes()).await?;
        let (status, length, close) = read_head(conn).await?;
        let mut buf = vec![0; length];
        conn.read_exact(&mut buf).await?;
        if close {
            self.conn = None;
        }
        let text = String::from_utf8(buf).map_err(|e| HttpError::Bad(e.to_string()))?;
        if !(200..300).contains(&status) {
            return Err(HttpError::Status { status, body: text });
        }
        Ok(text)
    }
}

/// Reads a response's status line and headers: status, content length, and whether the
/// server will close the connection (a chunked body is refused).
async fn read_head(conn: &mut BufReader<TcpStream>) -> Result<(u16, usize, bool), HttpError> {
    let head = read_any_head(conn).await?;
    if head.chunked {
        return Err(HttpError::Bad("chunked responses are not supported".into()));
    }
    let length = head
        .length
        .ok_or_else(|| HttpError::Bad("no content-length".into()))?;
    if length > MAX_BODY {
        return Err(HttpError::Bad(format!("body of {length} bytes")));
    }
    Ok((head.status, length, head.close))
}

/// A response's status line and the headers the load test reads.
struct Head {
    status: u16,
    length: Option<usize>,
    chunked: bool,
    close: bool,
}

async fn read_any_head(conn: &mut BufReader<TcpStream>) -> Result<Head, HttpError> {
    let mut line = String::new();
    if conn.read_line(&mut line).await? == 0 {
        return Err(HttpError::Bad("connection closed".into()));
    }
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| HttpError::Bad(format!("status line `{}`", line.trim())))?;
    let mut length = None;
    let mut close = false;
    let mut chunked = false;
    loop {
        line.clear();
        if conn.read_line(&mut line).await? == 0 {
            return Err(HttpError::Bad("connection closed in headers".into()));
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if header.len() > 8192 {
            return Err(HttpError::Bad("header too long".into()));
        }
        let Some((name, value)) = header.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse::<usize>().ok();
        } else if name.eq_ignore_ascii_case("connection") {
            close = value.eq_ignore_ascii_case("close");
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        }
    }
    Ok(Head {
        status,
        length,
        chunked,
        close,
    })
}

/// An NDJSON answer (`GET /api/bot/game/stream/{id}`) read one JSON line at a time on a
/// connection of its own; keep-alive newlines are skipped.
pub struct Ndjson {
    conn: BufReader<TcpStream>,
    /// Body bytes read but not yet split into lines.
    pending: Vec<u8>,
    /// The body is chunked (else it runs to the connection's end).
    chunked: bool,
    ended: bool,
}

impl Ndjson {
    /// Opens `GET path` with `bearer`; a non-2xx answer is an error with its body.
    pub async fn open(
        target: Target,
        sources: &SourcePool,
        path: &str,
        bearer: &str,
    ) -> Result<Ndjson, HttpError> {
        let mut conn = BufReader::new(tcp(&target, sources).await?);
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {bearer}\r\nAccept: application/x-ndjson\r\n\r\n",
            target.authority()
        );
        conn.get_mut().write_all(request.as_bytes()).await?;
        let head = read_any_head(&mut conn).await?;
        if !(200..300).contains(&head.status) {
            let length = head.length.unwrap_or(0).min(MAX_BODY);
            let mut buf = vec![0; length];
            conn.read_exact(&mut buf).await?;
            return Err(HttpError::Status {
                status: head.status,
                body: String::from_utf8_lossy(&buf).into_owned(),
            });
        }
        Ok(Ndjson {
            conn,
            pending: Vec::new(),
            chunked: head.chunked,
            ended: false,
        })
    }

    /// The next JSON line, or none when the stream ended.
    pub async fn next(&mut self) -> Result<Option<serde_json::Value>, HttpError> {
        loop {
            while let Some(at) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=at).collect();
                let line = line.trim_ascii();
                if line.is_empty() {
                    continue;
                }
                return serde_json::from_slice(line)
                    .map(Some)
                    .map_err(|e| HttpError::Bad(format!("ndjson line: {e}")));
            }
            if self.ended {
                return Ok(None);
            }
            self.fill().await?;
        }
    }

    /// Reads the next piece of the body into `pending`.
    async fn fill(&mut self) -> Result<(), HttpError> {
        if self.pending.len() > MAX_BODY {
            return Err(HttpError::Bad("ndjson line too long".into()));
        }
        if !self.chunked {
            let mut buf = [0u8; 4096];
            let n = self.conn.read(&mut buf).await?;
            self.ended = n == 0;
            self.pending.extend_from_slice(&buf[..n]);
            return Ok(());
        }
        let mut line = String::new();
        if self.conn.read_line(&mut line).await? == 0 {
            return Err(HttpError::Bad("connection closed in a chunked body".into()));
        }
        let size = line.trim().split(';').next().unwrap_or("");
        let size = usize::from_str_radix(size, 16)
            .map_err(|_| HttpError::Bad(format!("chunk size `{}`", line.trim())))?;
        if size > MAX_BODY {
            return Err(HttpError::Bad(format!("chunk of {size} bytes")));
        }
        if size == 0 {
            self.ended = true;
            return Ok(());
        }
        let start = self.pending.len();
        self.pending.resize(start + size, 0);
        self.conn.read_exact(&mut self.pending[start..]).await?;
        let mut crlf = [0u8; 2];
        self.conn.read_exact(&mut crlf).await?;
        Ok(())
    }
}

/// Fetches `count` guest tokens named `{prefix}{i}` over `parallel` kept-alive
/// connections. Failures are returned in place so the caller can count them.
pub async fn guest_tokens(
    target: Target,
    sources: &SourcePool,
    prefix: &str,
    count: usize,
    parallel: usize,
) -> Vec<Result<String, HttpError>> {
    let parallel = parallel.clamp(1, count.max(1));
    let chunks = (0..parallel).map(|lane| {
        let prefix = prefix.to_string();
        async move {
            let mut client = HttpClient::new(target, sources);
            let mut out = Vec::new();
            for i in (lane..count).step_by(parallel) {
                out.push((i, client.guest_token(&format!("{prefix}{i}")).await));
            }
            out
        }
    });
    let mut all: Vec<(usize, Result<String, HttpError>)> = futures_util::future::join_all(chunks)
        .await
        .into_iter()
        .flatten()
        .collect();
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}
