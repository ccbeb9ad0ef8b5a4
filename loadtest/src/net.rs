//! Client sockets: TCP bound to a 127.0.0.x source address (moving to the next address
//! when one runs out of ports), then the WebSocket handshake with small buffers so that
//! tens of thousands of client connections fit beside the server. The bind reserves no
//! port (`IP_BIND_ADDRESS_NO_PORT`): `connect` picks one unique for the 4-tuple, so a
//! source port is shared by connections to different servers and nothing searches the
//! bound ports for a free one (a plain `bind(ip, 0)` does, which made connecting
//! CPU-bound past ~20,000 sockets).

use std::io;
use std::net::SocketAddr;

use nix::sys::socket::{setsockopt, sockopt::IpBindAddressNoPort};
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::http::header::AUTHORIZATION;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{WebSocketStream, client_async_with_config};

use crate::target::{SourcePool, Target};

/// A client WebSocket.
pub type Ws = WebSocketStream<TcpStream>;

/// Why a connection could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    /// A socket call failed.
    #[error("socket: {0}")]
    Io(#[from] io::Error),
    /// Every source address is out of ports.
    #[error("every source address is out of ports")]
    Exhausted,
    /// The WebSocket upgrade failed (refused, bad token, server full...).
    #[error("websocket handshake: {0}")]
    Handshake(String),
}

fn out_of_ports(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::AddrInUse | io::ErrorKind::AddrNotAvailable
    )
}

/// A TCP connection to `target` from the pool's current source address.
pub async fn tcp(target: &Target, sources: &SourcePool) -> Result<TcpStream, NetError> {
    loop {
        let (index, ip) = sources.current();
        let socket = TcpSocket::new_v4()?;
        if !sources.reserves_ports() {
            setsockopt(&socket, IpBindAddressNoPort, &true).map_err(io::Error::from)?;
        }
        let attempt = match socket.bind(SocketAddr::from((ip, 0))) {
            Ok(()) => socket.connect(SocketAddr::V4(target.addr)).await,
            Err(e) => Err(e),
        };
        match attempt {
            Ok(stream) => {
                stream.set_nodelay(true)?;
                return Ok(stream);
            }
            Err(e) if out_of_ports(&e) => {
                if !sources.exhausted(index) {
                    return Err(NetError::Exhausted);
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// The client-side WebSocket settings: a 4 KiB read buffer (the default is 128 KiB)
/// and no write buffering, so every frame is flushed at once.
pub fn client_config() -> WebSocketConfig {
    WebSocketConfig::default()
        .read_buffer_size(4096)
        .write_buffer_size(0)
}

/// Opens a WebSocket to `path` on `target`, with a bearer token if given.
pub async fn websocket(
    target: &Target,
    path: &str,
    bearer: Option<&str>,
    sources: &SourcePool,
) -> Result<Ws, NetError> {
    let stream = tcp(target, sources).await?;
    let mut request = format!("ws://{}{}", target.authority(), path)
        .into_client_request()
        .map_err(|e| NetError::Handshake(e.to_string()))?;
    if let Some(token) = bearer {
        let value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|e| NetError::Handshake(e.to_string()))?;
        request.headers_mut().insert(AUTHORIZATION, value);
    }
    let (ws, _) = client_async_with_config(request, stream, Some(client_config()))
        .await
        .map_err(|e| NetError::Handshake(e.to_string()))?;
    Ok(ws)
}
