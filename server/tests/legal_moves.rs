//! Legal moves go to the player to move and to nobody else, over real WebSockets: a
//! whole game (moves, a takeback, resumes from a version and from scratch, the end)
//! watched by a spectator who never receives a `legal_moves`, while the player to move
//! gets exactly the list its own copy of the rules makes after every move and resume
//! and the other player gets none; the same across two nodes, with a player and a
//! spectator on the node that does not own the game (the legal moves cross pub/sub).
//! Prints what a spectator receives per move against the copy with legal moves, which
//! is what every follower received before. The same holds for a player's draw offer
//! permission (`draw_offer_refusal`): each player gets their own, a spectator never.

mod common;
mod wire;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{Client, config, start};
use serde_json::{Value, json};
use shared::law;
use shared::rules::{Color, Variant};

/// Does a frame carry legal moves anywhere (a state's or an event's)?
fn has_legal(v: &Value) -> bool {
    v.to_string().contains("\"legal_moves\"")
}

/// The next frames of `c` up to the `game_event` of `version`, none with legal moves;
/// that event and the bytes of its frame.
async fn bare_event_at(c: &mut Client, version: u64) -> (Value, usize) {
    loop {
        let v = c.recv().await;
        assert!(!has_legal(&v), "legal moves sent to {}: {v}", c.user);
        assert!(
            !v.to_string().contains("draw_offer_refusal"),
            "a player's draw permission sent to {}: {v}",
            c.user
        );
        if v["type"] == "game_event" && v["version"] == version {
            return (v.clone(), v.to_string().len());
        }
    }
}

/// A client that can connect again as the same user.
struct Login {
    token: String,
    user: String,
}

impl Login {
    async fn new(addr: SocketAddr, name: &str) -> Login {
        let (token, user) = common::guest(addr, name).await;
        Login { token, user }
    }

    async fn connect(&self, addr: SocketAddr) -> Client {
        Client::with_token(addr, &self.token, &self.user).await
    }
}

/// White challenges Black to a casual game, Black accepts: both `game_start`s, White's
/// first.
async fn challenge(white: &mut Client, black: &mut Client, variant: &str) -> (Value, Value) {
    white
        .send(
            json!({"type": "challenge", "user": black.user, "variant": variant,
            "time_control": "5+3", "color": "white", "rated": false}),
        )
        .await;
    let sent = white.recv_type("challenge_sent").await;
    black.recv_type("challenge_received").await;
    black
        .send(
            json!({"type": "accept_challenge", "challenge_id": sent["challenge"]["challenge_id"]}),
        )
        .await;
    let b = black.recv_type("game_start").await;
    let w = white.recv_type("game_start").await;
    (w, b)
}

/// The frames a resume from `since` brings `c` up to `version`: the replayed events.
async fn replay(c: &mut Client, game: &str, since: u64, version: u64) -> Vec<Value> {
    c.send(json!({"type": "resume", "game_id": game, "last_version": since}))
        .await;
    let mut frames = Vec::new();
    loop {
        let v = c.recv().await;
        if v["type"] == "game_event" {
            let at = v["version"].as_u64().expect("a version");
            frames.push(v);
            if at >= version {
                return frames;
            }
        }
    }
}

/// A state by `resume` from version 0.
async fn state(c: &mut Client, game: &str) -> Value {
    c.send(json!({"type": "resume", "game_id": game, "last_version": 0}))
        .await;
    c.recv_type("game_state").await["game"].clone()
}

/// The local law with `moves` played from the start.
fn replayed(variant: Variant, initial_fen: &str, moves: &[String]) -> law::Game {
    let mut game = wire::local_law(variant, "5+3", initial_fen);
    for text in moves {
        let pos = game.position().clone();
        let mv = pos.parse_move(text).expect("a move of the game");
        game.play(pos.side_to_move(), &mv).expect("legal");
    }
    game
}

/// The legal moves of the side to move, as the player's frames must carry them.
fn legal_of(game: &law::Game) -> Value {
    json!(game.position().legal_move_texts())
}

#[tokio::test]
async fn only_the_player_to_move_gets_legal_moves_across_a_whole_russian_game() {
    whole_game("russian").await;
}

#[tokio::test]
async fn only_the_player_to_move_gets_legal_moves_across_a_whole_international_game() {
    whole_game("international").await;
}

#[tokio::test]
async fn only_the_player_to_move_gets_legal_moves_across_a_whole_chess_game() {
    whole_game("chess").await;
}

/// A whole game of `variant` by a deterministic policy, a takeback at ply 6, resumes at
/// ply 20, the end by the rules or a resignation at ply 400.
async fn whole_game(name: &str) {
    let srv = wire::server_with(|_| {}).await;
    let addr = srv.addr;
    let (w_login, b_login, s_login) = (
        Login::new(addr, "White").await,
        Login::new(addr, "Black").await,
        Login::new(addr, "Watcher").await,
    );
    let mut white = w_login.connect(addr).await;
    let mut black = b_login.connect(addr).await;
    let (w_start, b_start) = challenge(&mut white, &mut black, name).await;
    let game = wire::id_of(&w_start);
    let initial_fen = w_start["game"]["initial_fen"].as_str().unwrap().to_string();
    let variant: Variant = name.parse().unwrap();
    let mut local = replayed(variant, &initial_fen, &[]);
    assert_eq!(
        w_start["game"]["legal_moves"],
        legal_of(&local),
        "{w_start}"
    );
    assert!(!has_legal(&b_start), "Black is not to move: {b_start}");

    let mut spectator = s_login.connect(addr).await;
    spectator
        .send(json!({"type": "watch", "game_id": game}))
        .await;
    let watched = spectator.recv_type("game_state").await;
    assert!(!has_legal(&watched), "{watched}");

    let mut moves: Vec<String> = Vec::new();
    let (mut spectator_bytes, mut mover_copy_bytes, mut counted) = (0usize, 0usize, 0usize);
    let mut resumed_at = None;
    for ply in 0..400u64 {
        if local.outcome().is_some() {
            break;
        }
        let pos = local.position().clone();
        let by = pos.side_to_move();
        let mv = wire::rotating(&pos, ply);
        let text = pos.move_text(&mv);
        local.play(by, &mv).expect("legal locally");
        moves.push(text.clone());
        let fen = local.position().fen();
        let (mover, other) = match by {
            Color::White => (&mut white, &mut black),
            Color::Black => (&mut black, &mut white),
        };
        // `wire::play` checks that the mover's own copy has no legal moves.
        let (seen, _) = wire::play(mover, other, &game, &text, ply + 1, &fen).await;
        let mut version = seen["version"].as_u64().expect("a version");
        let expected = if local.outcome().is_some() {
            Value::Null
        } else {
            legal_of(&local)
        };
        assert_eq!(seen["event"]["legal_moves"], expected, "after {text}");
        let (bare, bytes) = bare_event_at(&mut spectator, version).await;
        assert_eq!(bare["event"]["fen"], fen.as_str());
        if local.outcome().is_none() {
            spectator_bytes += bytes;
            mover_copy_bytes += seen.to_string().len();
            counted += 1;
        }

        // A takeback at ply 6: its asker, to move again, gets the legal moves.
        if ply == 5 {
            let (asker, other) = match by {
                Color::White => (&mut white, &mut black),
                Color::Black => (&mut black, &mut white),
            };
            let back = common::taken_back(asker, other, &game).await;
            moves.pop();
            local = replayed(variant, &initial_fen, &moves);
            assert_eq!(local.position().side_to_move(), by);
            assert_eq!(back["event"]["legal_moves"], legal_of(&local), "{back}");
            version = back["version"].as_u64().expect("a version");
            let (_, _) = bare_event_at(other, version).await;
            let (bare, _) = bare_event_at(&mut spectator, version).await;
            assert_eq!(bare["event"]["kind"], "taken_back", "{bare}");
        }

        // Resumes at ply 20, from a version four plies back (the most a game keeps
        // once stored and shown) and from scratch.
        if ply == 19 {
            resumed_at = Some(version);
            let since = version - 4;
            let to_move = local.position().side_to_move();
            let (mover_login, other_login) = match to_move {
                Color::White => (&w_login, &b_login),
                Color::Black => (&b_login, &w_login),
            };
            // The player to move: only the last move of the replay carries legal moves,
            // those of now.
            let mut again = mover_login.connect(addr).await;
            let frames = replay(&mut again, &game, since, version).await;
            let (last, earlier) = frames.split_last().expect("a replay");
            assert_eq!(last["event"]["kind"], "move", "{last}");
            assert_eq!(last["event"]["legal_moves"], legal_of(&local), "{last}");
            assert!(earlier.iter().all(|f| !has_legal(f)), "{earlier:?}");
            let s = state(&mut again, &game).await;
            assert_eq!(s["legal_moves"], legal_of(&local), "{s}");
            // The other player and a spectator: none, in the replay or the state.
            let mut others = vec![other_login.connect(addr).await, s_login.connect(addr).await];
            for c in &mut others {
                let frames = replay(c, &game, since, version).await;
                assert_eq!(frames.len() as u64, version - since, "{frames:?}");
                assert!(frames.iter().all(|f| !has_legal(f)), "{frames:?}");
                let s = state(c, &game).await;
                assert!(!has_legal(&s), "{s}");
            }
        }
    }
    assert!(resumed_at.is_some(), "the game ended before the resumes");
    // The end: whoever is to move resigns if the rules have not ended the game.
    if local.outcome().is_none() {
        let to_move = match local.position().side_to_move() {
            Color::White => &mut white,
            Color::Black => &mut black,
        };
        to_move
            .send(json!({"type": "resign", "game_id": game}))
            .await;
    }
    loop {
        let v = spectator.recv().await;
        assert!(!has_legal(&v), "{v}");
        if v["type"] == "game_event" && v["event"]["kind"] == "game_over" {
            break;
        }
    }
    println!(
        "{name}, {counted} moves: a spectator received {} bytes per move event; the copy with \
         legal moves, which every follower received before, is {} bytes",
        spectator_bytes / counted.max(1),
        mover_copy_bytes / counted.max(1)
    );
    srv.server.shutdown();
}

/// A node on the real Redis under `prefix`.
fn node(name: &str, prefix: &str) -> damka::Config {
    let mut c = config();
    c.node_id = name.into();
    c.redis.url = "redis://127.0.0.1:6379".into();
    c.redis.prefix = prefix.into();
    c.ws.rate_per_sec = 1000.0;
    c.ws.rate_burst = 1000.0;
    c
}

#[tokio::test]
async fn a_player_on_a_node_that_does_not_own_the_game_gets_legal_moves_its_spectators_none() {
    let prefix = common::redis_env::unique_prefix("lgm");
    let a = start(node("lgm-a", &prefix)).await;
    let b = start(node("lgm-b", &prefix)).await;
    let (w_login, b_login) = (
        Login::new(a.addr, "White").await,
        Login::new(a.addr, "Black").await,
    );
    let mut white = w_login.connect(a.addr).await;
    let mut black_a = b_login.connect(a.addr).await;
    let (w_start, _) = challenge(&mut white, &mut black_a, "chess").await;
    let game = wire::id_of(&w_start);
    let initial_fen = w_start["game"]["initial_fen"].as_str().unwrap().to_string();
    let variant: Variant = "chess".parse().unwrap();
    let mut local = replayed(variant, &initial_fen, &[]);

    // Black follows from node b (a proxy of node a's game), and so does a spectator.
    let mut black = b_login.connect(b.addr).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        black
            .send(json!({"type": "resume", "game_id": game, "last_version": 0}))
            .await;
        let v = loop {
            let v = black.recv().await;
            if v["type"] == "game_state" || v["type"] == "error" {
                break v;
            }
        };
        if v["type"] == "game_state" {
            assert!(!has_legal(&v), "White is to move: {v}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "node b cannot find the game: {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(black_a);
    let mut spectator = Client::guest(b.addr, "Watcher").await;
    spectator
        .send(json!({"type": "watch", "game_id": game}))
        .await;
    let watched = spectator.recv_type("game_state").await;
    assert!(!has_legal(&watched), "{watched}");

    let mut moves = Vec::new();
    let mut version = 0;
    for ply in 0..12u64 {
        let pos = local.position().clone();
        let by = pos.side_to_move();
        let mv = wire::rotating(&pos, ply);
        let text = pos.move_text(&mv);
        local.play(by, &mv).expect("legal locally");
        moves.push(text.clone());
        let fen = local.position().fen();
        let (mover, other) = match by {
            Color::White => (&mut white, &mut black),
            Color::Black => (&mut black, &mut white),
        };
        let (seen, _) = wire::play(mover, other, &game, &text, ply + 1, &fen).await;
        assert_eq!(
            seen["event"]["legal_moves"],
            legal_of(&local),
            "after {text}"
        );
        // The player put on the move gets their draw permission with it, across the
        // nodes too (FIDE: allowed, `null`).
        assert_eq!(
            seen["event"].get("draw_offer_refusal"),
            Some(&Value::Null),
            "{seen}"
        );
        version = seen["version"].as_u64().expect("a version");
        let (bare, _) = bare_event_at(&mut spectator, version).await;
        assert_eq!(bare["event"]["fen"], fen.as_str());
    }
    // White has just moved: Black, resuming on node b from four plies back, gets the
    // legal moves with the last move of the replay only.
    assert_eq!(local.position().side_to_move(), Color::White);
    let mv = wire::rotating(local.position(), 12);
    let text = local.position().move_text(&mv);
    local.play(Color::White, &mv).expect("legal locally");
    let fen = local.position().fen();
    let (seen, _) = wire::play(&mut white, &mut black, &game, &text, 13, &fen).await;
    version = version.max(seen["version"].as_u64().expect("a version"));
    let mut again = b_login.connect(b.addr).await;
    let frames = replay(&mut again, &game, version - 4, version).await;
    let (last, earlier) = frames.split_last().expect("a replay");
    assert_eq!(last["event"]["legal_moves"], legal_of(&local), "{last}");
    assert!(earlier.iter().all(|f| !has_legal(f)), "{earlier:?}");
    let (bare, _) = bare_event_at(&mut spectator, version).await;
    assert_eq!(bare["event"]["fen"], fen.as_str());
    a.server.shutdown();
    b.server.shutdown();
}

/// A player's draw offer permission in a classical Russian game (IDF s.2 9.2: each side
/// must first have made 20 moves; a draw goes with one's own move), as the law says it:
/// the side to move offers with its next move; the other, after its own move.
fn expected_permission(c: Color, to_move: Color, made: [u32; 2]) -> Value {
    let mut made = made;
    if c == to_move {
        made[c.index()] += 1;
    } else if made[c.index()] == 0 {
        return json!({"kind": "not_after_own_move"});
    }
    if made.iter().all(|&n| n >= 20) {
        Value::Null
    } else {
        json!({"kind": "too_early", "required": 20})
    }
}

/// Each player of a classical Russian game is told, before any offer, whether they may
/// offer a draw: `too_early` at the start, `null` once both sides have made 20 moves
/// (the side to move counting the move it offers with); in `game_start`, in its own
/// `move_ack` and in the copy of the move that puts it on the move; a spectator never.
#[tokio::test]
async fn each_player_is_told_when_a_draw_may_be_offered_a_spectator_never() {
    let srv = wire::server_with(|_| {}).await;
    let addr = srv.addr;
    let (w_login, b_login) = (
        Login::new(addr, "White").await,
        Login::new(addr, "Black").await,
    );
    let mut white = w_login.connect(addr).await;
    let mut black = b_login.connect(addr).await;
    white
        .send(
            json!({"type": "challenge", "user": black.user, "variant": "russian",
            "time_control": "45+30", "color": "white", "rated": false}),
        )
        .await;
    let sent = white.recv_type("challenge_sent").await;
    black.recv_type("challenge_received").await;
    black
        .send(
            json!({"type": "accept_challenge", "challenge_id": sent["challenge"]["challenge_id"]}),
        )
        .await;
    let b_start = black.recv_type("game_start").await;
    let w_start = white.recv_type("game_start").await;
    assert_eq!(w_start["game"]["speed"], "classical", "{w_start}");
    assert_eq!(
        w_start["game"]["draw_offer_refusal"],
        json!({"kind": "too_early", "required": 20}),
        "{w_start}"
    );
    assert_eq!(
        b_start["game"]["draw_offer_refusal"],
        json!({"kind": "not_after_own_move"}),
        "{b_start}"
    );
    let game = wire::id_of(&w_start);
    let initial_fen = w_start["game"]["initial_fen"].as_str().unwrap().to_string();
    let variant: Variant = "russian".parse().unwrap();
    let mut local = replayed(variant, &initial_fen, &[]);

    let mut spectator = Login::new(addr, "Watcher").await.connect(addr).await;
    spectator
        .send(json!({"type": "watch", "game_id": game}))
        .await;
    let watched = spectator.recv_type("game_state").await;
    assert!(
        watched["game"].get("draw_offer_refusal").is_none(),
        "{watched}"
    );

    let mut made = [0u32; 2];
    for ply in 0..40u64 {
        assert!(local.outcome().is_none(), "over at ply {ply}");
        let pos = local.position().clone();
        let by = pos.side_to_move();
        let mv = wire::shuffle(&pos, ply);
        let text = pos.move_text(&mv);
        local.play(by, &mv).expect("legal locally");
        made[by.index()] += 1;
        let (mover, other) = match by {
            Color::White => (&mut white, &mut black),
            Color::Black => (&mut black, &mut white),
        };
        mover
            .send(json!({"type": "move", "game_id": game, "move": text, "move_id": ply + 1}))
            .await;
        let ack = mover.recv_type("move_ack").await;
        assert_eq!(
            ack["draw_offer_refusal"],
            expected_permission(by, by.opponent(), made),
            "{by:?}'s ack of {text} at ply {ply}: {ack}"
        );
        // The opponent's queue may still hold its own previous move.
        let seen = loop {
            let seen = other.recv_event("move").await;
            if seen["event"]["by"] == json!(by) {
                break seen;
            }
        };
        assert_eq!(
            seen["event"].get("draw_offer_refusal"),
            Some(&expected_permission(by.opponent(), by.opponent(), made)),
            "{seen}"
        );
        let version = seen["version"].as_u64().expect("a version");
        bare_event_at(&mut spectator, version).await;
    }
    // Allowed now for both, and so says a state from scratch.
    let now = state(&mut white, &game).await;
    assert_eq!(now.get("draw_offer_refusal"), Some(&Value::Null), "{now}");
    srv.server.shutdown();
}
