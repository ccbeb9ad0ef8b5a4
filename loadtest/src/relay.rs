//! The baseline: a bare tokio-tungstenite relay. A connection to `/r/<room>?n=<size>`
//! joins a room; when the room has `size` members each gets one `{"type":"start"}`
//! frame, and from then on every text or binary frame is copied as is to every other
//! member. No parsing, no validation, no state beyond the rooms. It runs in-process on
//! its own runtime and threads ([`Relay::spawn`]), or alone in a child process
//! ([`serve`], the `relay` subcommand) so that its memory can be measured.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::accept_hdr_async_with_config;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// Frames queued for one member before the relay drops frames to it.
const QUEUE: usize = 256;

/// The frame a room sends when it is full.
pub const START: &str = r#"{"type":"start"}"#;

/// The relay's WebSocket settings: tungstenite's defaults, as a bare server has them,
/// or with a smaller read buffer (to show what the default 128 KiB one costs).
fn server_config(read_buffer: Option<usize>) -> WebSocketConfig {
    match read_buffer {
        Some(bytes) => WebSocketConfig::default().read_buffer_size(bytes),
        None => WebSocketConfig::default(),
    }
}

struct Room {
    size: usize,
    started: AtomicBool,
    members: Mutex<Vec<(u64, mpsc::Sender<Message>)>>,
}

#[derive(Default)]
struct Rooms {
    rooms: Mutex<HashMap<String, Arc<Room>>>,
    next: AtomicU64,
    dropped: AtomicU64,
}

impl Rooms {
    fn join(&self, name: &str, size: usize, tx: mpsc::Sender<Message>) -> (u64, Arc<Room>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let room = match self.rooms.lock() {
            Ok(mut rooms) => rooms
                .entry(name.to_string())
                .or_insert_with(|| {
                    Arc::new(Room {
                        size,
                        started: AtomicBool::new(false),
                        members: Mutex::new(Vec::new()),
                    })
                })
                .clone(),
            Err(_) => Arc::new(Room {
                size,
                started: AtomicBool::new(false),
                members: Mutex::new(Vec::new()),
            }),
        };
        if let Ok(mut members) = room.members.lock() {
            members.push((id, tx));
            if members.len() >= room.size && !room.started.swap(true, Ordering::Relaxed) {
                for (_, m) in members.iter() {
                    let _ = m.try_send(Message::text(START));
                }
            }
        }
        (id, room)
    }

    fn relay(&self, room: &Room, from: u64, msg: &Message) {
        if let Ok(members) = room.members.lock() {
            for (id, tx) in members.iter() {
                if *id != from && tx.try_send(msg.clone()).is_err() {
                    self.dropped.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }

    fn leave(&self, name: &str, room: &Room, id: u64) {
        let empty = match room.members.lock() {
            Ok(mut members) => {
                members.retain(|(m, _)| *m != id);
                members.is_empty()
            }
            Err(_) => false,
        };
        if empty && let Ok(mut rooms) = self.rooms.lock() {
            let still_empty = rooms
                .get(name)
                .is_some_and(|r| r.members.lock().map(|m| m.is_empty()).unwrap_or(false));
            if still_empty {
                rooms.remove(name);
            }
        }
    }
}

/// `/r/<room>?n=<size>` into the room and its size (2 if absent or unreadable).
fn parse_path(path: &str) -> (String, usize) {
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let room = path.trim_start_matches("/r/").to_string();
    let size = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("n="))
        .and_then(|n| n.parse().ok())
        .unwrap_or(2);
    (room, size)
}

// The handshake callback's error type is tungstenite's (an HTTP response), not ours.
#[allow(clippy::result_large_err)]
async fn connection(stream: TcpStream, rooms: Arc<Rooms>, config: WebSocketConfig) {
    let _ = stream.set_nodelay(true);
    let mut path = String::new();
    let callback = |req: &Request, resp: Response| {
        path = req.uri().to_string();
        Ok(resp)
    };
    let Ok(ws) = accept_hdr_async_with_config(stream, callback, Some(config)).await else {
        return;
    };
    let (name, size) = parse_path(&path);
    let (tx, mut rx) = mpsc::channel::<Message>(QUEUE);
    let (id, room) = rooms.join(&name, size, tx);
    let (mut sink, mut stream) = ws.split();
    let writer = tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            if sink.send(msg).await.is_err() {
                break;
            }
        }
    });
    while let Some(Ok(msg)) = stream.next().await {
        match msg {
            Message::Text(_) | Message::Binary(_) => rooms.relay(&room, id, &msg),
            Message::Close(_) => break,
            _ => {}
        }
    }
    rooms.leave(&name, &room, id);
    writer.abort();
}

/// Accepts and relays on `listener` until `stop` fires (or forever). `read_buffer`
/// overrides tungstenite's default read buffer size.
pub async fn serve(listener: TcpListener, stop: oneshot::Receiver<()>, read_buffer: Option<usize>) {
    let config = server_config(read_buffer);
    let rooms = Arc::new(Rooms::default());
    let accept = async {
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    tokio::spawn(connection(stream, rooms.clone(), config));
                }
                Err(_) => tokio::time::sleep(std::time::Duration::from_millis(5)).await,
            }
        }
    };
    tokio::select! {
        () = accept => {}
        _ = stop => {}
    }
}

/// A relay running in this process on its own runtime and threads.
pub struct Relay {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Relay {
    /// Starts a relay on 127.0.0.1:0 on a runtime of `workers` threads.
    pub fn spawn(workers: usize, read_buffer: Option<usize>) -> std::io::Result<Relay> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers.max(1))
            .thread_name("relay")
            .enable_all()
            .build()?;
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop, stop_rx) = oneshot::channel();
        let thread = std::thread::Builder::new()
            .name("relay-main".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match TcpListener::bind("127.0.0.1:0").await {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = addr_tx.send(Err(e));
                            return;
                        }
                    };
                    let _ = addr_tx.send(listener.local_addr());
                    serve(listener, stop_rx, read_buffer).await;
                });
            })?;
        let addr = addr_rx
            .recv()
            .map_err(|e| std::io::Error::other(e.to_string()))??;
        Ok(Relay {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(parse_path("/r/g12?n=5"), ("g12".to_string(), 5));
        assert_eq!(parse_path("/r/x"), ("x".to_string(), 2));
        assert_eq!(parse_path("/r/x?n=bad"), ("x".to_string(), 2));
    }
}
