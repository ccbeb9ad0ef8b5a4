//! One test per article of the rule texts that shapes draughts move generation, named
//! after the article. IDF = IDF 2016 rules of draughts-64 (section 1 and appendices 1-5),
//! INT = the 100-square rules, FRI = the Frisian rules. Diagrams whose pictures are not in
//! the text are reconstructed from the text's description of them.

mod common;

use common::{italian, list, moves, portuguese, pos};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Move, Position, Variant};

fn capture_counts(variant: Variant, fen: &str) -> Vec<usize> {
    let p = pos(variant, fen);
    p.legal_moves()
        .iter()
        .map(|m| match m {
            Move::Draughts(d) => d.taken().len(),
            Move::Chess(_) => 0,
        })
        .collect()
}

fn crowns(p: &Position, text: &str) -> bool {
    match p.parse_move(text).unwrap() {
        Move::Draughts(d) => d.crowns(),
        Move::Chess(_) => false,
    }
}

// ---------------------------------------------------------------- IDF section 1 (Russian)

#[test]
fn idf_2_3_start_position_and_3_1_white_moves_first() {
    let p = Position::start(Variant::Draughts(DraughtsVariant::Russian));
    assert_eq!(
        p.fen(),
        "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), &p.fen()),
        list(&[
            "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"
        ])
    );
}

#[test]
fn idf_3_4_man_moves_one_square_diagonally_forward() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), "W:Wc3:Bh8"),
        list(&["c3-b4", "c3-d4"])
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), "B:Wa1:Bf6"),
        list(&["f6-e5", "f6-g5"])
    );
}

#[test]
fn idf_3_8_king_moves_any_distance_along_free_diagonals() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), "W:WKd4:Bh2").len(),
        13
    );
    // Blocked by its own piece and unable to land on an occupied square.
    let m = moves(Variant::Draughts(DraughtsVariant::Russian), "W:WKd4,f6:Bh2");
    assert!(m.contains(&"d4-e5".to_string()));
    assert!(!m.iter().any(|t| t == "d4-f6" || t == "d4-g7"));
}

#[test]
fn idf_5_3_capture_is_compulsory_and_men_capture_backwards() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), "W:Wd4,a3:Bc3"),
        list(&["d4:b2"])
    );
}

#[test]
fn idf_5_6_king_must_land_where_the_capture_goes_on() {
    // After taking c3 the king could stop on d4..h8, but only from d4 can it go on (f2).
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), "W:WKa1:Bc3,f2"),
        list(&["a1:d4:g1"])
    );
}

#[test]
fn idf_5_7_captured_pieces_stay_until_the_end_turkish_strike() {
    // From b2 the king takes c3, then one of e3, e5, c5. Were captured pieces lifted at
    // once, the king could go on g1:e3(gone):d4:c5 and take three; the captured c3/e3
    // still block, so every capture takes exactly two.
    let counts = capture_counts(
        Variant::Draughts(DraughtsVariant::Russian),
        "W:WKb2:Bc3,e3,e5,c5",
    );
    assert_eq!(counts.len(), 7);
    assert!(counts.iter().all(|&n| n == 2));
}

#[test]
fn idf_5_8_own_pieces_cannot_be_jumped() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), "W:WKa1,c3:Be5"),
        list(&["a1-b2", "c3-b4", "c3-d4"])
    );
    assert!(
        capture_counts(Variant::Draughts(DraughtsVariant::Russian), "W:WKa1,c3:Be5")
            .iter()
            .all(|&n| n == 0)
    );
}

#[test]
fn idf_5_9_square_crossed_twice_but_no_piece_jumped_twice() {
    // The man goes round the diamond b4-d4-d6-b6 back to its own square c3; both
    // directions take the same pieces to the same square and are one move.
    let p = pos(
        Variant::Draughts(DraughtsVariant::Russian),
        "W:Wc3:Bb4,d4,b6,d6",
    );
    let all = p.legal_moves();
    assert_eq!(all.len(), 1);
    let Move::Draughts(m) = &all[0] else { panic!() };
    assert_eq!((m.from(), m.to(), m.taken().len()), (m.from(), m.from(), 4));
}

#[test]
fn idf_5_12_free_choice_of_capture_whatever_the_count() {
    assert_eq!(
        moves(
            Variant::Draughts(DraughtsVariant::Russian),
            "W:Wc3:Bd4,b4,b6"
        ),
        list(&["c3:a5:c7", "c3:e5"])
    );
}

#[test]
fn idf_5_13_man_crowned_mid_capture_goes_on_as_a_king() {
    let p = pos(Variant::Draughts(DraughtsVariant::Russian), "W:Wb6:Bc7,f6");
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), &p.fen()),
        list(&["b6:d8:g5", "b6:d8:h4"])
    );
    assert!(crowns(&p, "b6:d8:h4"));
}

#[test]
fn idf_5_14_man_crowned_by_a_quiet_move_stops_there() {
    let p = pos(Variant::Draughts(DraughtsVariant::Russian), "W:Wc7:Bh6");
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), &p.fen()),
        list(&["c7-b8", "c7-d8"])
    );
    assert!(crowns(&p, "c7-d8"));
    let mut next = p.clone();
    next.play(&p.parse_move("c7-d8").unwrap()).unwrap();
    assert_eq!(next.fen(), "B:WKd8:Bh6");
}

#[test]
fn idf_6_9_diagram_5_three_routes_written_in_full() {
    assert_eq!(
        moves(
            Variant::Draughts(DraughtsVariant::Russian),
            "W:WKd2:Bf4,f6,g7,d6,b6"
        ),
        list(&["d2:h6:f8:c5:a7", "d2:g5:e7:c5:a7", "d2:g5:d8:a5"])
    );
}

// ------------------------------------------------------------ IDF appendix 1 (Brazilian)

#[test]
fn brazilian_app1_5_12_most_pieces_must_be_taken() {
    assert_eq!(
        moves(
            Variant::Draughts(DraughtsVariant::Brazilian),
            "W:Wc3:Bd4,b4,b6"
        ),
        list(&["c3:a5:c7"])
    );
}

#[test]
fn brazilian_app1_5_13_man_passing_the_last_row_goes_on_as_a_man() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::Brazilian),
        "W:Wb6:Bc7,e7",
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Brazilian), &p.fen()),
        list(&["b6:d8:f6"])
    );
    assert!(!crowns(&p, "b6:d8:f6"));
}

#[test]
fn brazilian_app1_5_14_man_stops_crowned_when_only_a_king_could_go_on() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::Brazilian),
        "W:Wb6:Bc7,f6",
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Brazilian), &p.fen()),
        list(&["b6:d8"])
    );
    assert!(crowns(&p, "b6:d8"));
}

// ---------------------------------------------------------------- IDF appendix 2 (Pool)

#[test]
fn pool_app2_5_12_free_choice_as_in_russian() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Pool), "W:Wc3:Bd4,b4,b6"),
        list(&["c3:a5:c7", "c3:e5"])
    );
}

#[test]
fn pool_app2_5_13_man_passing_the_last_row_goes_on_as_a_man() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Pool), "W:Wb6:Bc7,e7"),
        list(&["b6:d8:f6"])
    );
    // Russian crowns at d8 and the new king flies on (IDF 5.13).
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), "W:Wb6:Bc7,e7"),
        list(&["b6:d8:f6", "b6:d8:g5", "b6:d8:h4"])
    );
}

#[test]
fn pool_app2_5_14_man_stops_crowned_when_only_a_king_could_go_on() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Pool), "W:Wb6:Bc7,f6"),
        list(&["b6:d8"])
    );
}

// --------------------------------------------------------------- IDF appendix 3 (Czech)

#[test]
fn czech_app3_5_3_men_capture_forwards_only() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Czech), "W:Wd4,a3:Bc3"),
        list(&["a3-b4", "d4-c5", "d4-e5"])
    );
}

#[test]
fn czech_app3_5_4_kings_capture_backwards() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Czech), "W:WKd4:Bc3"),
        list(&["d4:a1", "d4:b2"])
    );
}

#[test]
fn czech_app3_5_13_a_king_must_capture_whatever_the_count() {
    let fen = "W:Wc3,Ke1:Bd4,d6,g3";
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Czech), fen),
        list(&["e1:h4"])
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Russian), fen),
        list(&["c3:e5:c7", "e1:h4"])
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Brazilian), fen),
        list(&["c3:e5:c7"])
    );
}

#[test]
fn czech_app3_5_14_crowned_only_where_the_move_ends() {
    let p = pos(Variant::Draughts(DraughtsVariant::Czech), "W:Wb6:Bc7,f6");
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Czech), &p.fen()),
        list(&["b6:d8"])
    );
    assert!(crowns(&p, "b6:d8"));
}

// ---------------------------------------------------------- IDF appendix 4 (Portuguese)

#[test]
fn portuguese_app4_6_4_squares_numbered_from_whites_side_right_to_left() {
    assert_eq!(
        (
            portuguese("h1"),
            portuguese("b1"),
            portuguese("g2"),
            portuguese("a8")
        ),
        (1, 4, 5, 32)
    );
    let p = Position::start(Variant::Draughts(DraughtsVariant::Portuguese));
    assert_eq!(
        p.fen(),
        "W:W1,2,3,4,5,6,7,8,9,10,11,12:B21,22,23,24,25,26,27,28,29,30,31,32"
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Portuguese), &p.fen()),
        list(&["9-13", "10-13", "10-14", "11-14", "11-15", "12-15", "12-16"])
    );
}

#[test]
fn portuguese_app4_5_3_men_capture_forwards_only() {
    let fen = format!("W:W{}:B{}", portuguese("d3"), portuguese("c2"));
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Portuguese), &fen).len(),
        2
    );
    assert!(
        capture_counts(Variant::Draughts(DraughtsVariant::Portuguese), &fen)
            .iter()
            .all(|&n| n == 0)
    );
}

#[test]
fn portuguese_app4_5_13_most_pieces() {
    // Man d3 takes c4 and c6 (two); the flying king h2 takes one.
    let fen = format!(
        "W:W{},K{}:B{},{},{}",
        portuguese("d3"),
        portuguese("h5"),
        portuguese("c4"),
        portuguese("c6"),
        portuguese("e2")
    );
    let expected = format!(
        "{}:{}:{}",
        portuguese("d3"),
        portuguese("b5"),
        portuguese("d7")
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Portuguese), &fen),
        vec![expected]
    );
}

#[test]
fn portuguese_app4_5_14_among_equals_most_kings() {
    let fen = format!(
        "W:W{}:B{},K{}",
        portuguese("d3"),
        portuguese("c4"),
        portuguese("e4")
    );
    let expected = format!("{}:{}", portuguese("d3"), portuguese("f5"));
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Portuguese), &fen),
        vec![expected]
    );
}

#[test]
fn portuguese_app4_5_15_crowned_only_at_the_end_of_the_move() {
    let fen = format!("W:W{}:B{}", portuguese("b7"), portuguese("g2"));
    let p = pos(Variant::Draughts(DraughtsVariant::Portuguese), &fen);
    let text = format!("{}-{}", portuguese("b7"), portuguese("a8"));
    assert!(crowns(&p, &text));
}

// ------------------------------------------------------------- IDF appendix 5 (Italian)

#[test]
fn italian_app5_6_4_squares_numbered_from_blacks_side_left_to_right() {
    assert_eq!(
        (italian("a8"), italian("g8"), italian("b7"), italian("h1")),
        (1, 4, 5, 32)
    );
    assert_eq!(
        moves(
            Variant::Draughts(DraughtsVariant::Italian),
            &Position::start(Variant::Draughts(DraughtsVariant::Italian)).fen()
        ),
        list(&[
            "21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"
        ])
    );
}

#[test]
fn italian_app5_3_8_king_moves_one_square() {
    let fen = format!("W:WK{}:B{}", italian("d3"), italian("a8"));
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Italian), &fen).len(),
        4
    );
}

#[test]
fn italian_app5_5_4_a_man_may_not_capture_a_king() {
    let man = format!("W:W{}:B{}", italian("d3"), italian("c4"));
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Italian), &man),
        vec![format!("{}:{}", italian("d3"), italian("b5"))]
    );
    let king = format!("W:W{}:BK{}", italian("d3"), italian("c4"));
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Italian), &king),
        vec![format!("{}-{}", italian("d3"), italian("e4"))]
    );
}

#[test]
fn italian_app5_5_8_a_king_captures_only_an_adjacent_piece() {
    let fen = format!("W:WK{}:B{}", italian("d3"), italian("b5"));
    assert!(
        capture_counts(Variant::Draughts(DraughtsVariant::Italian), &fen)
            .iter()
            .all(|&n| n == 0)
    );
    // The flying Russian king would take it.
    assert_eq!(
        capture_counts(Variant::Draughts(DraughtsVariant::Russian), "W:WKe3:Bg5"),
        vec![1]
    );
}

#[test]
fn italian_app5_5_14_most_pieces() {
    // King d3 takes one (c4); man f3 takes two (g4, g6).
    let fen = format!(
        "W:WK{},{}:B{},{},{}",
        italian("d3"),
        italian("f3"),
        italian("c4"),
        italian("g4"),
        italian("g6")
    );
    let expected = format!("{}:{}:{}", italian("f3"), italian("h5"), italian("f7"));
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Italian), &fen),
        vec![expected]
    );
}

#[test]
fn italian_app5_5_15_among_equals_most_kings() {
    let fen = format!(
        "W:WK{}:BK{},{},{},{}",
        italian("d3"),
        italian("e4"),
        italian("g6"),
        italian("c4"),
        italian("c6")
    );
    let expected = format!("{}:{}:{}", italian("d3"), italian("f5"), italian("h7"));
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Italian), &fen),
        vec![expected]
    );
}

#[test]
fn italian_federation_among_equals_a_kings_capture_before_a_mans() {
    let fen = format!(
        "W:WK{},{}:B{},{}",
        italian("d3"),
        italian("f3"),
        italian("c4"),
        italian("g4")
    );
    let expected = format!("{}:{}", italian("d3"), italian("b5"));
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Italian), &fen),
        vec![expected]
    );
}

#[test]
fn italian_federation_among_equals_the_route_meeting_a_king_first() {
    // King d3: e4 (king) then g6, or c4 then c6 (king): the first meets the king first.
    let fen = format!(
        "W:WK{}:BK{},{},{},K{}",
        italian("d3"),
        italian("e4"),
        italian("g6"),
        italian("c4"),
        italian("c6")
    );
    let expected = format!("{}:{}:{}", italian("d3"), italian("f5"), italian("h7"));
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Italian), &fen),
        vec![expected]
    );
}

#[test]
fn italian_app5_5_16_crowned_only_at_the_end_of_the_move() {
    let fen = format!("W:W{}:B{}", italian("b7"), italian("h3"));
    let p = pos(Variant::Draughts(DraughtsVariant::Italian), &fen);
    assert!(crowns(&p, &format!("{}-{}", italian("b7"), italian("a8"))));
}

// ---------------------------------------------------------------- INT (100 squares)

#[test]
fn int_3_2_start_position_and_3_3_numbering() {
    let p = Position::start(Variant::Draughts(DraughtsVariant::International));
    assert_eq!(
        p.fen(),
        "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20"
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::International), &p.fen()),
        list(&[
            "31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"
        ])
    );
}

#[test]
fn int_3_3_diagram_12_two_routes_written_in_full() {
    assert_eq!(
        moves(
            Variant::Draughts(DraughtsVariant::International),
            "W:WK47:B29,13,12,11,30,40"
        ),
        list(&["47:24:35:44:6", "47:24:8:17:6"])
    );
}

#[test]
fn int_3_4_1_diagram_13_the_man_must_take_three_rather_than_the_king_one() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::International),
        "W:WK10,36:B41,42,33",
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::International), &p.fen()),
        list(&["36:47:38:29"])
    );
    assert!(!crowns(&p, "36:29"));
    // Without the man's capture the king's single capture is the move.
    assert_eq!(
        moves(
            Variant::Draughts(DraughtsVariant::International),
            "W:WK10:B41"
        ),
        list(&["10:46"])
    );
}

#[test]
fn int_3_4_1_diagram_14_man_or_king_but_three_pieces_either_way() {
    // The king takes 23 (a king), 22 and then 12 or 7 (the flying king has a choice of
    // landing); the man takes 32, 22 and the king 23. Every capture takes three.
    let fen = "W:WK10,38:BK23,32,22,12,7";
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::International), fen),
        list(&["10:28:11:2", "10:28:17:3", "10:28:17:8", "38:27:18:29"])
    );
    assert!(
        capture_counts(Variant::Draughts(DraughtsVariant::International), fen)
            .iter()
            .all(|&n| n == 3)
    );
}

#[test]
fn int_3_4_2_1_diagram_15_a_man_passing_the_last_row_stays_a_man() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::International),
        "W:W35:B30,19,8,7",
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::International), &p.fen()),
        list(&["35:24:13:2:11"])
    );
    assert!(!crowns(&p, "35:11"));
}

#[test]
fn int_3_4_2_2_diagram_16_a_man_ending_on_the_last_row_is_crowned_and_stops() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::International),
        "W:W33:B28,17,7,19",
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::International), &p.fen()),
        list(&["33:22:11:2"])
    );
    assert!(crowns(&p, "33:2"));
}

// ------------------------------------------------------------------------- Frisian

#[test]
fn fri_7_men_capture_along_rows_and_files_too() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Frisian), "W:W28:B29"),
        list(&["28x30"])
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Frisian), "W:W28:B18"),
        list(&["28x8"])
    );
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Frisian), "W:W28:B38"),
        list(&["28x48"])
    );
}

#[test]
fn fri_8_crowned_only_where_the_move_ends() {
    let p = pos(
        Variant::Draughts(DraughtsVariant::Frisian),
        "W:W35:B30,19,8,7",
    );
    assert!(!crowns(&p, "35x11"));
    let q = pos(Variant::Draughts(DraughtsVariant::Frisian), "W:W6:B45");
    assert!(crowns(&q, "6-1"));
}

#[test]
fn fri_9_kings_move_diagonally_but_capture_along_all_eight_lines() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Frisian), "W:WK46:BK48"),
        list(&["46x49", "46x50"])
    );
    // No quiet move along a row or file.
    assert!(
        moves(Variant::Draughts(DraughtsVariant::Frisian), "W:WK46:B5")
            .iter()
            .all(|m| m != "46-47" && m != "46-36")
    );
}

#[test]
fn fri_11_a_king_is_worth_more_than_a_man() {
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Frisian), "W:W28:B29,K18"),
        list(&["28x8"])
    );
}

#[test]
fn fri_11_a_king_is_worth_less_than_two_men() {
    assert_eq!(
        moves(
            Variant::Draughts(DraughtsVariant::Frisian),
            "W:W28:B22,11,K29"
        ),
        list(&["28x17x6"])
    );
}

#[test]
fn fri_11_value_weights_bound_every_count_on_the_board() {
    // n kings are worth less than 2n men and more than 2n-1 men, for n up to 20.
    for n in 1..=20u32 {
        assert!(63 * n < 64 * n && 63 * n > 32 * (2 * n - 1), "n = {n}");
    }
}

#[test]
fn fri_12_at_equal_value_the_king_captures() {
    assert_eq!(
        moves(
            Variant::Draughts(DraughtsVariant::Frisian),
            "W:W28,K46:B29,41"
        ),
        list(&["46x32", "46x37"])
    );
}

#[test]
fn fri_17_at_most_three_consecutive_quiet_moves_with_one_king() {
    let mut p = pos(
        Variant::Draughts(DraughtsVariant::Frisian),
        "W:W50,K46:B3,K1",
    );
    let king_moves = |p: &Position| {
        p.legal_moves()
            .iter()
            .filter(|m| p.move_text(m).starts_with("46-") || p.move_text(m).starts_with("41-"))
            .count()
    };
    // Shuffle the white king 46-41-46-41 while Black shuffles its king.
    for (i, (w, b)) in [("46-41", "1-7"), ("41-46", "7-1"), ("46-41", "1-7")]
        .iter()
        .enumerate()
    {
        assert!(king_moves(&p) > 0, "move {i}");
        let m = p.parse_move(w).unwrap();
        p.play(&m).unwrap();
        let m = p.parse_move(b).unwrap();
        p.play(&m).unwrap();
    }
    assert_eq!(p.fen(), "W:WK41,50:B3,K7:MW41/3:MB7/3");
    // The fourth consecutive quiet move of that king is not legal; the man must move.
    assert!(
        p.legal_moves()
            .iter()
            .all(|m| p.move_text(m).starts_with("50-"))
    );
    let m = p.parse_move("50-44").unwrap();
    p.play(&m).unwrap();
    let m = p.parse_move("3-9").unwrap();
    p.play(&m).unwrap();
    assert!(
        p.legal_moves()
            .iter()
            .any(|m| p.move_text(m).starts_with("41-"))
    );
}

#[test]
fn fri_17_the_limit_lapses_with_only_kings_and_a_capture_resets_it() {
    // With only kings there is no limit, so no counter is kept or accepted.
    assert!(
        Position::from_fen(
            Variant::Draughts(DraughtsVariant::Frisian),
            "W:WK41:B5:MW41/3"
        )
        .is_err()
    );
    let mut p = pos(
        Variant::Draughts(DraughtsVariant::Frisian),
        "W:WK41,50:B3,4",
    );
    for (w, b) in [("41-37", "3-8"), ("37-41", "4-9"), ("41-37", "8-12")] {
        p.play(&p.parse_move(w).unwrap()).unwrap();
        p.play(&p.parse_move(b).unwrap()).unwrap();
    }
    assert!(p.fen().ends_with(":MW37/3"));
    // The man is taken: only kings remain and the king may move again at once.
    let mut q = pos(
        Variant::Draughts(DraughtsVariant::Frisian),
        "B:WK37,44:B39,9:MW37/3",
    );
    q.play(&q.parse_move("39x50").unwrap()).unwrap();
    assert_eq!(q.fen(), "W:WK37:B9,K50");
    assert!(
        q.legal_moves()
            .iter()
            .any(|m| q.move_text(m).starts_with("37-")),
        "{}",
        q.fen()
    );
    // The resting king may still capture (FRI 17: "a capture with the same king").
    let q = pos(
        Variant::Draughts(DraughtsVariant::Frisian),
        "W:W50,K41:B5,32:MW41/3",
    );
    let all = moves(Variant::Draughts(DraughtsVariant::Frisian), &q.fen());
    assert!(
        !all.is_empty() && all.iter().all(|m| m.starts_with("41x")),
        "{all:?}"
    );
    let mut after = q.clone();
    after.play(&q.parse_move("41x28").unwrap()).unwrap();
    assert!(!after.fen().contains(":MW"));
}

#[test]
fn fri_22_notation_with_a_cross_for_captures() {
    let p = pos(Variant::Draughts(DraughtsVariant::Frisian), "W:W32:B27");
    assert_eq!(
        moves(Variant::Draughts(DraughtsVariant::Frisian), &p.fen()),
        list(&["32x21"])
    );
    assert!(p.parse_move("32x21").is_ok());
}
