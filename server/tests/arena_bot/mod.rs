//! The arena bot of the arena tests (`arena_e2e`, `arena_cluster`): joins an arena over
//! WebSocket and plays whatever it is paired (resigning, agreeing draws or playing on,
//! by a plan drawn from the game id; going berserk in some), and the recomputation of
//! arena points from archived games with the rules written out independently.
#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use crate::common::{self, Client};
use serde_json::{Value, json};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Position, Variant};

/// How a bot plays one game, from the game id: who gives up (or a draw) after how
/// many plies.
#[derive(Clone, Copy, Debug)]
struct Plan {
    kind: u32,
    after: usize,
}

fn plan(game_id: &str) -> Plan {
    let sum: u32 = game_id.bytes().map(u32::from).sum();
    Plan {
        kind: sum % 3,
        after: [4, 14, 64][(sum / 3 % 3) as usize],
    }
}

struct Live {
    me: Color,
    plies: usize,
    fen: String,
    /// The ply at which a draw was last offered with a move.
    offered_at: Option<usize>,
}

/// Does this player go berserk in this game?
fn goes_berserk(game_id: &str, white: bool) -> bool {
    let sum: u32 = game_id.bytes().map(u32::from).sum();
    (sum / 9 + u32::from(white)).is_multiple_of(3)
}

/// One bot: joins, plays every game it gets, returns the ids of its games in order
/// with whether it went berserk in each.
pub async fn bot(addr: SocketAddr, name: String, arena: String) -> Vec<(String, bool)> {
    let token = common::token(&name, damka::auth::unix_now() + 3600);
    let mut c = Client::with_token(addr, &token, &name).await;
    c.send(json!({"type": "arena_join", "arena_id": arena}))
        .await;
    let mut games = Vec::new();
    let mut live: HashMap<String, Live> = HashMap::new();
    // A player of a draw plan waits a moment before answering a move, for the offer
    // that may come with it (the offer is sent right after the move).
    let mut deferred: Option<(String, tokio::time::Instant)> = None;
    loop {
        let v = match deferred.clone() {
            Some((id, at)) => {
                let timed = tokio::time::timeout_at(at, recv_slow(&mut c)).await;
                match timed {
                    Ok(v) => v,
                    Err(_) => {
                        deferred = None;
                        if let Some(l) = live.get_mut(&id) {
                            act(&mut c, &id, l).await;
                        }
                        continue;
                    }
                }
            }
            None => recv_slow(&mut c).await,
        };
        match v["type"].as_str().unwrap_or("") {
            "game_start" => {
                let g = &v["game"];
                let id = g["game_id"].as_str().unwrap().to_string();
                assert_eq!(g["variant"], "russian");
                let me = if g["white"]["id"] == name.as_str() {
                    Color::White
                } else {
                    Color::Black
                };
                let berserk = goes_berserk(&id, me == Color::White);
                if berserk {
                    c.send(json!({"type": "berserk", "game_id": id})).await;
                }
                games.push((id.clone(), berserk));
                live.insert(
                    id.clone(),
                    Live {
                        me,
                        plies: g["moves"].as_array().unwrap().len(),
                        fen: g["fen"].as_str().unwrap().to_string(),
                        offered_at: None,
                    },
                );
                act(&mut c, &id, live.get_mut(&id).unwrap()).await;
            }
            "game_event" => {
                let id = v["game_id"].as_str().unwrap().to_string();
                let Some(l) = live.get_mut(&id) else { continue };
                let e = &v["event"];
                match e["kind"].as_str().unwrap_or("") {
                    "move" => {
                        l.plies += 1;
                        l.fen = e["fen"].as_str().unwrap().to_string();
                        let p = plan(&id);
                        if p.kind == 2 && l.plies >= p.after && e["by"] != color_name(l.me) {
                            deferred = Some((
                                id.clone(),
                                tokio::time::Instant::now() + Duration::from_millis(40),
                            ));
                        } else {
                            act(&mut c, &id, l).await;
                        }
                    }
                    "draw_offered" if e["by"] != color_name(l.me) => {
                        if deferred.as_ref().is_some_and(|(d, _)| *d == id) {
                            deferred = None;
                        }
                        if plan(&id).kind == 2 {
                            c.send(json!({"type": "draw_accept", "game_id": id})).await;
                        }
                    }
                    "game_over" => {
                        live.remove(&id);
                    }
                    _ => {}
                }
            }
            "error" if v["code"] == "draw_offer_not_allowed" => {
                // Too early for a draw: the move was not played; play it without.
                let id = v["game_id"].as_str().unwrap_or("").to_string();
                if let Some(l) = live.get_mut(&id) {
                    act(&mut c, &id, l).await;
                }
            }
            "error" if v["code"] != "draw_offer_not_allowed" => eprintln!("{name}: {v}"),
            "arena_standings" if v["standings"]["status"] == "finished" => return games,
            _ => {}
        }
    }
}

/// The next JSON message, waiting up to a minute (a bot may wait long between games).
pub async fn recv_slow(c: &mut Client) -> Value {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(60), c.ws.next())
            .await
            .expect("the bot hears from the server in time")
            .expect("the socket is open")
            .expect("a frame");
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).unwrap();
        }
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Moves, resigns or offers a draw when it is the bot's turn.
async fn act(c: &mut Client, id: &str, l: &mut Live) {
    let pos = Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), &l.fen).unwrap();
    if pos.side_to_move() != l.me {
        return;
    }
    let p = plan(id);
    if l.plies >= p.after {
        let loser = match p.kind {
            0 => Some(Color::White),
            1 => Some(Color::Black),
            _ => None,
        };
        if loser == Some(l.me) {
            c.send(json!({"type": "resign", "game_id": id})).await;
            return;
        }
    }
    let offer = p.kind == 2 && l.plies >= p.after && l.offered_at != Some(l.plies);
    if offer {
        l.offered_at = Some(l.plies);
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return;
    }
    let mv = &moves[(l.plies * 7 + id.len()) % moves.len()];
    let text = pos.move_text(mv);
    c.send(
        json!({"type": "move", "game_id": id, "move": text, "move_id": l.plies + 1,
        "offer_draw": offer}),
    )
    .await;
}

/// Did `player` go berserk in this archived game?
pub fn archived_berserk(player: &str, g: &Value) -> bool {
    let colour = if g["white"]["id"] == player {
        "white"
    } else {
        "black"
    };
    g["berserk"]
        .as_array()
        .is_some_and(|b| b.iter().any(|c| c == colour))
}

/// The points of each game of a sheet, recomputed from the archived games (berserk
/// included) with the rules as docs/protocol.md states them. A game aborted because
/// the side to move made no first move is lost by that side.
pub fn recompute(player: &str, games: &[Value]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut results: Vec<char> = Vec::new();
    for g in games {
        let berserk = archived_berserk(player, g);
        let white = g["white"]["id"] == player;
        let plies = g["moves"].as_array().unwrap().len();
        // White moves first in Russian draughts.
        let own_moves = if white { plies.div_ceil(2) } else { plies / 2 };
        let no_start = g["reason"] == "aborted";
        let white_to_move = plies % 2 == 0;
        let r = match g["result"].as_str().unwrap() {
            "*" if no_start && white_to_move != white => 'W',
            "1-0" if white => 'W',
            "0-1" if !white => 'W',
            "1/2-1/2" => 'D',
            _ => 'L',
        };
        let n = results.len();
        let fire = n >= 2 && results[n - 2] == 'W' && results[n - 1] == 'W';
        let after_draw = results.last() == Some(&'D');
        let points = match r {
            'W' if fire => 4,
            'W' => 2,
            'D' if after_draw && plies < 60 => 0,
            'D' if fire => 2,
            'D' => 1,
            _ => 0,
        };
        let bonus = u64::from(berserk && r == 'W' && own_moves >= 7);
        results.push(r);
        out.push(points + bonus);
    }
    out
}
