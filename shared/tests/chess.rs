//! Chess and Chess960 through the game-level interface (FIDE Laws, Appendix F for 960).

use shared::rules::{Position, Variant};

fn play(p: &mut Position, text: &str) {
    let m = p.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    p.play(&m).unwrap();
}

#[test]
fn fide_app_f_chess960_start_positions_follow_the_rules() {
    for index in 0..960 {
        let p = Position::start960(index).unwrap();
        let fen = p.fen();
        let rank: String = fen
            .split('/')
            .next_back()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .into();
        let files: Vec<char> = rank.chars().collect();
        let pos = |c: char| files.iter().position(|&f| f == c).unwrap();
        let rooks: Vec<usize> = files
            .iter()
            .enumerate()
            .filter(|(_, f)| **f == 'R')
            .map(|(i, _)| i)
            .collect();
        let bishops: Vec<usize> = files
            .iter()
            .enumerate()
            .filter(|(_, f)| **f == 'B')
            .map(|(i, _)| i)
            .collect();
        assert!(
            rooks[0] < pos('K') && pos('K') < rooks[1],
            "{index}: king between the rooks"
        );
        assert_ne!(
            bishops[0] % 2,
            bishops[1] % 2,
            "{index}: bishops on opposite colours"
        );
        assert_eq!(
            fen.split('/').next().unwrap(),
            rank.to_lowercase(),
            "{index}: Black mirrors White"
        );
    }
    assert!(Position::start960(960).is_err());
    assert_eq!(
        Position::start960(518).unwrap().fen(),
        Position::start(Variant::Chess).fen()
    );
}

#[test]
fn fide_app_f_chess960_castling_puts_king_and_rook_on_the_usual_squares() {
    let fen = "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1";
    let mut p = Position::from_fen(Variant::Chess960, fen).unwrap();
    play(&mut p, "O-O");
    assert!(
        p.fen()
            .starts_with("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 b"),
        "{}",
        p.fen()
    );
    let mut q = Position::from_fen(Variant::Chess960, fen).unwrap();
    play(&mut q, "O-O-O");
    assert!(
        q.fen()
            .starts_with("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/2KR2R1 b"),
        "{}",
        q.fen()
    );
    // In Chess960 UCI castling is king-takes-rook.
    let r = Position::from_fen(Variant::Chess960, fen).unwrap();
    assert!(r.parse_move("e1g1").is_ok());
}

#[test]
fn fide_3_8_castling_is_illegal_through_check_and_out_of_check() {
    let through = Position::from_fen(Variant::Chess, "4k3/8/8/8/8/8/5r2/4K2R w K - 0 1").unwrap();
    assert!(through.parse_move("O-O").is_err());
    let in_check = Position::from_fen(Variant::Chess, "4k3/8/8/8/8/8/4r3/4K2R w K - 0 1").unwrap();
    assert!(in_check.parse_move("O-O").is_err());
}

#[test]
fn fide_3_7_en_passant_and_promotion() {
    let mut p = Position::from_fen(Variant::Chess, "4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1").unwrap();
    play(&mut p, "d5");
    play(&mut p, "exd6");
    assert_eq!(p.fen(), "4k3/8/3P4/8/8/8/8/4K3 b - - 0 2");
    let mut q = Position::from_fen(Variant::Chess, "8/4P3/8/8/8/8/k7/4K3 w - - 0 1").unwrap();
    play(&mut q, "e8=N");
    assert!(q.fen().starts_with("4N3/"));
    let r = Position::from_fen(Variant::Chess, "8/4P3/8/8/8/8/k7/4K3 w - - 0 1").unwrap();
    assert_eq!(r.move_text(&r.parse_move("e7e8q").unwrap()), "e8=Q");
}
