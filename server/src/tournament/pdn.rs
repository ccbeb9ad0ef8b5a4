//! The whole tournament as one PDN file: every game with its headers, the ballot moves
//! first (PDN records them like the game's own moves; a comment says where the ballot
//! ends, IDF s.2 art. 5.5), results on the 2-0 / 1-1 / 0-2 scale of 64-square draughts.
//! The moves are written by the game export's writer ([`crate::export::movetext`]), so
//! both files spell moves the same way (captures with `x`).

use shared::law::GameResult;
use shared::rules::Variant;
use shared::rules::{Color, Position};

use super::record::{PlayedGame, TournamentRecord};
use crate::export::{Written, movetext};

/// The PDN `GameType` number of a variant (the archive's table; 0 for chess, which a
/// draughts tournament never plays).
fn game_type(v: Variant) -> u32 {
    crate::export::game_type(v).unwrap_or(0)
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// One game.
fn game(t: &TournamentRecord, g: &PlayedGame) -> String {
    let name = |p: usize| {
        t.spec
            .players
            .get(p)
            .map_or(String::new(), |u| quote(&u.name))
    };
    let result = g.result.map_or("*", GameResult::pdn);
    let mut out = String::new();
    let header = |out: &mut String, k: &str, v: &str| out.push_str(&format!("[{k} \"{v}\"]\n"));
    header(&mut out, "Event", &quote(&t.spec.name));
    header(
        &mut out,
        "Round",
        &format!("{}.{}", g.round + 1, g.index + 1),
    );
    header(&mut out, "White", &name(g.colours.white));
    header(&mut out, "Black", &name(g.colours.black));
    header(&mut out, "Result", result);
    header(&mut out, "GameType", &game_type(t.spec.variant).to_string());
    header(
        &mut out,
        "Site",
        &format!("damka game {}", quote(&g.game_id.to_string())),
    );
    if let Some(n) = g.opening {
        header(&mut out, "Ballot", &n.to_string());
    }
    // With ballot moves the game is written from the start position; a set-up position
    // (or one with Black to move) needs its FEN.
    let start = Position::start(t.spec.variant).fen();
    let from_fen = g.ballot_moves.is_empty() && g.start_fen != start;
    if from_fen {
        header(&mut out, "FEN", &g.start_fen);
    }
    let first = if from_fen {
        Position::from_fen(t.spec.variant, &g.start_fen).map_or(Color::White, |p| p.side_to_move())
    } else {
        Color::White
    };
    let ballot_end = g.ballot_moves.len();
    let moves: Vec<Written<'_>> = g
        .ballot_moves
        .iter()
        .chain(&g.moves)
        .enumerate()
        .map(|(i, mv)| Written {
            text: mv,
            comment: (i + 1 == ballot_end).then(|| "end of ballot".to_string()),
        })
        .collect();
    out.push('\n');
    movetext(&mut out, t.spec.variant, first, &moves, result);
    out
}

/// Every finished game of the tournament, in round and board order.
pub fn tournament(t: &TournamentRecord) -> String {
    t.games
        .iter()
        .filter(|g| g.result.is_some())
        .map(|g| game(t, g))
        .collect()
}

/// The record's game with its moves and result as the game archive holds them (the
/// archive is written by the game itself, so it is the authority on both).
pub fn from_archive(g: &PlayedGame, a: &crate::db::ArchivedGame) -> PlayedGame {
    let result = match a.result.as_str() {
        "1-0" => Some(GameResult::WhiteWin),
        "0-1" => Some(GameResult::BlackWin),
        "1/2-1/2" => Some(GameResult::Draw),
        _ => g.result,
    };
    PlayedGame {
        moves: a.moves.iter().map(|m| m.san.clone()).collect(),
        result,
        ..g.clone()
    }
}
