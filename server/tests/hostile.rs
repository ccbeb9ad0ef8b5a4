//! Hostile inputs, each answered as docs/protocol.md says, with the server still
//! serving others and the game unchanged.

mod common;

use std::panic::AssertUnwindSafe;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::*;
use damka::auth::unix_now;
use futures_util::FutureExt;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;

/// What a hostile input must produce (docs/protocol.md, "Hostile input").
enum Expect {
    /// An `error` frame with this code and nothing else; the session stays open.
    Error(&'static str),
    /// An `error` frame with this code, then a close frame with this code.
    ErrorThenClose(&'static str, u16),
    /// A close frame with this code.
    Close(u16),
    /// One message of this type and nothing else (a documented non-error answer).
    Reply(&'static str),
    /// No answer at all; the session stays open.
    Nothing,
}

/// Who sends a hostile frame.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Who {
    /// A fresh guest past `hello`, who plays no game.
    Stranger,
    /// A fresh guest who has not sent `hello`.
    NoHello,
    /// White of the live game (Black to move, Black's clock running).
    White,
    /// Black of the live game.
    Black,
    /// White of a game that Black resigned.
    Finished,
    /// White of a casual game at ply 0.
    Unstarted,
}

struct Case {
    name: &'static str,
    who: Who,
    frame: Message,
    expect: Expect,
}

fn text(v: serde_json::Value) -> Message {
    Message::Text(v.to_string().into())
}

fn raw(s: impl Into<String>) -> Message {
    Message::Text(s.into().into())
}

fn case(name: &'static str, who: Who, frame: Message, expect: Expect) -> Case {
    Case {
        name,
        who,
        frame,
        expect,
    }
}

/// Malformed frames: not JSON, not an object, no or bad `type`, bad fields, binary,
/// oversized, deeply nested, long strings and control characters.
fn malformed_cases(live: &str) -> Vec<Case> {
    use Expect::*;
    use Who::*;
    let long = "y".repeat(3000);
    vec![
        case("bad json", Stranger, raw("{\"type\":"), Error("bad_json")),
        case(
            "trailing garbage",
            Stranger,
            raw(r#"{"type":"ping","id":1} x"#),
            Error("bad_json"),
        ),
        case("empty text frame", Stranger, raw(""), Error("bad_json")),
        case(
            "lone surrogate escape",
            Stranger,
            raw(r#"{"type":"ping\ud800","id":1}"#),
            Error("bad_json"),
        ),
        case(
            "single quotes",
            Stranger,
            raw("{'type':'ping','id':1}"),
            Error("bad_json"),
        ),
        case(
            "binary frame",
            Stranger,
            Message::Binary(vec![0, 1, 2].into()),
            Error("bad_json"),
        ),
        case(
            "binary frame holding valid JSON",
            Stranger,
            Message::Binary(br#"{"type":"ping","id":1}"#.to_vec().into()),
            Error("bad_json"),
        ),
        case(
            "deep nesting",
            Stranger,
            raw(format!("{}{}", "[".repeat(1000), "]".repeat(1000))),
            Error("bad_json"),
        ),
        case(
            "deep nesting inside a message",
            Stranger,
            raw(format!(
                r#"{{"type":"ping","id":1,"x":{}{}}}"#,
                "{\"a\":".repeat(300),
                "}".repeat(300)
            )),
            Error("bad_json"),
        ),
        case(
            "oversized frame",
            Stranger,
            raw(format!(
                r#"{{"type":"ping","id":1,"pad":"{}"}}"#,
                "x".repeat(8192)
            )),
            Close(1009),
        ),
        case("array", Stranger, raw("[1,2]"), Error("missing_type")),
        case("string", Stranger, raw(r#""hello""#), Error("missing_type")),
        case("null", Stranger, raw("null"), Error("missing_type")),
        case(
            "no type",
            Stranger,
            raw(r#"{"id":1}"#),
            Error("missing_type"),
        ),
        case(
            "numeric type",
            Stranger,
            raw(r#"{"type":5}"#),
            Error("missing_type"),
        ),
        case(
            "null type",
            Stranger,
            raw(r#"{"type":null}"#),
            Error("missing_type"),
        ),
        case(
            "empty type",
            Stranger,
            raw(r#"{"type":""}"#),
            Error("unknown_type"),
        ),
        case(
            "unknown type",
            Stranger,
            raw(r#"{"type":"teleport"}"#),
            Error("unknown_type"),
        ),
        case(
            "type in capitals",
            Stranger,
            raw(r#"{"type":"PING","id":1}"#),
            Error("unknown_type"),
        ),
        case(
            "server message type",
            Stranger,
            raw(r#"{"type":"welcome","protocol":1}"#),
            Error("unknown_type"),
        ),
        case(
            "long type",
            Stranger,
            text(json!({"type": long})),
            Error("unknown_type"),
        ),
        case(
            "missing field",
            Stranger,
            text(json!({"type": "move", "game_id": live})),
            Error("invalid_message"),
        ),
        case(
            "wrong field type",
            Stranger,
            text(json!({"type": "move", "game_id": live, "move": 5, "move_id": 1})),
            Error("invalid_message"),
        ),
        case(
            "negative move id",
            Black,
            text(json!({"type": "move", "game_id": live, "move": "f6-g5", "move_id": -1})),
            Error("invalid_message"),
        ),
        case(
            "move id past u64",
            Black,
            raw(format!(
                r#"{{"type":"move","game_id":"{live}","move":"f6-g5","move_id":1e30}}"#
            )),
            Error("invalid_message"),
        ),
        case(
            "ping id as text",
            Stranger,
            raw(r#"{"type":"ping","id":"1"}"#),
            Error("invalid_message"),
        ),
        case(
            "game id as object",
            Stranger,
            text(json!({"type": "resign", "game_id": {"id": live}})),
            Error("invalid_message"),
        ),
        case(
            "control characters in a game id",
            Stranger,
            text(json!({"type": "resign", "game_id": "\u{0}\u{202e}\u{1b}[2J"})),
            Error("game_not_found"),
        ),
        case(
            "long game id",
            Stranger,
            text(json!({"type": "resign", "game_id": long})),
            Error("game_not_found"),
        ),
        case(
            "unknown variant",
            Stranger,
            text(json!({"type": "seek", "variant": "go", "time_control": "3+2"})),
            Error("invalid_message"),
        ),
        case(
            "rule set of another variant",
            Stranger,
            text(
                json!({"type": "seek", "variant": "russian", "time_control": "3+2", "ruleset": "fide"}),
            ),
            Error("invalid_message"),
        ),
        case(
            "presence query of 201 users",
            Stranger,
            text(json!({"type": "presence_query", "users": vec!["u"; 201]})),
            Error("too_many"),
        ),
    ]
}

/// Bad time controls, bad positions and lobby messages naming nothing.
fn lobby_cases(white_id: &str) -> Vec<Case> {
    use Expect::*;
    use Who::*;
    let seek = |tc: serde_json::Value| {
        text(json!({"type": "seek", "variant": "russian", "time_control": tc}))
    };
    vec![
        case(
            "time control as words",
            Stranger,
            seek(json!("forever")),
            Error("invalid_message"),
        ),
        case(
            "time control 0+0",
            Stranger,
            seek(json!("0+0")),
            Error("invalid_message"),
        ),
        case(
            "negative increment",
            Stranger,
            seek(json!("5+-1")),
            Error("invalid_message"),
        ),
        case(
            "time control past 10 hours",
            Stranger,
            seek(json!("601+0")),
            Error("invalid_message"),
        ),
        case(
            "four periods",
            Stranger,
            seek(
                json!({"periods": [{"time_ms": 60000, "moves": 10}, {"time_ms": 1000, "moves": 10}, {"time_ms": 1000, "moves": 10}, {"time_ms": 1000}]}),
            ),
            Error("invalid_message"),
        ),
        case(
            "delay in draughts",
            Stranger,
            seek(json!({"periods": [{"time_ms": 300000, "delay_ms": 3000}]})),
            Error("invalid_message"),
        ),
        case(
            "time control as a number",
            Stranger,
            seek(json!(300)),
            Error("invalid_message"),
        ),
        case(
            "rated seek by a guest",
            Stranger,
            text(
                json!({"type": "seek", "variant": "russian", "time_control": "3+2", "rated": true}),
            ),
            Error("rated_needs_account"),
        ),
        case(
            "unknown pool",
            Stranger,
            text(json!({"type": "pool_join", "variant": "frisian", "time_control": "7+7"})),
            Error("unknown_pool"),
        ),
        case(
            "accept an unknown seek",
            Stranger,
            text(json!({"type": "accept_seek", "seek_id": 987654})),
            Error("seek_not_found"),
        ),
        case(
            "cancel an unknown seek",
            Stranger,
            text(json!({"type": "cancel_seek", "seek_id": 987654})),
            Error("seek_not_found"),
        ),
        case(
            "accept an unknown challenge",
            Stranger,
            text(json!({"type": "accept_challenge", "challenge_id": 987654})),
            Error("challenge_not_found"),
        ),
        case(
            "decline an unknown challenge",
            Stranger,
            text(json!({"type": "decline_challenge", "challenge_id": 987654})),
            Error("challenge_not_found"),
        ),
        case(
            "challenge an offline user",
            Stranger,
            text(
                json!({"type": "challenge", "user": "guest:0000000000000000", "variant": "russian", "time_control": "3+2", "color": "white"}),
            ),
            Error("user_offline"),
        ),
        case(
            "challenge with a malformed FEN",
            Stranger,
            text(
                json!({"type": "challenge", "user": white_id, "variant": "russian", "time_control": "3+2", "color": "white", "fen": "W:Wz9:B"}),
            ),
            Error("invalid_position"),
        ),
        case(
            "challenge with an illegal position",
            Stranger,
            text(
                json!({"type": "challenge", "user": white_id, "variant": "russian", "time_control": "3+2", "color": "white", "fen": "W:Wa1,c1:Ba1"}),
            ),
            Error("invalid_position"),
        ),
        case(
            "chess challenge with a draughts FEN",
            Stranger,
            text(
                json!({"type": "challenge", "user": white_id, "variant": "chess", "time_control": "3+2", "color": "white", "fen": "W:W31-50:B1-20"}),
            ),
            Error("invalid_position"),
        ),
        case(
            "rated challenge from a position",
            Stranger,
            text(
                json!({"type": "challenge", "user": white_id, "variant": "russian", "time_control": "3+2", "color": "white", "rated": true, "fen": "W:Wa1,c1,e1:Bb8,d8,f8"}),
            ),
            Error("invalid_position"),
        ),
        case(
            "tv of a variant nobody plays",
            Stranger,
            text(json!({"type": "tv", "variant": "frisian"})),
            Error("no_tv_game"),
        ),
        case(
            "watch an unknown game",
            Stranger,
            text(json!({"type": "watch", "game_id": "nope"})),
            Error("game_not_found"),
        ),
        case(
            "resume an unknown game",
            Stranger,
            text(json!({"type": "resume", "game_id": "nope", "last_version": 3})),
            Error("game_not_found"),
        ),
        case(
            "unwatch a game not watched",
            Stranger,
            text(json!({"type": "unwatch", "game_id": "nope"})),
            Error("not_watching"),
        ),
        case(
            "watch an unknown tournament",
            Stranger,
            text(json!({"type": "tournament_watch", "tournament_id": "nope"})),
            Error("tournament_not_found"),
        ),
        case(
            "withdraw from an unknown tournament",
            Stranger,
            text(json!({"type": "tournament_withdraw", "tournament_id": "nope"})),
            Error("tournament_not_found"),
        ),
        case(
            "unwatch an unknown tournament",
            Stranger,
            text(json!({"type": "tournament_unwatch", "tournament_id": "nope"})),
            Nothing,
        ),
        case(
            "join an unknown arena",
            Stranger,
            text(json!({"type": "arena_join", "arena_id": "nope"})),
            Error("arena_not_found"),
        ),
        case(
            "watch an unknown arena",
            Stranger,
            text(json!({"type": "arena_watch", "arena_id": "\u{0}nope"})),
            Error("arena_not_found"),
        ),
        case(
            "withdraw from an unknown arena",
            Stranger,
            text(json!({"type": "arena_withdraw", "arena_id": "nope"})),
            Error("arena_not_found"),
        ),
        case(
            "pause an unknown arena",
            Stranger,
            text(json!({"type": "arena_pause", "arena_id": "nope"})),
            Error("arena_not_found"),
        ),
        case(
            "arena created by a guest",
            Stranger,
            text(
                json!({"type": "arena_create", "name": "x", "variant": "russian", "time_control": "3+2", "rated": false, "starts_in_secs": 0, "duration_secs": 600}),
            ),
            Error("rated_needs_account"),
        ),
    ]
}

/// Session-level misuse: no hello, a second hello, tokens of others.
fn session_cases() -> Vec<Case> {
    use Expect::*;
    use Who::*;
    vec![
        case(
            "move before hello",
            NoHello,
            text(json!({"type": "move", "game_id": "x", "move": "c3-d4", "move_id": 1})),
            Error("hello_required"),
        ),
        case(
            "auth before hello",
            NoHello,
            text(json!({"type": "auth", "token": "x"})),
            Error("hello_required"),
        ),
        case(
            "auth with a garbage token",
            Stranger,
            text(json!({"type": "auth", "token": "garbage"})),
            Error("unauthorized"),
        ),
        case(
            "auth with another user's token",
            Stranger,
            text(json!({"type": "auth", "token": token("someone-else", unix_now() + 600)})),
            Error("user_mismatch"),
        ),
        case(
            "auth with an expired token",
            Stranger,
            text(json!({"type": "auth", "token": token("someone-else", unix_now() - 60)})),
            Error("token_expired"),
        ),
        case(
            "second hello with another protocol",
            Stranger,
            text(json!({"type": "hello", "protocol": 99})),
            ErrorThenClose("unsupported_protocol", 4002),
        ),
    ]
}

/// Game actions that the game refuses: a stranger in someone else's game, the players
/// out of turn or against the law, actions on a finished game, takebacks at ply 0.
fn game_cases(live: &str, finished: &str, unstarted: &str) -> Vec<Case> {
    use Expect::*;
    use Who::*;
    let on = |kind: &str, id: &str| text(json!({"type": kind, "game_id": id}));
    let mv =
        |id: &str, m: &str| text(json!({"type": "move", "game_id": id, "move": m, "move_id": 7}));
    vec![
        case(
            "move in another's game",
            Stranger,
            mv(live, "f6-g5"),
            Error("not_a_player"),
        ),
        case(
            "resign another's game",
            Stranger,
            on("resign", live),
            Error("not_a_player"),
        ),
        case(
            "draw offer in another's game",
            Stranger,
            on("draw_offer", live),
            Error("not_a_player"),
        ),
        case(
            "takeback in another's game",
            Stranger,
            on("takeback_offer", live),
            Error("not_a_player"),
        ),
        case(
            "abort another's game",
            Stranger,
            on("abort", live),
            Error("not_a_player"),
        ),
        case(
            "claim another's game abandoned",
            Stranger,
            text(json!({"type": "claim_abandoned", "game_id": live, "result": "win"})),
            Error("not_a_player"),
        ),
        case(
            "move out of turn",
            White,
            mv(live, "d4-e5"),
            Error("not_your_turn"),
        ),
        case(
            "move of the opponent's piece",
            Black,
            mv(live, "d4-e5"),
            Error("illegal_move"),
        ),
        case(
            "move to an occupied square",
            Black,
            mv(live, "h8-g7"),
            Error("illegal_move"),
        ),
        case(
            "move off the board",
            Black,
            mv(live, "f6-j9"),
            Error("illegal_move"),
        ),
        case(
            "chess move in draughts",
            Black,
            mv(live, "e7e5"),
            Error("illegal_move"),
        ),
        case(
            "illegal route",
            Black,
            mv(live, "f6-e5-d4"),
            Error("illegal_move"),
        ),
        case(
            "long move text",
            Black,
            mv(live, &"f6-".repeat(900)),
            Error("illegal_move"),
        ),
        case("empty move", Black, mv(live, ""), Error("illegal_move")),
        case(
            "move with a draw offer not allowed",
            Black,
            text(
                json!({"type": "move", "game_id": live, "move": "f6-g5", "move_id": 7, "offer_draw": true}),
            ),
            Error("draw_offer_not_allowed"),
        ),
        case(
            "accept a draw never offered",
            Black,
            on("draw_accept", live),
            Error("no_offer"),
        ),
        case(
            "decline a draw never offered",
            White,
            on("draw_decline", live),
            Error("no_offer"),
        ),
        case(
            "accept a takeback never asked",
            White,
            on("takeback_accept", live),
            Error("no_offer"),
        ),
        case(
            "takeback before one's first move",
            Black,
            on("takeback_offer", live),
            Error("takeback_not_allowed"),
        ),
        case(
            "berserk outside an arena",
            Black,
            on("berserk", live),
            Error("berserk_not_allowed"),
        ),
        case(
            "rematch of a live game",
            Black,
            on("rematch", live),
            Error("rematch_not_allowed"),
        ),
        case(
            "draw claim without grounds",
            Black,
            on("draw_claim", live),
            Error("claim_refused"),
        ),
        case(
            "claim abandoned while the opponent is here",
            White,
            text(json!({"type": "claim_abandoned", "game_id": live, "result": "win"})),
            Error("claim_refused"),
        ),
        case(
            "unwatch one's own game",
            White,
            on("unwatch", live),
            Error("not_watching"),
        ),
        case(
            "watch one's own game",
            White,
            on("watch", live),
            Error("already_watching"),
        ),
        case(
            "resume from a version from the future",
            Stranger,
            text(json!({"type": "resume", "game_id": live, "last_version": 1_000_000_000u64})),
            Reply("game_state"),
        ),
        case(
            "move in a finished game",
            Finished,
            mv(finished, "c3-d4"),
            Error("game_over"),
        ),
        case(
            "resign a finished game",
            Finished,
            on("resign", finished),
            Error("game_over"),
        ),
        case(
            "draw offer in a finished game",
            Finished,
            on("draw_offer", finished),
            Error("game_over"),
        ),
        case(
            "takeback in a finished game",
            Finished,
            on("takeback_offer", finished),
            Error("game_over"),
        ),
        case(
            "abort a finished game",
            Finished,
            on("abort", finished),
            Error("game_over"),
        ),
        case(
            "takeback at ply 0",
            Unstarted,
            on("takeback_offer", unstarted),
            Error("takeback_not_allowed"),
        ),
        case(
            "berserk at ply 0 outside an arena",
            Unstarted,
            on("berserk", unstarted),
            Error("berserk_not_allowed"),
        ),
    ]
}

/// The live game as a new spectator sees it.
#[derive(Debug)]
struct Snapshot {
    version: u64,
    fen: String,
    moves: serde_json::Value,
    running: serde_json::Value,
    white_ms: u64,
    black_ms: u64,
}

/// Reads every message up to the pong of `id`.
async fn until_pong(c: &mut Client, id: u64) -> Vec<serde_json::Value> {
    // The pong is answered by the session loop at once, so it may overtake the answer
    // of a request that waits on a game; a presence query is answered in order after
    // every earlier request, so the two together mark the end of the answers.
    let barrier = format!("barrier{id}");
    c.send(json!({"type": "ping", "id": id})).await;
    c.send(json!({"type": "presence_query", "users": [barrier]}))
        .await;
    let (mut pong, mut presence) = (false, false);
    let mut got = Vec::new();
    while !(pong && presence) {
        let v = c.recv().await;
        if v["type"] == "pong" && v["id"] == id {
            pong = true;
        } else if v["type"] == "presence" && v["users"][0]["id"] == barrier.as_str() {
            presence = true;
        } else {
            got.push(v);
        }
    }
    got
}

/// The live game now, through a new spectator's `watch`.
async fn snapshot(addr: std::net::SocketAddr, id: &str) -> Snapshot {
    let mut o = Client::guest(addr, "Observer").await;
    o.send(json!({"type": "watch", "game_id": id})).await;
    let g = o.recv_type("game_state").await["game"].clone();
    Snapshot {
        version: g["version"].as_u64().unwrap(),
        fen: g["fen"].as_str().unwrap().to_string(),
        moves: g["moves"].clone(),
        running: g["clock"]["running"].clone(),
        white_ms: g["clock"]["white_ms"].as_u64().unwrap(),
        black_ms: g["clock"]["black_ms"].as_u64().unwrap(),
    }
}

/// A spectator that follows the live game from the start and sees every event.
struct Witness {
    client: Client,
    seen: u64,
}

impl Witness {
    /// The kinds of the events after the last one seen, up to `version`.
    async fn events_up_to(&mut self, version: u64) -> Vec<String> {
        let mut kinds = Vec::new();
        while self.seen < version {
            let e = self.client.recv_type("game_event").await;
            self.seen = e["version"].as_u64().unwrap();
            kinds.push(e["event"]["kind"].as_str().unwrap_or_default().to_string());
        }
        kinds
    }
}

/// The game is as it was: the same position and moves, White's clock stopped at the
/// same time, Black's still running, and no event since but spectator counts (each
/// watcher, the snapshots' own included, changes the count).
async fn assert_unchanged(name: &str, before: &Snapshot, now: &Snapshot, witness: &mut Witness) {
    assert_eq!(
        (&now.fen, &now.moves, &now.running, now.white_ms),
        (&before.fen, &before.moves, &before.running, before.white_ms),
        "{name}: the game changed"
    );
    assert!(now.black_ms <= before.black_ms, "{name}: {now:?}");
    let kinds = witness.events_up_to(now.version).await;
    assert!(
        kinds.iter().all(|k| k == "spectators"),
        "{name}: events {kinds:?}"
    );
}

/// Plays one case: sends the frame as `who` and checks the documented answer and that
/// the sender is still served (it answers a ping and a presence query).
async fn play_case(c: &mut Client, case: Case, ping: u64) {
    let name = case.name;
    c.send_raw(case.frame).await;
    match case.expect {
        Expect::Close(code) => assert_eq!(c.closed().await.0, code, "{name}"),
        Expect::ErrorThenClose(code, close) => {
            let e = c.recv_type("error").await;
            assert_eq!(e["code"], code, "{name}: {e}");
            assert_eq!(c.closed().await.0, close, "{name}");
        }
        expect => {
            // The answer, then the pong: the session still works.
            let got = until_pong(c, ping).await;
            let answers: Vec<_> = got
                .iter()
                .filter(|v| !(v["type"] == "game_event" && v["event"]["kind"] == "spectators"))
                .collect();
            match expect {
                Expect::Error(code) => {
                    assert_eq!(answers.len(), 1, "{name}: {got:?}");
                    let e = answers[0];
                    assert_eq!(
                        (e["type"].as_str(), e["code"].as_str()),
                        (Some("error"), Some(code)),
                        "{name}: {e}"
                    );
                    let message = e["message"].as_str().unwrap_or_default();
                    assert!(!message.is_empty() && message.len() <= 512, "{name}: {e}");
                }
                Expect::Reply(kind) => {
                    assert_eq!(answers.len(), 1, "{name}: {got:?}");
                    assert_eq!(answers[0]["type"], kind, "{name}: {got:?}");
                }
                _ => assert!(answers.is_empty(), "{name}: {got:?}"),
            }
        }
    }
}

/// A case sent before `hello`: answered, and `hello` still works after it.
async fn no_hello_case(addr: std::net::SocketAddr, case: Case) {
    let (tok, user) = guest(addr, "Mallory").await;
    let mut c = Client {
        ws: connect_raw(addr, &tok).await.unwrap(),
        user,
    };
    c.send_raw(case.frame).await;
    let Expect::Error(code) = case.expect else {
        panic!("{}: only errors are expected before hello", case.name)
    };
    assert_eq!(c.recv_type("error").await["code"], code, "{}", case.name);
    c.send(json!({"type": "hello", "protocol": 1})).await;
    c.recv_type("welcome").await;
}

#[tokio::test]
async fn hostile_frames() {
    let s = start(config()).await;
    // The live game: White has moved, Black's clock runs.
    let (mut a, mut b, id) = game(s.addr, "russian", "3+2").await;
    a.send(json!({"type": "move", "game_id": id, "move": "c3-d4", "move_id": 1}))
        .await;
    a.recv_type("move_ack").await;
    b.recv_event("move").await;
    // A finished game (its Black resigned) and a casual chess game at ply 0.
    let (mut f, mut fb, finished) = game(s.addr, "russian", "3+2").await;
    fb.send(json!({"type": "resign", "game_id": finished}))
        .await;
    f.recv_event("game_over").await;
    let (mut u, _ub, unstarted) = game(s.addr, "chess", "3+2").await;

    let mut table = malformed_cases(&id);
    table.extend(lobby_cases(&a.user));
    table.extend(session_cases());
    table.extend(game_cases(&id, &finished, &unstarted));
    let names: std::collections::HashSet<_> = table.iter().map(|c| c.name).collect();
    assert_eq!(names.len(), table.len(), "every case is distinct");
    assert!(table.len() >= 50, "{}", table.len());

    let mut witness = Witness {
        client: Client::guest(s.addr, "Witness").await,
        seen: 0,
    };
    witness
        .client
        .send(json!({"type": "watch", "game_id": id}))
        .await;
    witness.seen = witness.client.recv_type("game_state").await["game"]["version"]
        .as_u64()
        .unwrap();
    let mut before = snapshot(s.addr, &id).await;
    // Every case runs, and the failures are listed together at the end.
    let mut failed = Vec::new();
    for (i, case) in table.into_iter().enumerate() {
        let ping = 1000 + i as u64;
        let name = case.name;
        let run = AssertUnwindSafe(async {
            match case.who {
                Who::Stranger => {
                    let mut c = Client::guest(s.addr, "Mallory").await;
                    play_case(&mut c, case, ping).await;
                }
                Who::NoHello => no_hello_case(s.addr, case).await,
                Who::White => play_case(&mut a, case, ping).await,
                Who::Black => play_case(&mut b, case, ping).await,
                Who::Finished => play_case(&mut f, case, ping).await,
                Who::Unstarted => play_case(&mut u, case, ping).await,
            }
            let now = snapshot(s.addr, &id).await;
            assert_unchanged(name, &before, &now, &mut witness).await;
            now
        })
        .catch_unwind()
        .await;
        before = match run {
            Ok(now) => now,
            Err(_) => {
                failed.push(name);
                snapshot(s.addr, &id).await
            }
        };
    }
    assert!(failed.is_empty(), "failed: {failed:?}");

    // Flood: far more frames than the burst allows closes with 1008.
    let mut flood = Client::guest(s.addr, "Flood").await;
    for i in 0..300 {
        if flood
            .ws_send_quiet(json!({"type": "list_seeks", "id": i}))
            .await
            .is_err()
        {
            break;
        }
    }
    let (code, reason) = flood.closed_skipping_messages().await;
    assert_eq!((code, reason.as_str()), (1008, "rate limit exceeded"));
    let now = snapshot(s.addr, &id).await;
    assert_unchanged("flood", &before, &now, &mut witness).await;

    // The other games are as they were.
    let mut w = Client::guest(s.addr, "Watcher").await;
    w.send(json!({"type": "watch", "game_id": finished})).await;
    let st = w.recv_type("game_state").await;
    assert_eq!(st["game"]["moves"], json!([]), "{st}");
    assert_eq!(st["game"]["outcome"]["reason"], "resignation", "{st}");
    u.send(json!({"type": "resume", "game_id": unstarted, "last_version": 0}))
        .await;
    let st = u.recv_type("game_state").await;
    assert_eq!(st["game"]["moves"], json!([]), "{st}");
    assert!(
        st["game"]["outcome"].is_null() && st["game"]["draw_offer"].is_null(),
        "{st}"
    );

    // The live game goes on: Black's clock ran all along, and Black can move.
    b.send(json!({"type": "move", "game_id": id, "move": "f6-g5", "move_id": 1}))
        .await;
    let ack = b.recv_type("move_ack").await;
    let kinds = witness.events_up_to(ack["version"].as_u64().unwrap()).await;
    let played: Vec<_> = kinds.iter().filter(|k| *k != "spectators").collect();
    assert_eq!(played, ["move"], "{ack}");
    let after = snapshot(s.addr, &id).await;
    assert_eq!(after.moves, json!(["c3-d4", "f6-g5"]));
    // Black's clock ran during the table: less than start plus one increment.
    assert!(after.black_ms < 182_000, "{after:?}");
    let (_, metrics) = http(s.addr, "GET", "/metrics", "").await;
    assert!(
        metrics.contains("damka_rate_limited_total 1\n"),
        "{metrics}"
    );
    assert!(
        metrics.contains("damka_oversized_messages_total 1\n"),
        "{metrics}"
    );
}

fn forge(header: serde_json::Value, claims: serde_json::Value, signature: &str) -> String {
    format!(
        "{}.{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string()),
        signature
    )
}

#[tokio::test]
async fn hostile_tokens() {
    let s = start(config()).await;
    let claims = json!({"sub": "mallory", "exp": unix_now() + 600, "iss": "damka", "aud": "damka"});
    let mut other = damka::Config::defaults().auth;
    other.secret = "not-the-server-secret".into();
    let forged = damka::auth::Authenticator::from_config(&other)
        .unwrap()
        .sign(&damka::auth::Claims {
            sub: "mallory".into(),
            name: None,
            exp: unix_now() + 600,
            iat: 0,
            iss: "damka".into(),
            aud: "damka".into(),
            guest: false,
        })
        .unwrap();
    let valid = token("mallory", unix_now() + 600);
    let mut tampered: Vec<&str> = valid.split('.').collect();
    let evil_claims = URL_SAFE_NO_PAD.encode(
        json!({"sub": "admin", "exp": unix_now() + 600, "iss": "damka", "aud": "damka"})
            .to_string(),
    );
    tampered[1] = &evil_claims;
    let table: Vec<(&str, String, u16)> = vec![
        ("no token", String::new(), 401),
        ("garbage", "garbage".into(), 401),
        ("forged signature", forged, 401),
        ("tampered claims", tampered.join("."), 401),
        ("expired", token("mallory", unix_now() - 60), 401),
        (
            "alg none",
            forge(json!({"alg": "none", "typ": "JWT"}), claims.clone(), ""),
            401,
        ),
        (
            "alg none, uppercase",
            forge(json!({"alg": "NONE"}), claims.clone(), ""),
            401,
        ),
        (
            "other algorithm",
            forge(json!({"alg": "HS512"}), claims.clone(), "AAAA"),
            401,
        ),
        (
            "wrong audience",
            {
                let mut c = damka::Config::defaults().auth;
                c.secret = SECRET.into();
                c.audience = "elsewhere".into();
                damka::auth::Authenticator::from_config(&c)
                    .unwrap()
                    .sign(&damka::auth::Claims {
                        sub: "m".into(),
                        name: None,
                        exp: unix_now() + 600,
                        iat: 0,
                        iss: "damka".into(),
                        aud: "elsewhere".into(),
                        guest: false,
                    })
                    .unwrap()
            },
            401,
        ),
    ];
    for (name, tok, status) in table {
        let result = if tok.is_empty() {
            tokio_tungstenite::connect_async(format!("ws://{}/ws", s.addr))
                .await
                .map(|_| ())
                .map_err(|e| match e {
                    tokio_tungstenite::tungstenite::Error::Http(r) => r.status().as_u16(),
                    e => panic!("{e}"),
                })
        } else {
            connect_raw(s.addr, &tok).await.map(|_| ())
        };
        assert_eq!(result.err(), Some(status), "{name}");
    }
    let (_, metrics) = http(s.addr, "GET", "/metrics", "").await;
    assert!(
        metrics.contains("damka_auth_failures_total 9\n"),
        "{metrics}"
    );
    // Still serving.
    let _ok = Client::guest(s.addr, "Alice").await;
}

#[tokio::test]
async fn token_expiring_mid_session_closes_4001() {
    let s = start(config()).await;
    let tok = token("shortlived", unix_now() + 2);
    let mut c = Client {
        ws: connect_raw(s.addr, &tok).await.unwrap(),
        user: "shortlived".into(),
    };
    c.send(json!({"type": "hello", "protocol": 1})).await;
    c.recv_type("welcome").await;
    // A refresh naming another user is refused; the session goes on until expiry.
    c.send(json!({"type": "auth", "token": token("someone-else", unix_now() + 600)}))
        .await;
    assert_eq!(c.recv_type("error").await["code"], "user_mismatch");
    let (code, reason) = tokio::time::timeout(Duration::from_secs(4), c.closed())
        .await
        .unwrap();
    assert_eq!((code, reason.as_str()), (4001, "token expired"));
}

#[tokio::test]
async fn refreshed_token_extends_session() {
    let s = start(config()).await;
    let mut c = Client {
        ws: connect_raw(s.addr, &token("renewer", unix_now() + 2))
            .await
            .unwrap(),
        user: "renewer".into(),
    };
    c.send(json!({"type": "hello", "protocol": 1})).await;
    c.recv_type("welcome").await;
    c.send(json!({"type": "auth", "token": token("renewer", unix_now() + 600)}))
        .await;
    c.recv_type("auth_ok").await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    c.send(json!({"type": "ping", "id": 3})).await;
    assert_eq!(c.recv_type("pong").await["id"], 3);
}

/// A client that upgrades by hand and then never writes again (so never answers a
/// ping), reading raw frames until the server's close frame.
async fn silent_client(addr: std::net::SocketAddr, token: &str, hello: bool) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "GET /ws?token={token} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    tcp.write_all(request.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        tcp.read_exact(&mut byte).await.unwrap();
        buf.push(byte[0]);
    }
    assert!(
        buf.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&buf)
    );
    if hello {
        // One masked text frame (mask key 0 keeps the payload as is).
        let payload = br#"{"type":"hello","protocol":1}"#;
        let mut frame = vec![0x81, 0x80 | payload.len() as u8, 0, 0, 0, 0];
        frame.extend_from_slice(payload);
        tcp.write_all(&frame).await.unwrap();
    }
    loop {
        let mut head = [0u8; 2];
        tokio::time::timeout(WAIT, tcp.read_exact(&mut head))
            .await
            .unwrap()
            .unwrap();
        let len = match head[1] & 0x7f {
            126 => {
                let mut l = [0u8; 2];
                tcp.read_exact(&mut l).await.unwrap();
                usize::from(u16::from_be_bytes(l))
            }
            n => usize::from(n),
        };
        let mut body = vec![0u8; len];
        tcp.read_exact(&mut body).await.unwrap();
        if head[0] & 0x0f == 0x8 {
            let code = u16::from_be_bytes([body[0], body[1]]);
            return (code, String::from_utf8_lossy(&body[2..]).to_string());
        }
    }
}

/// A client frame: final, masked with a key that changes the payload.
fn masked(opcode: u8, payload: &[u8]) -> Vec<u8> {
    assert!(payload.len() < 126);
    let key = [0x5a, 0x01, 0xc3, 0x7e];
    let mut frame = vec![0x80 | opcode, 0x80 | payload.len() as u8];
    frame.extend_from_slice(&key);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    frame
}

/// The next frame the server sends: its opcode and payload.
async fn server_frame(tcp: &mut tokio::net::TcpStream) -> (u8, Vec<u8>) {
    use tokio::io::AsyncReadExt;
    let mut head = [0u8; 2];
    tokio::time::timeout(WAIT, tcp.read_exact(&mut head))
        .await
        .expect("a frame in time")
        .expect("a frame before the end");
    assert_eq!(head[1] & 0x80, 0, "a server's frames are not masked");
    let len = match head[1] & 0x7f {
        126 => {
            let mut l = [0u8; 2];
            tcp.read_exact(&mut l).await.unwrap();
            u64::from(u16::from_be_bytes(l))
        }
        127 => {
            let mut l = [0u8; 8];
            tcp.read_exact(&mut l).await.unwrap();
            u64::from_be_bytes(l)
        }
        n => u64::from(n),
    };
    let mut body = vec![0u8; len as usize];
    tcp.read_exact(&mut body).await.unwrap();
    (head[0], body)
}

/// The wire under the session, by hand: frames sent in the same write as the upgrade
/// request are read (the server read them with the request), a client's ping gets its
/// pong with the same payload, and a client's close gets the server's close, then the
/// end of the stream.
#[tokio::test]
async fn raw_frames_after_the_upgrade_pings_and_close() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = start(config()).await;
    let (token, _) = guest(s.addr, "Wired").await;
    let addr = s.addr;
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut bytes = format!(
        "GET /ws?token={token} HTTP/1.1\r\nHost: {addr}\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .into_bytes();
    bytes.extend(masked(0x1, br#"{"type":"hello","protocol":1}"#));
    bytes.extend(masked(0x9, b"are you there"));
    tcp.write_all(&bytes).await.unwrap();
    let mut response = Vec::new();
    while !response.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        tcp.read_exact(&mut byte).await.unwrap();
        response.push(byte[0]);
    }
    let response = String::from_utf8_lossy(&response).to_lowercase();
    assert!(response.starts_with("http/1.1 101"), "{response}");
    // RFC 6455 1.3's example: this key's accept value.
    assert!(
        response.contains("sec-websocket-accept: s3pplmbitxaq9kygzzhzrbk+xoo="),
        "{response}"
    );
    let (mut welcome, mut pong) = (false, false);
    while !(welcome && pong) {
        match server_frame(&mut tcp).await {
            (0x81, body) => {
                let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
                welcome |= v["type"] == "welcome";
            }
            (0x8a, body) => {
                assert_eq!(body, b"are you there");
                pong = true;
            }
            (0x89, _) => {}
            other => panic!("unexpected frame {other:?}"),
        }
    }
    tcp.write_all(&masked(0x8, &1000u16.to_be_bytes()))
        .await
        .unwrap();
    loop {
        match server_frame(&mut tcp).await {
            (0x88, body) => {
                assert_eq!(body[..2], 1000u16.to_be_bytes());
                break;
            }
            (0x81 | 0x89, _) => {}
            other => panic!("unexpected frame {other:?}"),
        }
    }
    let mut rest = Vec::new();
    let read = tokio::time::timeout(WAIT, tcp.read_to_end(&mut rest)).await;
    assert!(matches!(read, Ok(Ok(0))), "{read:?} {rest:?}");
}

/// Requests to /ws that are not upgrades are refused before the token is looked at:
/// 405 for the method (the router's), else 400 with the reason.
#[tokio::test]
async fn not_an_upgrade_is_refused_with_its_reason() {
    let s = start(config()).await;
    let upgrade = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    let cases = [
        (
            "POST",
            format!("{upgrade}Sec-WebSocket-Version: 13\r\n"),
            405,
            "",
        ),
        ("GET", String::new(), 400, "Connection"),
        (
            "GET",
            "Upgrade: h2c\r\nConnection: Upgrade\r\n".to_string(),
            400,
            "Upgrade",
        ),
        (
            "GET",
            format!("{upgrade}Sec-WebSocket-Version: 8\r\n"),
            400,
            "13",
        ),
        (
            "GET",
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                .to_string(),
            400,
            "Sec-WebSocket-Key",
        ),
    ];
    for (method, headers, status, says) in cases {
        let (got, body) = http_with(s.addr, method, "/ws", "", &headers).await;
        assert_eq!(got, status, "{method} {headers}: {body}");
        assert!(body.contains(says), "{method} {headers}: {body}");
    }
}

#[tokio::test]
async fn silent_clients_are_reaped() {
    let mut cfg = config();
    cfg.ws.ping_interval_ms = 100;
    cfg.ws.ping_timeout_ms = 300;
    cfg.ws.hello_timeout_ms = 200;
    let s = start(cfg).await;
    let (tok, _) = guest(s.addr, "Shy").await;
    assert_eq!(
        silent_client(s.addr, &tok, false).await,
        (4005, "hello timeout".into())
    );
    let (tok, _) = guest(s.addr, "Sleepy").await;
    assert_eq!(
        silent_client(s.addr, &tok, true).await,
        (4004, "ping timeout".into())
    );
    let (_, metrics) = http(s.addr, "GET", "/metrics", "").await;
    assert!(
        metrics.contains("damka_ping_timeouts_total 1\n"),
        "{metrics}"
    );
}

impl Client {
    /// Sends without panicking when the server has already closed.
    async fn ws_send_quiet(&mut self, v: serde_json::Value) -> Result<(), ()> {
        use futures_util::SinkExt;
        self.ws
            .send(Message::Text(v.to_string().into()))
            .await
            .map_err(|_| ())
    }

    /// The close frame, skipping any messages before it.
    async fn closed_skipping_messages(&mut self) -> (u16, String) {
        expect_close(&mut self.ws).await
    }
}
