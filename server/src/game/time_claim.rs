//! IDF s.2 art. 7.3.9, the claim of a player short of time in a won position: "In a
//! competition with a control to the end of the game without Fischer increments, the
//! stronger side has the right to record a draw in a theoretically or clearly won
//! position if less than 1 minute is left on its clock to the end of the game."
//!
//! The clock conditions are exact; the judgement of a won position is the arbiter's,
//! and the server stands in for it with two tests it can make itself
//! ([`won_position`]): a forced win found by a bounded search (the opponent left without
//! a move or a piece within [`SEARCH_PLIES`] plies), or Petrov's triangle material in
//! Russian and Brazilian draughts (three kings or more against a lone king that does
//! not hold the long diagonal a1-h8). Anything else is refused.

use shared::law::RulesetId;
use shared::rules::{Color, Position};

/// The claimant must have less than this left (ms).
pub const UNDER_MS: u64 = 60_000;

/// Plies the forced-win search looks ahead.
pub const SEARCH_PLIES: u32 = 9;

/// Positions the search may visit before it gives up (then: not shown won).
const SEARCH_NODES: u64 = 200_000;

/// The article, as answers name it.
pub const ARTICLE: &str = "IDF s.2 art. 7.3.9";

/// Does 7.3.9 belong to this rule set (the IDF rules for 64-square draughts and their
/// appendices)?
pub fn applies(ruleset: RulesetId) -> bool {
    matches!(
        ruleset,
        RulesetId::RussianIdf
            | RulesetId::Brazilian
            | RulesetId::Pool
            | RulesetId::Czech
            | RulesetId::Portuguese
            | RulesetId::Italian
    )
}

/// The squares and kinds of one side's pieces in a draughts FEN: (square, king).
fn pieces(fen: &str, side: Color) -> Vec<(String, bool)> {
    let tag = if side == Color::White { 'W' } else { 'B' };
    fen.split(':')
        .skip(1)
        .filter_map(|part| part.strip_prefix(tag))
        .flat_map(|list| list.split(','))
        .filter(|s| !s.is_empty())
        .map(|s| match s.strip_prefix('K') {
            Some(sq) => (sq.to_string(), true),
            None => (s.to_string(), false),
        })
        .collect()
}

/// Petrov's triangle: `me` has three kings or more (and nothing else) against a lone
/// king off the long diagonal a1-h8 (Russian and Brazilian boards).
fn petrov(pos: &Position, me: Color) -> bool {
    let fen = pos.fen();
    let mine = pieces(&fen, me);
    let theirs = pieces(&fen, me.opponent());
    const LONG_DIAGONAL: [&str; 8] = ["a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"];
    mine.len() >= 3
        && mine.iter().all(|(_, king)| *king)
        && matches!(&theirs[..], [(sq, true)] if !LONG_DIAGONAL.contains(&sq.as_str()))
}

/// Can `me` force the opponent out of moves (or pieces) within `plies`?
fn forced_win(pos: &Position, me: Color, plies: u32, nodes: &mut u64) -> bool {
    if *nodes == 0 {
        return false;
    }
    *nodes -= 1;
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return pos.side_to_move() != me;
    }
    if plies == 0 {
        return false;
    }
    let after = |mv| {
        let mut next = pos.clone();
        next.play(mv).ok().map(|()| next)
    };
    if pos.side_to_move() == me {
        moves
            .iter()
            .any(|mv| after(mv).is_some_and(|p| forced_win(&p, me, plies - 1, nodes)))
    } else {
        moves
            .iter()
            .all(|mv| after(mv).is_some_and(|p| forced_win(&p, me, plies - 1, nodes)))
    }
}

/// Why the server holds `me`'s position won, or `None` if it cannot show it.
pub fn won_position(pos: &Position, me: Color, ruleset: RulesetId) -> Option<String> {
    if matches!(ruleset, RulesetId::RussianIdf | RulesetId::Brazilian) && petrov(pos, me) {
        return Some(
            "three kings against a lone king off the long diagonal (Petrov's triangle)".into(),
        );
    }
    let mut nodes = SEARCH_NODES;
    forced_win(pos, me, SEARCH_PLIES, &mut nodes)
        .then(|| format!("a forced win within {SEARCH_PLIES} plies"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::Variant;
    use shared::rules::draughts::DraughtsVariant;

    fn russian(fen: &str) -> Position {
        Position::from_fen(Variant::Draughts(DraughtsVariant::Russian), fen).unwrap()
    }

    #[test]
    fn petrovs_triangle_is_won_unless_the_lone_king_holds_the_long_diagonal() {
        let off = russian("B:WKc1,Ke1,Kg1:BKh2");
        assert!(won_position(&off, Color::White, RulesetId::RussianIdf).is_some());
        let on = russian("B:WKc1,Ke1,Kg1:BKd4");
        assert!(petrov(&off, Color::White) && !petrov(&on, Color::White));
        // Black's view of the same position: not won.
        assert!(won_position(&off, Color::Black, RulesetId::RussianIdf).is_none());
    }

    #[test]
    fn a_capture_of_the_last_piece_is_a_forced_win() {
        // White to move takes the last black man: c3xe5.
        let p = russian("W:WKc3,a1:Bd4");
        assert_eq!(
            won_position(&p, Color::White, RulesetId::Czech).as_deref(),
            Some("a forced win within 9 plies")
        );
        // The start position is not shown won.
        let start = Position::start(Variant::Draughts(DraughtsVariant::Russian));
        assert!(won_position(&start, Color::White, RulesetId::RussianIdf).is_none());
    }
}
