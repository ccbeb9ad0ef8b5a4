//! Lag compensation over real sockets (`shared::clock::lag`, damka's policy): a client
//! behind a link that delays every frame by 150 ms each way (a TCP proxy in this test)
//! gets its network time back and loses only its thinking time, and a client that lies
//! about its think time (`think_ms: 0` after thinking 600 ms) gains nothing beyond the
//! jitter allowance over the server's own ping measurement.

mod common;
mod wire;

use std::net::SocketAddr;
use std::time::Duration;

use common::Client;
use futures_util::StreamExt;
use serde_json::{Value, json};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Variant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use wire::{challenge, id_of, local_law};

/// The most any test here may take. The server pings these clients often, and each
/// ping frame restarts the harness's per-message wait, so a missing message would
/// otherwise be waited for forever.
const DEADLINE: Duration = Duration::from_secs(60);

/// Runs `test` and fails it if it takes longer than `limit`.
async fn within(limit: Duration, test: impl std::future::Future<Output = ()>) {
    tokio::time::timeout(limit, test)
        .await
        .expect("the test finished within its deadline");
}

/// One way of the link: every chunk read from `from` is written to `to` `delay` later,
/// in order.
async fn delayed_pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    delay: Duration,
) {
    let (tx, mut rx) = mpsc::channel::<(Instant, Vec<u8>)>(4096);
    let writer = tokio::spawn(async move {
        while let Some((at, bytes)) = rx.recv().await {
            tokio::time::sleep_until(at + delay).await;
            if to.write_all(&bytes).await.is_err() {
                break;
            }
        }
    });
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 || tx.send((Instant::now(), buf[..n].to_vec())).await.is_err() {
            break;
        }
    }
    drop(tx);
    let _ = writer.await;
}

/// A proxy to `server` that delays every byte by `delay` in each direction.
async fn slow_link(server: SocketAddr, delay: Duration) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(upstream) = TcpStream::connect(server).await else {
                continue;
            };
            let (cr, cw) = client.into_split();
            let (ur, uw) = upstream.into_split();
            tokio::spawn(delayed_pipe(cr, uw, delay));
            tokio::spawn(delayed_pipe(ur, cw, delay));
        }
    });
    addr
}

/// A guest connected through `addr` (the proxy or the server itself), past `hello`.
async fn guest_via(server: SocketAddr, addr: SocketAddr, name: &str) -> Client {
    let (token, user) = common::guest(server, name).await;
    let mut c = Client {
        ws: common::connect_raw(addr, &token).await.expect("upgrade"),
        user,
    };
    c.send(json!({"type": "hello", "protocol": 1})).await;
    c.recv_type("welcome").await;
    c
}

/// Waits `d` while reading the socket, as a browser's network stack does: the server's
/// pings are answered at once. No message is expected meanwhile.
async fn idle(c: &mut Client, d: Duration) {
    let until = Instant::now() + d;
    loop {
        match tokio::time::timeout_at(until, c.ws.next()).await {
            Err(_) => return,
            Ok(Some(Ok(Message::Text(t)))) => panic!("unexpected while idle: {t}"),
            Ok(Some(Ok(_))) => {}
            Ok(other) => panic!("the socket failed while idle: {other:?}"),
        }
    }
}

/// The next `move` event of a move by `by`; a `game_over` before it fails the test.
async fn move_by(c: &mut Client, by: &str) -> Value {
    loop {
        let ev = c.recv_type("game_event").await;
        match ev["event"]["kind"].as_str() {
            Some("move") if ev["event"]["by"] == by => return ev,
            Some("game_over") => panic!("the game ended before {by}'s move: {ev}"),
            _ => {}
        }
    }
}

/// White (no lag) and Black play `black_moves` moves each, Black sending each move
/// `think` after White's move reached it and reporting `reported` as its think time
/// (the real one if `None`). Returns Black's clock loss summed over its moves.
async fn black_clock_loss(
    white: &mut Client,
    black: &mut Client,
    black_moves: usize,
    think: Duration,
    reported: Option<u64>,
) -> u64 {
    let tc = "1+0";
    let start = challenge(white, black, "russian", json!(tc), None).await;
    let id = id_of(&start);
    let mut game = local_law(
        Variant::Draughts(DraughtsVariant::Russian),
        tc,
        start["game"]["initial_fen"].as_str().unwrap(),
    );
    let mut before: Option<u64> = None;
    let mut loss = 0;
    let mut ply = 0u64;
    while game.moves_made(Color::Black) < black_moves as u32 {
        assert!(game.outcome().is_none(), "the game ended too soon");
        let pos = game.position().clone();
        let mv = wire::rotating(&pos, ply);
        let text = pos.move_text(&mv);
        let by = pos.side_to_move();
        game.play(by, &mv).unwrap();
        ply += 1;
        let msg = |think_ms: Option<u64>| {
            let mut m = json!({"type": "move", "game_id": id, "move": text, "move_id": ply});
            if let Some(t) = think_ms {
                m["think_ms"] = json!(t);
            }
            m
        };
        if by == Color::White {
            white.send(msg(None)).await;
            white.recv_type("move_ack").await;
            continue;
        }
        // Black answers as soon as White's move reaches it, after `think`.
        let seen = move_by(black, "white").await;
        let arrived = Instant::now();
        let clock: &Value = &seen["event"]["clock"];
        let left = clock["black_ms"].as_u64().unwrap();
        idle(black, think).await;
        let real_think = u64::try_from(arrived.elapsed().as_millis()).unwrap();
        black.send(msg(reported.or(Some(real_think)))).await;
        let mine = move_by(white, "black").await;
        let after = mine["event"]["clock"]["black_ms"].as_u64().unwrap();
        if let Some(b) = before {
            assert_eq!(b, left, "Black's time does not run during White's turn");
        }
        loss += left.saturating_sub(after);
        before = Some(after);
    }
    white.send(json!({"type": "resign", "game_id": id})).await;
    loss
}

#[tokio::test]
async fn a_lagging_link_costs_no_clock_beyond_the_policy() {
    within(
        DEADLINE,
        a_lagging_link_costs_no_clock_beyond_the_policy_body(),
    )
    .await;
}

async fn a_lagging_link_costs_no_clock_beyond_the_policy_body() {
    let srv = wire::server_with(|c| {
        // Pings slower than the 300 ms round trip, so each is answered before the next.
        c.ws.ping_interval_ms = 500;
    })
    .await;
    let proxy = slow_link(srv.addr, Duration::from_millis(150)).await;
    let mut white = guest_via(srv.addr, srv.addr, "Wanda").await;
    let mut black = guest_via(srv.addr, proxy, "Bruno").await;
    // Let the server measure Black's round trip with its own pings.
    idle(&mut black, Duration::from_millis(1200)).await;
    black.send(json!({"type": "ping", "id": 1})).await;
    let pong = black.recv_type("pong").await;
    let lag = pong["lag_ms"]
        .as_u64()
        .expect("the server measured the lag");
    assert!(
        (290..500).contains(&lag),
        "round trip of the slow link: {pong}"
    );

    let moves = 10;
    let loss = black_clock_loss(&mut white, &mut black, moves, Duration::ZERO, None).await;
    // Each move costs one round trip (300 ms) of network time. damka credits what its
    // own ping measured (within the quota): only processing jitter is charged.
    eprintln!("lagging client: {loss} ms lost over {moves} moves at {lag} ms round trip");
    assert!(
        loss < 80 * moves as u64,
        "a 300 ms link cost {loss} ms over {moves} moves; uncompensated it would be about {}",
        300 * moves
    );
}

#[tokio::test]
async fn a_client_lying_about_its_think_time_gains_nothing() {
    within(
        DEADLINE,
        a_client_lying_about_its_think_time_gains_nothing_body(),
    )
    .await;
}

async fn a_client_lying_about_its_think_time_gains_nothing_body() {
    let srv = wire::server_with(|c| c.ws.ping_interval_ms = 200).await;
    let mut white = guest_via(srv.addr, srv.addr, "Wanda").await;
    let mut black = guest_via(srv.addr, srv.addr, "Liar").await;
    idle(&mut black, Duration::from_millis(600)).await;
    let moves = 8;
    let think = Duration::from_millis(600);
    let loss = black_clock_loss(&mut white, &mut black, moves, think, Some(0)).await;
    eprintln!("liar: {loss} ms lost over {moves} moves of 600 ms, claiming 0 ms");
    // The claim (600 ms of "lag") is believed only up to the measured round trip plus
    // max(rtt / 4, 20 ms): at most ~25 ms a move on this local link.
    assert!(
        loss >= moves as u64 * (600 - 40),
        "the liar lost only {loss} ms for {} ms of thought",
        moves as u64 * 600
    );

    // The same lie under lichess's policy (which believes claims up to its quota)
    // pays: the check above is what tells the policies apart.
    let srv = wire::server_with(|c| {
        c.ws.ping_interval_ms = 200;
        c.game.lag_policy = shared::clock::LagPolicy::Lichess;
    })
    .await;
    let mut white = guest_via(srv.addr, srv.addr, "Wanda").await;
    let mut black = guest_via(srv.addr, srv.addr, "Liar").await;
    idle(&mut black, Duration::from_millis(600)).await;
    let lichess = black_clock_loss(&mut white, &mut black, moves, think, Some(0)).await;
    eprintln!("liar under lichess's policy: {lichess} ms lost");
    assert!(
        lichess + 2000 < loss,
        "lichess {lichess} ms v damka {loss} ms"
    );
}

/// A player in time trouble behind a slow link: a move made in time by its own clock
/// but arriving after its time ran out on the server stands, judged with its lag
/// credit during the flag grace; a move made too late by its own clock still loses.
#[tokio::test]
async fn a_move_sent_in_time_over_a_slow_link_is_not_flagged() {
    within(
        DEADLINE,
        a_move_sent_in_time_over_a_slow_link_is_not_flagged_body(),
    )
    .await;
}

async fn a_move_sent_in_time_over_a_slow_link_is_not_flagged_body() {
    let srv = wire::server_with(|c| c.ws.ping_interval_ms = 500).await;
    let proxy = slow_link(srv.addr, Duration::from_millis(150)).await;
    let mut white = guest_via(srv.addr, srv.addr, "Wanda").await;
    let mut black = guest_via(srv.addr, proxy, "Bruno").await;
    idle(&mut black, Duration::from_millis(1200)).await;
    // 1.2 s each. Black thinks 1.0 s by its own clock; with 300 ms of round trip the
    // move reaches the server 1.3 s after Black's time started.
    for (think_ms, stands) in [(1000, true), (1300, false)] {
        let start = challenge(&mut white, &mut black, "chess", json!("0.02+0"), None).await;
        let id = id_of(&start);
        white
            .send(json!({"type": "move", "game_id": id, "move": "e4", "move_id": 1}))
            .await;
        move_by(&mut black, "white").await;
        let arrived = Instant::now();
        idle(&mut black, Duration::from_millis(think_ms)).await;
        let think = u64::try_from(arrived.elapsed().as_millis()).unwrap();
        black
            .send(json!({"type": "move", "game_id": id, "move": "e5", "move_id": 2, "think_ms": think}))
            .await;
        if stands {
            let ev = move_by(&mut white, "black").await;
            let left = ev["event"]["clock"]["black_ms"].as_u64().unwrap();
            assert!(
                (100..=260).contains(&left),
                "1.2 s - 1.0 s of thought, the round trip given back: {left} ms left"
            );
            white.send(json!({"type": "resign", "game_id": id})).await;
        } else {
            let over = white.recv_event("game_over").await;
            assert_eq!(over["event"]["outcome"]["reason"], "timeout", "{over}");
            assert_eq!(over["event"]["outcome"]["winner"], "white");
            assert_eq!(over["event"]["clock"]["black_ms"], 0);
        }
        black.recv_event("game_over").await;
    }
}
