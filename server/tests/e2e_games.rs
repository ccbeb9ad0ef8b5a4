//! Whole games over real WebSockets: every variant family played to a rules result, the
//! draw-offer rules (IDF s.2 9.2, 22.5) end to end, games from a position, Chess960
//! starts, and TV following the next game when one ends.

mod common;
mod wire;

use common::{Client, TestServer};
use serde_json::{Value, json};
use shared::law;
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Position, Variant};
use wire::{challenge, local_law};

async fn server() -> TestServer {
    wire::server_with(|_| {}).await
}

/// [`wire::play`], and the move event records the full route the mover sent.
async fn play(
    mover: &mut Client,
    other: &mut Client,
    game_id: &str,
    text: &str,
    move_id: u64,
    expected_fen: &str,
) -> (Value, Option<Value>) {
    let (seen, over) = wire::play(mover, other, game_id, text, move_id, expected_fen).await;
    assert_eq!(
        seen["event"]["played"]["move"], text,
        "the server records the full route"
    );
    (seen, over)
}

/// Plays a scripted line from `pos`, each move by the side to move (`white` or
/// `black`), checking every event against the client's own position; move ids count
/// from `first_id`. The last move event, and a `game_over` a mover already received.
async fn play_line(
    white: &mut Client,
    black: &mut Client,
    game_id: &str,
    pos: &mut Position,
    line: &[&str],
    first_id: u64,
) -> (Value, Option<Value>) {
    let (mut last, mut over) = (Value::Null, None);
    for (i, text) in line.iter().enumerate() {
        let by = pos.side_to_move();
        pos.play(&pos.parse_move(text).unwrap()).unwrap();
        let fen = pos.fen();
        let (mover, other) = if by == shared::rules::Color::White {
            (&mut *white, &mut *black)
        } else {
            (&mut *black, &mut *white)
        };
        let (event, ended) = play(mover, other, game_id, text, first_id + i as u64, &fen).await;
        // The side now to move gets its legal moves with the event (none once over).
        let legal = &event["event"]["legal_moves"];
        if !legal.is_null() {
            assert_eq!(*legal, json!(pos.legal_move_texts()), "after {text}");
        }
        last = event;
        over = ended.or(over);
    }
    (last, over)
}

/// Both players move by a deterministic policy computed from their own copy of the
/// position until the server's law ends the game; the client-side law must end it on
/// the same move with the same result.
async fn play_to_the_end(variant: &str, tc: &str) -> Value {
    let srv = server().await;
    let mut white = Client::guest(srv.addr, "White").await;
    let mut black = Client::guest(srv.addr, "Black").await;
    let start = challenge(&mut white, &mut black, variant, tc, None).await;
    let game_id = start["game"]["game_id"].as_str().unwrap().to_string();
    let v: Variant = variant.parse().unwrap();
    let mut game = local_law(v, tc, start["game"]["initial_fen"].as_str().unwrap());
    assert_eq!(
        start["game"]["legal_moves"],
        json!(game.position().legal_move_texts()),
        "game_start carries the legal moves"
    );
    let mut mover_saw_the_end = None;
    for ply in 0..2000u64 {
        if game.outcome().is_some() {
            break;
        }
        let pos = game.position().clone();
        let mut moves = pos.legal_moves();
        moves.sort_by_key(|m| pos.move_text(m));
        let mv = moves[(ply as usize * 7 + 3) % moves.len()].clone();
        let text = pos.move_text(&mv);
        let by = pos.side_to_move();
        game.play(by, &mv).expect("legal locally");
        let fen = game.position().fen();
        let (mover, other) = if by == shared::rules::Color::White {
            (&mut white, &mut black)
        } else {
            (&mut black, &mut white)
        };
        let (event, over) = play(mover, other, &game_id, &text, ply + 1, &fen).await;
        // Every route of the side now to move, as the client's own rules list them.
        let expected = if game.outcome().is_some() {
            Value::Null
        } else {
            json!(game.position().legal_move_texts())
        };
        assert_eq!(event["event"]["legal_moves"], expected, "after {text}");
        if let Some(over) = over {
            assert!(
                game.outcome().is_some(),
                "the server ended the game first: {over}"
            );
            mover_saw_the_end = Some((by, over));
        }
    }
    let outcome = game
        .outcome()
        .expect("the law ended the game within 2000 plies");
    let (over_w, over_b) = match mover_saw_the_end {
        Some((shared::rules::Color::White, over)) => (over, black.recv_event("game_over").await),
        Some((shared::rules::Color::Black, over)) => (white.recv_event("game_over").await, over),
        None => (
            white.recv_event("game_over").await,
            black.recv_event("game_over").await,
        ),
    };
    assert_eq!(over_w, over_b);
    let over = over_w;
    let winner = over["event"]["outcome"]["winner"].clone();
    match outcome.result {
        law::Verdict::Win(c) => assert_eq!(winner, json!(c.to_string())),
        _ => assert!(winner.is_null(), "{over}"),
    }
    over
}

#[tokio::test]
async fn full_games_of_every_draughts_family_end_by_the_rules() {
    // IDF 8x8, the mirrored 8x8 boards, 100 squares, Frisian's orthogonal captures.
    for (variant, tc) in [
        ("russian", "10+5"),
        ("italian", "10+5"),
        ("international", "10+5"),
        ("frisian", "10+5"),
    ] {
        let over = play_to_the_end(variant, tc).await;
        let reason = over["event"]["outcome"]["reason"]
            .as_str()
            .unwrap()
            .to_string();
        eprintln!("{variant}: {}", over["event"]["outcome"]);
        assert!(
            [
                "no_pieces",
                "no_moves",
                "move_rule",
                "rule_draw",
                "repetition"
            ]
            .contains(&reason.as_str()),
            "{variant}: {over}"
        );
    }
}

#[tokio::test]
async fn chess_games_end_by_mate_and_chess960_starts_from_a_random_array() {
    let srv = server().await;
    let mut w = Client::guest(srv.addr, "Wally").await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    let start = challenge(&mut w, &mut b, "chess", "5+3", None).await;
    let id = start["game"]["game_id"].as_str().unwrap().to_string();
    let mut pos = Position::start(Variant::Chess);
    play_line(
        &mut w,
        &mut b,
        &id,
        &mut pos,
        &["f3", "e5", "g4", "Qh4#"],
        1,
    )
    .await;
    let over = w.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "checkmate");
    assert_eq!(over["event"]["outcome"]["winner"], "black");

    // Chess960: several games, not all from the standard array, each a legal 960 start.
    let mut fens = std::collections::BTreeSet::new();
    for _ in 0..6 {
        let start = challenge(&mut w, &mut b, "chess960", "5+3", None).await;
        let fen = start["game"]["initial_fen"].as_str().unwrap().to_string();
        assert!(
            (0..960).any(|i| Position::start960(i).unwrap().fen() == fen),
            "{fen} is one of the 960 start positions"
        );
        let id = start["game"]["game_id"].as_str().unwrap().to_string();
        w.send(json!({"type": "resign", "game_id": id})).await;
        w.recv_event("game_over").await;
        b.recv_event("game_over").await;
        fens.insert(fen);
    }
    assert!(
        fens.len() > 1,
        "six random arrays were all the same: {fens:?}"
    );
}

/// Two clients in a classical Russian game, moved by a material-keeping policy so the
/// game reaches move 20 with pieces to spare.
#[tokio::test]
async fn idf_s2_9_2_draw_offer_refused_before_move_20_and_accepted_after() {
    let srv = server().await;
    let mut w = Client::guest(srv.addr, "Wally").await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    let tc = "45+30";
    let start = challenge(&mut w, &mut b, "russian", tc, None).await;
    let id = start["game"]["game_id"].as_str().unwrap().to_string();
    let mut game = local_law(
        Variant::Draughts(DraughtsVariant::Russian),
        tc,
        start["game"]["initial_fen"].as_str().unwrap(),
    );
    let mut ply = 0u64;
    let mut offered_early = false;
    while game.moves_made(shared::rules::Color::Black) < 20 {
        let by = game.position().side_to_move();
        let mv = keep_material(game.position(), ply);
        let text = game.position().move_text(&mv);
        let (mover, other) = if by == shared::rules::Color::White {
            (&mut w, &mut b)
        } else {
            (&mut b, &mut w)
        };
        if ply == 10 {
            // Too early: refused, and the move with it (nothing changes).
            mover
                .send(json!({"type": "move", "game_id": id, "move": text, "move_id": 100, "offer_draw": true}))
                .await;
            let err = mover.recv_type("error").await;
            assert_eq!(err["code"], "draw_offer_not_allowed", "{err}");
            mover
                .send(json!({"type": "draw_offer", "game_id": id}))
                .await;
            let err = mover.recv_type("error").await;
            assert_eq!(err["code"], "draw_offer_not_allowed", "{err}");
            offered_early = true;
        }
        game.play(by, &mv).unwrap();
        let fen = game.position().fen();
        play(mover, other, &id, &text, ply + 1, &fen).await;
        ply += 1;
    }
    assert!(offered_early);
    assert!(game.outcome().is_none());
    // Each side has made 20 moves: White offers with his 21st move, Black accepts.
    let mv = keep_material(game.position(), ply);
    let text = game.position().move_text(&mv);
    w.send(
        json!({"type": "move", "game_id": id, "move": text, "move_id": 999, "offer_draw": true}),
    )
    .await;
    w.recv_type("move_ack").await;
    b.recv_event("draw_offered").await;
    b.send(json!({"type": "draw_accept", "game_id": id})).await;
    let over = w.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "agreement");
    assert!(over["event"]["outcome"]["winner"].is_null());
}

/// A move that keeps the material level: best by a two-ply material count, ties broken
/// by sorted text from a rotating index.
fn keep_material(pos: &Position, ply: u64) -> shared::rules::Move {
    let me = pos.side_to_move();
    let balance = |p: &Position| match p {
        Position::Draughts(d) => {
            d.pieces(me).count_ones() as i32 - d.pieces(me.opponent()).count_ones() as i32
        }
        Position::Chess(_) => 0,
    };
    let mut moves = pos.legal_moves();
    moves.sort_by_key(|m| pos.move_text(m));
    let score = |m: &shared::rules::Move| {
        let mut next = pos.clone();
        next.play(m).unwrap();
        next.legal_moves()
            .iter()
            .map(|r| {
                let mut after = next.clone();
                after.play(r).unwrap();
                balance(&after)
            })
            .min()
            .unwrap_or(-100)
    };
    let n = moves.len();
    let rotated: Vec<_> = (0..n)
        .map(|k| moves[(ply as usize * 7 + k) % n].clone())
        .collect();
    let best = rotated.iter().map(score).max().unwrap();
    rotated.into_iter().find(|m| score(m) == best).unwrap()
}

#[tokio::test]
async fn idf_22_5_blitz_agreement_refused_with_7_pieces_and_accepted_with_6() {
    let srv = server().await;
    let mut w = Client::guest(srv.addr, "Wally").await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    // Seven pieces each; White gives one and takes one back: six each.
    let fen = "W:Wa1,c1,g1,b2,d2,h2,e3:Bg5,a7,c7,e7,b8,d8,f8";
    let start = challenge(&mut w, &mut b, "russian", "3+2", Some(fen)).await;
    assert_eq!(start["game"]["initial_fen"], fen);
    let id = start["game"]["game_id"].as_str().unwrap().to_string();
    w.send(
        json!({"type": "move", "game_id": id, "move": "e3-f4", "move_id": 1, "offer_draw": true}),
    )
    .await;
    let err = w.recv_type("error").await;
    assert_eq!(
        err["code"], "draw_offer_not_allowed",
        "seven pieces each: {err}"
    );
    let mut pos = Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), fen).unwrap();
    play_line(&mut w, &mut b, &id, &mut pos, &["e3-f4", "g5:e3"], 2).await;
    // White retakes: six each, and offers with the move; Black accepts.
    w.send(
        json!({"type": "move", "game_id": id, "move": "d2:f4", "move_id": 4, "offer_draw": true}),
    )
    .await;
    w.recv_type("move_ack").await;
    b.recv_event("draw_offered").await;
    b.send(json!({"type": "draw_accept", "game_id": id})).await;
    let over = b.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "agreement");
}

#[tokio::test]
async fn games_from_a_position_are_casual_and_checked() {
    let srv = server().await;
    let mut a = Client::guest(srv.addr, "Anna").await;
    let b = Client::guest(srv.addr, "Bobby").await;
    for (fen, rated) in [
        ("W:Wz9:Bb8", false),
        ("W:Wc3:Bb8", true),
        ("W:W31:B1", false),
    ] {
        a.send(
            json!({"type": "challenge", "user": b.user, "variant": "russian",
            "time_control": "3+2", "rated": rated, "fen": fen}),
        )
        .await;
        let err = a.recv_type("error").await;
        assert_eq!(err["code"], "invalid_position", "{fen}: {err}");
    }
}

#[tokio::test]
async fn tv_follows_the_next_game_when_the_shown_one_ends() {
    let srv = server().await;
    let mut viewer = Client::guest(srv.addr, "Viewer").await;
    viewer
        .send(json!({"type": "tv", "variant": "international"}))
        .await;
    assert_eq!(viewer.recv_type("error").await["code"], "no_tv_game");

    let mut a = Client::guest(srv.addr, "Anna").await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    let first = challenge(&mut a, &mut b, "international", "10+5", None).await;
    let first_id = first["game"]["game_id"].as_str().unwrap().to_string();
    viewer
        .send(json!({"type": "tv", "variant": "international"}))
        .await;
    let shown = viewer.recv_type("game_state").await;
    assert_eq!(shown["game"]["game_id"], first_id.as_str());

    // A second game starts; the first ends; TV moves on to the second by itself.
    let mut c = Client::guest(srv.addr, "Carl").await;
    let mut d = Client::guest(srv.addr, "Dora").await;
    let second = challenge(&mut c, &mut d, "international", "10+5", None).await;
    let second_id = second["game"]["game_id"].as_str().unwrap().to_string();
    a.send(json!({"type": "resign", "game_id": first_id})).await;
    let over = viewer.recv_event("game_over").await;
    assert_eq!(over["game_id"], first_id.as_str());
    let next = viewer.recv_type("game_state").await;
    assert_eq!(next["game"]["game_id"], second_id.as_str());
    // It relays the new game's events, and unwatch stops following.
    c.send(json!({"type": "move", "game_id": second_id, "move": "32-28", "move_id": 1}))
        .await;
    let seen = viewer.recv_event("move").await;
    assert_eq!(seen["game_id"], second_id.as_str());
    viewer
        .send(json!({"type": "unwatch", "game_id": second_id}))
        .await;
    assert_eq!(
        viewer.recv_type("unwatched").await["game_id"],
        second_id.as_str()
    );
}

/// A node on PostgreSQL whose `game_over` waits up to 1.5 s for the archive (a test
/// locks the `games` table to make it wait), and the database's URL.
async fn slow_archive_server() -> (TestServer, String) {
    let pg = common::postgres_url().await;
    let url = pg.clone();
    let srv = wire::server_with(move |c| {
        c.database.url = url;
        c.database.archive_wait_ms = 1500;
    })
    .await;
    (srv, pg)
}

/// The TV shows a game's end even when the archive keeps `game_over` waiting longer
/// than the TV's check for a next game (the game is no longer live meanwhile).
#[tokio::test]
async fn tv_shows_the_end_of_a_game_whose_archive_is_slow() {
    let (srv, pg) = slow_archive_server().await;
    let (mut a, mut b, id) = common::game(srv.addr, "russian", "3+2").await;
    let mut viewer = Client::guest(srv.addr, "Viewer").await;
    viewer
        .send(json!({"type": "tv", "variant": "russian"}))
        .await;
    let shown = viewer.recv_type("game_state").await;
    assert_eq!(shown["game"]["game_id"], id.as_str());

    let mut blocker = common::lock_table(&pg, "games", "ACCESS EXCLUSIVE").await;
    a.send(json!({"type": "resign", "game_id": id})).await;
    let over = viewer.recv_event("game_over").await;
    assert_eq!(over["game_id"], id.as_str(), "{over}");
    assert_eq!(over["event"]["outcome"]["reason"], "resignation", "{over}");
    b.recv_event("game_over").await;
    sqlx::query("COMMIT").execute(&mut blocker).await.unwrap();
}

#[tokio::test]
async fn a_new_game_does_not_cut_off_the_end_of_one_still_being_archived() {
    // A new game of one's own lets go of the finished games a session follows but the
    // latest: the one whose end still waits for the archive is not finished for its
    // followers yet, even when another finished game was followed after it started.
    let (srv, pg) = slow_archive_server().await;
    let (mut a, mut b, first) = common::game(srv.addr, "russian", "3+2").await;
    let (mut c, mut d, other) = common::game(srv.addr, "russian", "3+2").await;
    c.send(json!({"type": "resign", "game_id": other})).await;
    c.recv_event("game_over").await;
    d.recv_event("game_over").await;
    a.send(json!({"type": "watch", "game_id": other})).await;
    let watched = a.recv_type("game_state").await;
    assert_eq!(watched["game"]["game_id"], other.as_str(), "{watched}");

    let mut blocker = common::lock_table(&pg, "games", "ACCESS EXCLUSIVE").await;
    b.send(json!({"type": "resign", "game_id": first})).await;
    let mut e = Client::guest(srv.addr, "Eve").await;
    a.send(json!({"type": "seek", "variant": "russian", "time_control": "3+2"}))
        .await;
    let seek = a.recv_type("seek_created").await;
    e.send(json!({"type": "accept_seek", "seek_id": seek["seek"]["seek_id"]}))
        .await;
    let next = a.recv_type("game_start").await;
    assert_ne!(next["game"]["game_id"], first.as_str(), "{next}");
    let over = a.recv_event("game_over").await;
    assert_eq!(over["game_id"], first.as_str(), "{over}");
    sqlx::query("COMMIT").execute(&mut blocker).await.unwrap();
}

#[tokio::test]
async fn a_game_from_a_position_with_black_to_move_runs_blacks_clock_first() {
    let srv = server().await;
    let mut w = Client::guest(srv.addr, "Wally").await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    let fen = "B:Wa1,c3:Bf6,h8";
    let start = challenge(&mut w, &mut b, "russian", "0.05+0", Some(fen)).await;
    let id = start["game"]["game_id"].as_str().unwrap().to_string();
    b.send(json!({"type": "move", "game_id": id, "move": "f6-e5", "move_id": 1}))
        .await;
    let seen = w.recv_event("move").await;
    assert_eq!(seen["event"]["clock"]["running"], "white", "{seen}");
    // White stays silent: White flags, Black wins.
    let over = b.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "timeout", "{over}");
    assert_eq!(over["event"]["outcome"]["winner"], "black", "{over}");
}

#[tokio::test]
async fn a_one_ply_takeback_gives_nobody_an_increment() {
    let srv = server().await;
    let mut w = Client::guest(srv.addr, "Wally").await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    let start = challenge(&mut w, &mut b, "russian", "3+2", None).await;
    let id = start["game"]["game_id"].as_str().unwrap().to_string();
    let mut pos = Position::start(Variant::Draughts(DraughtsVariant::Russian));
    let line = ["c3-d4", "b6-a5", "e3-f4"];
    let (before, _) = play_line(&mut w, &mut b, &id, &mut pos, &line, 1).await;
    // White takes back e3-f4: the turn returns to White, and Black, who was thinking,
    // is neither charged nor given an increment.
    let back = common::taken_back(&mut w, &mut b, &id).await;
    assert_eq!(back["event"]["plies"], 1, "{back}");
    assert_eq!(back["event"]["clock"]["running"], "white", "{back}");
    let black_before = before["event"]["clock"]["black_ms"].as_u64().unwrap();
    let black_after = back["event"]["clock"]["black_ms"].as_u64().unwrap();
    assert!(
        black_after <= black_before,
        "{black_before} ms, then {black_after} ms"
    );
}

#[tokio::test]
async fn watch_and_unwatch_floods_do_not_grow_the_games_log() {
    let srv = server().await;
    let mut w = Client::guest(srv.addr, "Wally").await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    let start = challenge(&mut w, &mut b, "russian", "3+2", None).await;
    let id = start["game"]["game_id"].as_str().unwrap().to_string();
    let mut s = Client::guest(srv.addr, "Sneaky").await;
    for _ in 0..25 {
        s.send(json!({"type": "watch", "game_id": id})).await;
        s.recv_type("game_state").await;
        s.send(json!({"type": "unwatch", "game_id": id})).await;
        s.recv_type("unwatched").await;
    }
    let ack = w.move_acked(&id, "c3-d4", 1).await;
    // One announcement at once, at most one coalesced one, then the move.
    assert!(ack["version"].as_u64().unwrap() <= 3, "{ack}");
}

#[tokio::test]
async fn finished_games_make_room_for_new_ones_in_a_session() {
    // A session may follow 32 games at once; finished ones linger for rematches but must
    // not stop a pair that plays game after game from starting the next.
    let srv = server().await;
    let mut w = Client::guest(srv.addr, "Wally").await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    for round in 0..40 {
        let start = challenge(&mut w, &mut b, "russian", "3+2", None).await;
        let id = start["game"]["game_id"].as_str().unwrap().to_string();
        w.send(json!({"type": "resign", "game_id": id})).await;
        let over = b.recv_event("game_over").await;
        assert_eq!(over["game_id"], id.as_str(), "round {round}");
        w.recv_event("game_over").await;
    }
}

#[tokio::test]
async fn a_first_move_not_made_in_time_aborts_the_game() {
    let mut config = common::config();
    config.game.first_move_secs = 1;
    let srv = common::start(config).await;
    let mut w = Client::guest(srv.addr, "Wally").await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    // White never moves.
    let start = challenge(&mut w, &mut b, "russian", "3+2", None).await;
    let over = b.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "aborted", "{over}");
    assert_eq!(
        over["event"]["outcome"]["detail"],
        "first move not made in time"
    );
    // The game's state says the same (an arena that follows the game only from then
    // on reads its end there: the late player loses).
    let mut viewer = Client::guest(srv.addr, "Vera").await;
    viewer
        .send(json!({"type": "watch", "game_id": start["game"]["game_id"]}))
        .await;
    let state = viewer.recv_type("game_state").await;
    assert_eq!(
        state["game"]["outcome"], over["event"]["outcome"],
        "{state}"
    );
    // White moves, Black never answers.
    let start = challenge(&mut w, &mut b, "russian", "3+2", None).await;
    let id = start["game"]["game_id"].as_str().unwrap().to_string();
    w.move_acked(&id, "c3-d4", 1).await;
    let over = w.recv_event("game_over").await;
    assert_eq!(over["event"]["outcome"]["reason"], "aborted", "{over}");
    assert!(over["event"]["outcome"]["winner"].is_null());
}

#[tokio::test]
async fn russian_games_may_be_played_under_the_ukrainian_draw_law() {
    let srv = server().await;
    let mut w = Client::guest(srv.addr, "Wally").await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    // A rule set of another variant is refused.
    w.send(
        json!({"type": "seek", "variant": "international", "time_control": "10+5",
        "ruleset": "russian_ua"}),
    )
    .await;
    assert_eq!(w.recv_type("error").await["code"], "invalid_message");
    // The same king shuffle under both rule sets: UA rule 3 ends the game on the third
    // occurrence; under IDF 8.2.3 repetition waits for a claim.
    let fen = "W:Wc1,Ka1:Ba7,Kh2";
    let shuffle = [
        "a1-b2", "h2-g1", "b2-a1", "g1-h2", "a1-b2", "h2-g1", "b2-a1", "g1-h2",
    ];
    for (ruleset, ends) in [("russian_ua", true), ("russian_idf", false)] {
        let mut msg = json!({"type": "challenge", "user": b.user, "variant": "russian",
            "time_control": "10+5", "color": "white", "fen": fen, "ruleset": ruleset});
        w.send(msg.take()).await;
        let sent = w.recv_type("challenge_sent").await;
        assert_eq!(sent["challenge"]["ruleset"], ruleset);
        b.recv_type("challenge_received").await;
        b.send(
            json!({"type": "accept_challenge", "challenge_id": sent["challenge"]["challenge_id"]}),
        )
        .await;
        let start = w.recv_type("game_start").await;
        b.recv_type("game_start").await;
        assert_eq!(start["game"]["ruleset"], ruleset);
        let id = start["game"]["game_id"].as_str().unwrap().to_string();
        let mut pos = Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), fen).unwrap();
        let (_, over) = play_line(&mut w, &mut b, &id, &mut pos, &shuffle, 1).await;
        if ends {
            let over = match over {
                Some(o) => o,
                None => b.recv_event("game_over").await,
            };
            assert_eq!(over["event"]["outcome"]["reason"], "repetition", "{over}");
        } else {
            assert!(over.is_none());
            w.send(json!({"type": "resign", "game_id": id})).await;
            let end = b.recv_event("game_over").await;
            assert_eq!(end["event"]["outcome"]["reason"], "resignation", "{end}");
        }
    }
}

#[tokio::test]
async fn a_game_live_at_shutdown_goes_on_after_a_restart() {
    let url = common::sqlite_url();
    let config = || {
        let mut c = common::config();
        c.shutdown.grace_secs = 0;
        c.database.url = url.clone();
        c
    };
    let srv = common::start(config()).await;
    let (w_token, w_user) = common::guest(srv.addr, "Wally").await;
    let mut w = Client::with_token(srv.addr, &w_token, &w_user).await;
    let mut b = Client::guest(srv.addr, "Bobby").await;
    let start = challenge(&mut w, &mut b, "russian", "5+3", None).await;
    let id = start["game"]["game_id"].as_str().unwrap().to_string();
    let mut pos = Position::start(Variant::Draughts(DraughtsVariant::Russian));
    let (last, _) = play_line(&mut w, &mut b, &id, &mut pos, &["c3-d4", "f6-g5"], 1).await;
    let version = last["version"].as_u64().unwrap();
    let white_ms = last["event"]["clock"]["white_ms"].as_u64().unwrap();
    // Shut down with the game live: the database holds it.
    srv.server.shutdown();
    srv.server.wait().await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;

    // A new server on the same database resumes it; the players resume by version.
    let srv = common::start(config()).await;
    drop((w, b));
    let mut w2 = Client::with_token(srv.addr, &w_token, &w_user).await;
    w2.send(json!({"type": "watch", "game_id": id})).await;
    let state = w2.recv_type("game_state").await;
    assert_eq!(state["game"]["version"].as_u64(), Some(version));
    assert_eq!(state["game"]["fen"], pos.fen(), "{state}");
    assert_eq!(state["game"]["moves"], json!(["c3-d4", "f6-g5"]));
    assert_eq!(state["game"]["legal_moves"], json!(pos.legal_move_texts()));
    // White, to move, resumes from before Black's move: the move read back from the
    // database is replayed with White's legal moves.
    w2.send(json!({"type": "resume", "game_id": id, "last_version": version - 1}))
        .await;
    let replayed = w2.recv_event("move").await;
    assert_eq!(replayed["version"].as_u64(), Some(version), "{replayed}");
    assert_eq!(
        replayed["event"]["legal_moves"],
        json!(pos.legal_move_texts())
    );
    // White's clock was not charged for the time the server was down.
    let white_now = state["game"]["clock"]["white_ms"].as_u64().unwrap();
    assert!(
        white_now + 300 >= white_ms,
        "white had {white_ms} ms, now {white_now} ms"
    );
    // And the game goes on.
    let next = pos.move_text(&pos.legal_moves()[0]);
    let ack = w2.move_acked(&id, &next, 3).await;
    assert_eq!(ack["version"].as_u64(), Some(version + 1));
}
