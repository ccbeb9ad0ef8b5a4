//! Move text and FEN: writing, reading (short or full routes), typed errors, round trips.

mod common;

use common::pos;
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{MoveParseError, Position, Variant};

#[test]
fn idf_6_8_short_capture_is_accepted_when_unambiguous() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::Russian),
        "W:WKd2:Bf4,f6,g7,d6,b6",
    );
    let m = p.parse_move("d2:a5").unwrap();
    assert_eq!(p.move_text(&m), "d2:g5:d8:a5");
}

#[test]
fn idf_6_9_ambiguous_capture_lists_the_candidates() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::Russian),
        "W:WKd2:Bf4,f6,g7,d6,b6",
    );
    match p.parse_move("d2:a7") {
        Err(MoveParseError::Ambiguous { input, candidates }) => {
            assert_eq!(input, "d2:a7");
            let mut c = candidates.clone();
            c.sort();
            assert_eq!(c, vec!["d2:g5:e7:c5:a7", "d2:h6:f8:c5:a7"]);
        }
        other => panic!("expected ambiguity, got {other:?}"),
    }
    // Turning squares resolve it (IDF 6.9), and so does the full route.
    assert_eq!(
        p.move_text(&p.parse_move("d2:h6:a7").unwrap()),
        "d2:h6:f8:c5:a7"
    );
    assert_eq!(
        p.move_text(&p.parse_move("d2:e7:a7").unwrap()),
        "d2:g5:e7:c5:a7"
    );
    assert_eq!(
        p.move_text(&p.parse_move("d2:g5:e7:c5:a7").unwrap()),
        "d2:g5:e7:c5:a7"
    );
}

#[test]
fn int_3_3_short_route_is_ambiguous_and_the_full_route_is_not() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::International),
        "W:WK47:B29,13,12,11,30,40",
    );
    assert!(matches!(
        p.parse_move("47:6"),
        Err(MoveParseError::Ambiguous { .. })
    ));
    assert_eq!(
        p.move_text(&p.parse_move("47:24:8:17:6").unwrap()),
        "47:24:8:17:6"
    );
    assert_eq!(
        p.move_text(&p.parse_move("47x35x6").unwrap()),
        "47:24:35:44:6"
    );
}

#[test]
fn malformed_and_impossible_moves_get_typed_errors() {
    let p = Position::start(Variant::Draughts(DraughtsVariant::Russian));
    for bad in ["", "c3", "c3-z9", "i1-c3", "c3--d4", "31-27", "c3 d4"] {
        assert!(
            matches!(p.parse_move(bad), Err(MoveParseError::Malformed(_))),
            "{bad}"
        );
    }
    assert!(matches!(
        p.parse_move("c3-e5"),
        Err(MoveParseError::NoSuchMove(_))
    ));
    assert!(matches!(
        p.parse_move("b6-a5"),
        Err(MoveParseError::NoSuchMove(_))
    ));
    let int = Position::start(Variant::Draughts(DraughtsVariant::International));
    for bad in ["0-5", "51-46", "32-", "a1-b2", "999-1"] {
        assert!(
            matches!(int.parse_move(bad), Err(MoveParseError::Malformed(_))),
            "{bad}"
        );
    }
    assert!(int.parse_move("32-27").is_ok());
}

#[test]
fn numeric_variants_write_their_own_numbers() {
    let p = Position::start(Variant::Draughts(DraughtsVariant::International));
    assert_eq!(p.move_text(&p.parse_move("32-28").unwrap()), "32-28");
    let f = pos(Variant::Draughts(DraughtsVariant::Frisian), "W:W32:B27");
    assert_eq!(f.move_text(&f.parse_move("32-21").unwrap()), "32x21");
}

#[test]
fn chess_reads_san_and_uci_and_lists_ambiguous_candidates() {
    let p = Position::start(Variant::Chess);
    assert_eq!(p.move_text(&p.parse_move("e2e4").unwrap()), "e4");
    assert_eq!(p.move_text(&p.parse_move("Nf3").unwrap()), "Nf3");
    assert!(matches!(
        p.parse_move("e2e5"),
        Err(MoveParseError::NoSuchMove(_))
    ));
    assert!(matches!(
        p.parse_move("Zz9"),
        Err(MoveParseError::Malformed(_))
    ));
    let q = pos(Variant::Chess, "4k3/8/8/8/8/8/8/R3K2R w - - 0 1");
    assert!(q.parse_move("Rd1").is_ok());
    let r = pos(Variant::Chess, "4k3/8/8/8/8/8/8/R4RK1 w - - 0 1");
    match r.parse_move("Rd1") {
        Err(MoveParseError::Ambiguous { candidates, .. }) => {
            let mut c = candidates;
            c.sort();
            assert_eq!(c, vec!["Rad1", "Rfd1"]);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn fen_round_trips_and_refuses_illegal_positions() {
    for fen in ["W:Wa1,c3,Kd4:BKh6,b8", "B:W31,32,K45:B1,2"] {
        let v = if fen.contains('a') {
            Variant::Draughts(DraughtsVariant::Russian)
        } else {
            Variant::Draughts(DraughtsVariant::International)
        };
        assert_eq!(pos(v, fen).fen(), fen);
    }
    assert_eq!(
        pos(
            Variant::Draughts(DraughtsVariant::International),
            "W:W31-35:B1-3"
        )
        .fen(),
        "W:W31,32,33,34,35:B1,2,3"
    );
    assert_eq!(
        pos(
            Variant::Draughts(DraughtsVariant::Frisian),
            "W:W50,K41:B5:MW41/2"
        )
        .fen(),
        "W:WK41,50:B5:MW41/2"
    );
    for bad in [
        "X:W1:B2",
        "W:W1:B1",
        "W:W1,1:B2",
        "W:W1",
        "W:W3:B47:Z9",
        "W:W1:B50",
        "W:W5:B45",
        "W:W31:B1:MW31/1",
    ] {
        assert!(
            Position::from_fen(Variant::Draughts(DraughtsVariant::International), bad).is_err(),
            "{bad}"
        );
    }
    assert!(
        Position::from_fen(
            Variant::Draughts(DraughtsVariant::Frisian),
            "W:W31:B1:MW31/1"
        )
        .is_err()
    );
    assert!(
        Position::from_fen(
            Variant::Draughts(DraughtsVariant::Frisian),
            "W:WK31:B1:MW31/4"
        )
        .is_err()
    );
    assert!(
        Position::from_fen(
            Variant::Draughts(DraughtsVariant::Russian),
            "W:Wa1:Bb8:H0:F1"
        )
        .is_ok()
    );
    assert!(Position::from_fen(Variant::Chess, "not a fen").is_err());
    let too_many: Vec<String> = (1..=21).map(|n| n.to_string()).collect();
    assert!(
        Position::from_fen(
            Variant::Draughts(DraughtsVariant::International),
            &format!("B:W{}:B50", too_many.join(","))
        )
        .is_err()
    );
}

#[test]
fn move_info_json_uses_each_variants_square_names() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::International),
        "W:WK47:B29,13,12,11,30,40",
    );
    let m = p.parse_move("47:24:8:17:6").unwrap();
    let json = serde_json::to_value(p.move_info(&m)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"move": "47:24:8:17:6", "from": 47, "to": 6,
            "path": [47, 24, 8, 17, 6], "captures": [29, 13, 12, 11]})
    );
    let r = pos(Variant::Draughts(DraughtsVariant::Russian), "W:Wc3:Bd4");
    let m = r.parse_move("c3:e5").unwrap();
    assert_eq!(
        serde_json::to_value(r.move_info(&m)).unwrap(),
        serde_json::json!({"move": "c3:e5", "from": "c3", "to": "e5", "path": ["c3", "e5"], "captures": ["d4"]})
    );
    let c = pos(Variant::Chess, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
    let m = c.parse_move("exd6").unwrap();
    assert_eq!(
        serde_json::to_value(c.move_info(&m)).unwrap(),
        serde_json::json!({"move": "exd6", "from": "e5", "to": "d6", "path": ["e5", "d6"], "captures": ["d5"]})
    );
}

#[test]
fn a_full_route_that_is_a_prefix_of_a_longer_route_is_not_ambiguous() {
    // Found by the property tests: the black man takes b4 and b2 (a5:c3:a1), or crowns on
    // e1 and goes round as a king (a5:c3:e1:g3:e5:a1). The short `a5:a1` is ambiguous;
    // the full route of the first move names it exactly.
    let p = pos(
        Variant::Draughts(DraughtsVariant::Russian),
        "B:Wc1,g1,b2,d2,f2,a3,e3,b4,f4:Bh4,a5,b6,h6,c7,e7,b8,d8,h8",
    );
    assert_eq!(p.move_text(&p.parse_move("a5:c3:a1").unwrap()), "a5:c3:a1");
    assert_eq!(
        p.move_text(&p.parse_move("a5:e1:a1").unwrap()),
        "a5:c3:e1:g3:e5:a1"
    );
    assert!(matches!(
        p.parse_move("a5:a1"),
        Err(MoveParseError::Ambiguous { .. })
    ));
}

/// The legal moves sent to clients: every route in full, each naming exactly the move
/// it routes (so a route clicked square by square needs no rules on the client).
#[test]
fn legal_move_texts_list_every_route_and_each_reads_back_as_itself() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::Russian),
        "W:WKd2:Bf4,f6,g7,d6,b6",
    );
    let texts = p.legal_move_texts();
    assert!(texts.contains(&"d2:g5:e7:c5:a7".to_string()), "{texts:?}");
    assert!(texts.contains(&"d2:h6:f8:c5:a7".to_string()), "{texts:?}");
    for t in &texts {
        let m = p.parse_move(t).unwrap_or_else(|e| panic!("{t}: {e}"));
        assert_eq!(&p.move_text(&m), t);
    }
    let moves = p.legal_moves().len();
    assert!(
        texts.len() >= moves,
        "{} routes for {moves} moves",
        texts.len()
    );

    let chess = Position::start(Variant::Chess);
    let uci = chess.legal_move_texts();
    assert_eq!(uci.len(), 20);
    assert!(uci.contains(&"g1f3".to_string()));
    for t in &uci {
        assert!(chess.parse_move(t).is_ok(), "{t}");
    }
}
