//! The WebSocket wire under a session: the upgrade's handshake (RFC 6455 4.2; the
//! server speaks HTTP/1.1), then the connection split into two halves. The reading half is tungstenite's over the socket's
//! read side: it parses and unmasks frames, checks UTF-8 and the size caps. The writing
//! half is ours: a frame is its header and the payload the outbox holds (one event's
//! bytes, shared by every follower of a game), written with one vectored write a batch.
//! Nothing of a frame is copied or kept per connection, where tungstenite's writer
//! copies every frame into a buffer that stays at the size of its largest write
//! (`docs/performance.md`, "A write half of our own").

use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio_tungstenite::WebSocketStream;
use tungstenite::protocol::frame::FrameHeader;
use tungstenite::protocol::frame::coding::{Control, Data, OpCode};
use tungstenite::protocol::{Role, WebSocketConfig};

/// A request to upgrade to a WebSocket, checked: what `GET /ws` takes before its own
/// checks (token, connection slot) and answers with [`Handshake::accept`].
pub(crate) struct Handshake {
    /// The client's `Sec-WebSocket-Key`.
    key: HeaderValue,
    on_upgrade: hyper::upgrade::OnUpgrade,
}

/// Why a request is not a WebSocket upgrade. Answered as plain text: 405 for the
/// wrong method, 426 when the connection cannot be upgraded, else 400.
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotUpgrade {
    #[error("a WebSocket upgrade is a GET")]
    MethodNotGet,
    #[error("the `Connection` header does not include `upgrade`")]
    Connection,
    #[error("the `Upgrade` header is not `websocket`")]
    Upgrade,
    #[error("the `Sec-WebSocket-Version` header is not `13`")]
    Version,
    #[error("the `Sec-WebSocket-Key` header is missing")]
    KeyMissing,
    #[error("this connection cannot be upgraded")]
    NotUpgradable,
}

impl IntoResponse for NotUpgrade {
    fn into_response(self) -> Response {
        let status = match self {
            NotUpgrade::MethodNotGet => StatusCode::METHOD_NOT_ALLOWED,
            NotUpgrade::NotUpgradable => StatusCode::UPGRADE_REQUIRED,
            _ => StatusCode::BAD_REQUEST,
        };
        (status, self.to_string()).into_response()
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Handshake {
    type Rejection = NotUpgrade;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Handshake, NotUpgrade> {
        if parts.method != Method::GET {
            return Err(NotUpgrade::MethodNotGet);
        }
        if !has_token(&parts.headers, header::CONNECTION, "upgrade") {
            return Err(NotUpgrade::Connection);
        }
        if !has_token(&parts.headers, header::UPGRADE, "websocket") {
            return Err(NotUpgrade::Upgrade);
        }
        let key = parts.headers.get(header::SEC_WEBSOCKET_KEY);
        let key = key.ok_or(NotUpgrade::KeyMissing)?.clone();
        if !has_token(&parts.headers, header::SEC_WEBSOCKET_VERSION, "13") {
            return Err(NotUpgrade::Version);
        }
        let on_upgrade = parts.extensions.remove::<hyper::upgrade::OnUpgrade>();
        Ok(Handshake {
            key,
            on_upgrade: on_upgrade.ok_or(NotUpgrade::NotUpgradable)?,
        })
    }
}

/// Does the comma-separated header `name` hold `token` (case aside)?
fn has_token(headers: &HeaderMap, name: HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case(token))
}

impl Handshake {
    /// Answers the upgrade, and once the connection is handed over, runs `session` on
    /// it in a task of `tracker`'s. `config` holds the reading half's size caps.
    pub(crate) fn accept<F, Fut>(
        self,
        config: WebSocketConfig,
        tracker: &tokio_util::task::TaskTracker,
        session: F,
    ) -> Response
    where
        F: FnOnce(Socket) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let on_upgrade = self.on_upgrade;
        tracker.spawn(async move {
            match on_upgrade.await {
                Ok(upgraded) => session(Socket::split(upgraded, config).await).await,
                Err(e) => tracing::debug!(error = %e, "the upgrade failed"),
            }
        });
        let accept = tungstenite::handshake::derive_accept_key(self.key.as_bytes());
        let mut response = StatusCode::SWITCHING_PROTOCOLS.into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
        headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        if let Ok(accept) = HeaderValue::from_str(&accept) {
            headers.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
        }
        response
    }
}

/// The frames a session reads: tungstenite's over the socket's read side.
pub(crate) type Reader = WebSocketStream<ReadSide>;

/// An upgraded connection, in its two halves.
pub(crate) struct Socket {
    /// The frames the client sends.
    pub(crate) reader: Reader,
    /// Where the session's frames go.
    pub(crate) writer: FrameWriter,
}

impl Socket {
    /// Splits `upgraded` into its halves (tokio's split: a mutex held only while one
    /// half polls the connection, never across a wait).
    async fn split(upgraded: hyper::upgrade::Upgraded, config: WebSocketConfig) -> Socket {
        let (read, write) = tokio::io::split(TokioIo::new(upgraded));
        let read = ReadSide(Box::pin(read));
        Socket {
            reader: WebSocketStream::from_raw_socket(read, Role::Server, Some(config)).await,
            writer: FrameWriter(Box::pin(write)),
        }
    }
}

/// The socket's read side as tungstenite's stream. tungstenite answers a client's
/// ping and close on the stream it reads; here those answers are dropped, and the
/// session sends its own through the outbox (`Link`), so that only the writer writes.
pub(crate) struct ReadSide(Pin<Box<dyn AsyncRead + Send>>);

impl AsyncRead for ReadSide {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_read(cx, buf)
    }
}

impl AsyncWrite for ReadSide {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// One frame to write: what kind, and its payload (borrowed, not copied).
#[derive(Clone, Copy)]
pub(crate) struct Frame<'a> {
    kind: Kind,
    payload: &'a [u8],
}

#[derive(Clone, Copy)]
enum Kind {
    Text,
    Ping,
    Pong,
}

impl<'a> Frame<'a> {
    /// A text frame of `payload`.
    pub(crate) fn text(payload: &'a str) -> Frame<'a> {
        Frame {
            kind: Kind::Text,
            payload: payload.as_bytes(),
        }
    }

    /// A ping carrying `payload`.
    pub(crate) fn ping(payload: &'a [u8]) -> Frame<'a> {
        Frame {
            kind: Kind::Ping,
            payload,
        }
    }

    /// A pong answering a ping that carried `payload`.
    pub(crate) fn pong(payload: &'a [u8]) -> Frame<'a> {
        Frame {
            kind: Kind::Pong,
            payload,
        }
    }
}

/// The longest header of a server's frame (unmasked, a 64-bit length).
const HEAD: usize = 10;

/// The header of an unfragmented, unmasked frame of `len` bytes: its bytes, and how
/// many of them are used.
fn head(opcode: OpCode, len: usize) -> ([u8; HEAD], usize) {
    let header = FrameHeader {
        opcode,
        ..FrameHeader::default()
    };
    let mut bytes = [0u8; HEAD];
    let mut rest = &mut bytes[..];
    // `len` fits in 64 bits, so the header fits in HEAD bytes: this cannot fail.
    let _ = header.format(len as u64, &mut rest);
    let used = HEAD - rest.len();
    (bytes, used)
}

/// The socket's write side, which only the session's writer task holds.
pub(crate) struct FrameWriter(Pin<Box<dyn AsyncWrite + Send>>);

impl FrameWriter {
    /// Writes `frames` in order, each its header and its payload, in as few system
    /// calls as the socket takes (one, unless it is full).
    pub(crate) async fn write(&mut self, frames: &[Frame<'_>]) -> io::Result<()> {
        let heads: Vec<_> = frames
            .iter()
            .map(|f| {
                let opcode = match f.kind {
                    Kind::Text => OpCode::Data(Data::Text),
                    Kind::Ping => OpCode::Control(Control::Ping),
                    Kind::Pong => OpCode::Control(Control::Pong),
                };
                head(opcode, f.payload.len())
            })
            .collect();
        let mut slices = Vec::with_capacity(frames.len() * 2);
        for (frame, (bytes, used)) in frames.iter().zip(&heads) {
            slices.push(IoSlice::new(&bytes[..*used]));
            if !frame.payload.is_empty() {
                slices.push(IoSlice::new(frame.payload));
            }
        }
        self.write_all(&mut slices).await
    }

    /// Sends the close frame (`code`, `reason`) and ends the write side.
    pub(crate) async fn close(&mut self, code: u16, reason: &str) -> io::Result<()> {
        let mut payload = Vec::with_capacity(2 + reason.len());
        payload.extend_from_slice(&code.to_be_bytes());
        payload.extend_from_slice(reason.as_bytes());
        let (bytes, used) = head(OpCode::Control(Control::Close), payload.len());
        let mut slices = [IoSlice::new(&bytes[..used]), IoSlice::new(&payload)];
        self.write_all(&mut slices).await?;
        self.0.shutdown().await
    }

    async fn write_all(&mut self, mut slices: &mut [IoSlice<'_>]) -> io::Result<()> {
        while !slices.is_empty() {
            let n = self.0.write_vectored(slices).await?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            IoSlice::advance_slices(&mut slices, n);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_use_the_shortest_length_form() {
        let text = OpCode::Data(Data::Text);
        let (b, n) = head(text, 5);
        assert_eq!(&b[..n], &[0x81, 5]);
        let (b, n) = head(text, 125);
        assert_eq!(&b[..n], &[0x81, 125]);
        let (b, n) = head(text, 126);
        assert_eq!(&b[..n], &[0x81, 126, 0, 126]);
        let (b, n) = head(text, 65_536);
        assert_eq!(&b[..n], &[0x81, 127, 0, 0, 0, 0, 0, 1, 0, 0]);
        let (b, n) = head(OpCode::Control(Control::Close), 2);
        assert_eq!(&b[..n], &[0x88, 2]);
    }

    #[tokio::test]
    async fn a_batch_reads_back_as_its_frames() {
        let (ours, theirs) = tokio::io::duplex(64);
        let mut writer = FrameWriter(Box::pin(ours));
        let big = "x".repeat(300);
        let seven = 7u64.to_be_bytes();
        let frames = [
            Frame::text("{\"a\":1}"),
            Frame::ping(&seven),
            Frame::text(&big),
            Frame::pong(b""),
        ];
        let write = async {
            writer.write(&frames).await.unwrap();
            writer.close(4000, "bye").await.unwrap();
        };
        let read = async {
            let mut client = WebSocketStream::from_raw_socket(theirs, Role::Client, None).await;
            let mut got = Vec::new();
            while let Some(Ok(m)) = futures_util::StreamExt::next(&mut client).await {
                got.push(m);
            }
            got
        };
        let ((), got) = tokio::join!(write, read);
        use tungstenite::Message;
        assert_eq!(got.len(), 5, "{got:?}");
        assert_eq!(got[0], Message::text("{\"a\":1}"));
        assert_eq!(got[1], Message::Ping(7u64.to_be_bytes().to_vec().into()));
        assert_eq!(got[2], Message::text(big.clone()));
        assert_eq!(got[3], Message::Pong(Vec::new().into()));
        let Message::Close(Some(close)) = &got[4] else {
            panic!("{:?}", got[4]);
        };
        assert_eq!(
            (u16::from(close.code), close.reason.as_str()),
            (4000, "bye")
        );
    }
}
