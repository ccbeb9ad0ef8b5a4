//! What every bot shares: its error type, the shared context of a run, and the
//! message plumbing of a client WebSocket (typed send and receive, close codes).

use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use shared::protocol::{ClientMessage, ServerMessage};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::{self, Message};

use crate::game::{Tracks, ViewError};
use crate::http::HttpError;
use crate::net::{NetError, Ws};
use crate::stats::Stats;
use crate::target::SourcePool;

/// Why a bot stopped early.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// Connecting failed.
    #[error(transparent)]
    Net(#[from] NetError),
    /// The WebSocket failed.
    #[error("websocket: {0}")]
    Ws(#[from] tungstenite::Error),
    /// The peer closed the connection.
    #[error("closed ({code}): {reason}")]
    Closed {
        /// Close code (1005 when none was given).
        code: u16,
        /// Close reason.
        reason: String,
    },
    /// A text frame that is not a server message.
    #[error("undecodable frame: {0}")]
    Decode(String),
    /// The server did something the protocol does not allow here.
    #[error("protocol: {0}")]
    Protocol(String),
    /// Our copy of a game disagrees with what we received.
    #[error(transparent)]
    View(#[from] ViewError),
    /// The run ended before the bot got going.
    #[error("the run ended")]
    RunEnded,
    /// A request of the HTTP Bot API failed.
    #[error(transparent)]
    Http(#[from] HttpError),
}

impl BotError {
    /// A short name to count in the report.
    pub fn reason(&self) -> String {
        match self {
            BotError::Net(NetError::Handshake(m)) => {
                format!("handshake: {}", m.chars().take(60).collect::<String>())
            }
            BotError::Net(e) => format!("net: {e}"),
            BotError::Ws(_) => "websocket error".into(),
            BotError::Closed { code, reason } => format!("closed {code} {reason}"),
            BotError::Decode(_) => "undecodable frame".into(),
            BotError::Protocol(m) => format!("protocol: {m}"),
            BotError::View(_) => "rule mismatch".into(),
            BotError::RunEnded => "run ended".into(),
            BotError::Http(HttpError::Status { status, body }) => format!(
                "http {status}: {}",
                body.chars().take(60).collect::<String>()
            ),
            BotError::Http(e) => format!(
                "http: {}",
                e.to_string().chars().take(60).collect::<String>()
            ),
        }
    }
}

/// The start and end of a run's timed phase, set once every bot has connected.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// When the timed phase starts.
    pub start: Instant,
    /// When it ends.
    pub end: Instant,
}

/// What every bot of one run shares.
pub struct Ctx {
    /// Counters and histograms.
    pub stats: Stats,
    /// Send times of moves, per game.
    pub tracks: Tracks,
    /// Source addresses.
    pub sources: SourcePool,
    /// Set by the orchestrator when the timed phase starts.
    pub go: watch::Receiver<Option<Window>>,
}

impl Ctx {
    /// Waits for the timed phase.
    pub async fn window(self: &Arc<Self>) -> Result<Window, BotError> {
        let mut go = self.go.clone();
        let w = go
            .wait_for(Option::is_some)
            .await
            .map_err(|_| BotError::RunEnded)?;
        (*w).ok_or(BotError::RunEnded)
    }
}

/// Sends a client message as a text frame.
pub async fn send(ws: &mut Ws, msg: &ClientMessage) -> Result<(), BotError> {
    let text = serde_json::to_string(msg).map_err(|e| BotError::Decode(e.to_string()))?;
    ws.send(Message::text(text)).await?;
    Ok(())
}

/// The next text frame (control frames are answered by tungstenite and skipped).
pub async fn next_text(ws: &mut Ws) -> Result<tungstenite::Utf8Bytes, BotError> {
    loop {
        match ws.next().await {
            None => {
                return Err(BotError::Closed {
                    code: 1006,
                    reason: "eof".into(),
                });
            }
            Some(Err(e)) => return Err(e.into()),
            Some(Ok(Message::Text(t))) => return Ok(t),
            Some(Ok(Message::Close(frame))) => {
                let (code, reason) = frame
                    .map(|f| (u16::from(f.code), f.reason.to_string()))
                    .unwrap_or((1005, String::new()));
                return Err(BotError::Closed { code, reason });
            }
            Some(Ok(_)) => {}
        }
    }
}

/// The next server message.
pub async fn recv(ws: &mut Ws) -> Result<ServerMessage, BotError> {
    decode(&next_text(ws).await?)
}

/// A text frame as a server message.
pub fn decode(text: &tungstenite::Utf8Bytes) -> Result<ServerMessage, BotError> {
    serde_json::from_str(text.as_str()).map_err(|e| BotError::Decode(e.to_string()))
}

/// Closes politely, ignoring errors (the run is over).
pub async fn close(mut ws: Ws) {
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), ws.close(None)).await;
}
