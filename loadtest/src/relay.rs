//! The baseline: a bare tokio-tungstenite relay. A connection to `/r/<room>?n=<size>`
//! joins a room; when the room has `size` members each gets one `{"type":"start"}`
//! frame, and from then on every text or binary frame is copied as is to every other
//! member. No parsing, no validation, no state beyond the rooms. It runs in-process on
//! its own runtime and threads ([`Relay::spawn`]), or alone in a child process
//! ([`serve`], the `relay` subcommand) so that its memory can be measured; several
//! child processes linked through Redis share their rooms ([`crate::relaylink`]), the
//! baseline of the multinode scenario.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OnceCell, mpsc, oneshot};
use tokio_tungstenite::accept_hdr_async_with_config;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

use crate::relaylink::{Link, LinkError, LinkEvent};

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
    /// Linked relays: subscribed to the room's channel (once, by its first member here).
    subscribed: OnceCell<()>,
}

impl Room {
    fn new(size: usize) -> Room {
        Room {
            size,
            started: AtomicBool::new(false),
            members: Mutex::new(Vec::new()),
            subscribed: OnceCell::new(),
        }
    }

    /// Sends the start frame to every member, once.
    fn start(&self, members: &[(u64, mpsc::Sender<Message>)]) {
        if !self.started.swap(true, Ordering::Relaxed) {
            for (_, m) in members {
                let _ = m.try_send(Message::text(START));
            }
        }
    }
}

#[derive(Default)]
struct Rooms {
    rooms: Mutex<HashMap<String, Arc<Room>>>,
    next: AtomicU64,
    dropped: AtomicU64,
    /// The other relay processes, when linked.
    link: OnceLock<Arc<Link>>,
}

impl Rooms {
    fn join(&self, name: &str, size: usize, tx: mpsc::Sender<Message>) -> (u64, Arc<Room>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let room = match self.rooms.lock() {
            Ok(mut rooms) => rooms
                .entry(name.to_string())
                .or_insert_with(|| Arc::new(Room::new(size)))
                .clone(),
            Err(_) => Arc::new(Room::new(size)),
        };
        if let Ok(mut members) = room.members.lock() {
            members.push((id, tx));
            // Linked, the room is full when every process's members add up (the start
            // comes through Redis).
            if members.len() >= room.size && self.link.get().is_none() {
                room.start(&members);
            }
        }
        (id, room)
    }

    /// Linked: subscribes the room here (its first member) and counts the member.
    async fn link_join(&self, name: &str, room: &Room) -> Result<(), LinkError> {
        let Some(link) = self.link.get() else {
            return Ok(());
        };
        room.subscribed
            .get_or_try_init(|| link.subscribe(name))
            .await?;
        link.joined(name, room.size).await
    }

    /// Linked: what another process sent to room `name`.
    fn remote(&self, name: &str, event: LinkEvent) {
        let room = match self.rooms.lock() {
            Ok(rooms) => rooms.get(name).cloned(),
            Err(_) => None,
        };
        let Some(room) = room else { return };
        let Ok(members) = room.members.lock() else {
            return;
        };
        match event {
            LinkEvent::Start => room.start(&members),
            LinkEvent::Frame(text) => {
                let msg = Message::text(text);
                for (_, tx) in members.iter() {
                    if tx.try_send(msg.clone()).is_err() {
                        self.dropped.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }
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
                if let Some(link) = self.link.get() {
                    link.unsubscribe(name);
                }
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
    if rooms.link_join(&name, &room).await.is_err() {
        rooms.leave(&name, &room, id);
        return;
    }
    let link = rooms.link.get().cloned();
    let (mut sink, mut stream) = ws.split();
    let writer = tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            if sink.send(msg).await.is_err() {
                break;
            }
        }
    });
    while let Some(Ok(msg)) = stream.next().await {
        match &msg {
            Message::Text(text) => {
                rooms.relay(&room, id, &msg);
                if let Some(link) = &link
                    && link.publish(&name, text.as_str()).await.is_err()
                {
                    rooms.dropped.fetch_add(1, Ordering::Relaxed);
                }
            }
            Message::Binary(_) => rooms.relay(&room, id, &msg),
            Message::Close(_) => break,
            _ => {}
        }
    }
    rooms.leave(&name, &room, id);
    writer.abort();
}

/// Where linked relay processes meet: a Redis URL and a prefix of the run's own.
#[derive(Clone, Debug)]
pub struct LinkConfig {
    /// The Redis URL.
    pub url: String,
    /// Channel and key prefix shared by the linked processes.
    pub prefix: String,
}

/// Accepts and relays on `listener` until `stop` fires (or forever). `read_buffer`
/// overrides tungstenite's default read buffer size; with `link`, rooms are shared with
/// the other relay processes on the same Redis and prefix.
pub async fn serve(
    listener: TcpListener,
    stop: oneshot::Receiver<()>,
    read_buffer: Option<usize>,
    link: Option<&LinkConfig>,
) -> Result<(), LinkError> {
    let config = server_config(read_buffer);
    let rooms = Arc::new(Rooms::default());
    if let Some(c) = link {
        let weak = Arc::downgrade(&rooms);
        let linked = Link::connect(&c.url, &c.prefix, move |room, event| {
            if let Some(rooms) = weak.upgrade() {
                rooms.remote(room, event);
            }
        })
        .await?;
        let _ = rooms.link.set(linked);
    }
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
    Ok(())
}

/// A relay running in this process on its own runtime and threads.
pub struct Relay {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Relay {
    /// Starts a relay on 127.0.0.1:0 on a runtime of `workers` threads, linked to the
    /// other relays on `link` if given.
    pub fn spawn(
        workers: usize,
        read_buffer: Option<usize>,
        link: Option<LinkConfig>,
    ) -> std::io::Result<Relay> {
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
                    if let Err(e) = serve(listener, stop_rx, read_buffer, link.as_ref()).await {
                        eprintln!("relay: {e}");
                    }
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
