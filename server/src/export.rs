//! Exports of archived games in the formats players use: PDN for draughts (with the
//! standard `[GameType]` numbers and `[FEN]` for games from a position) and PGN for chess
//! and Chess960 (`[Variant "Chess960"]`, `[SetUp "1"]`/`[FEN]`); every move carries the
//! mover's clock after it as a `[%clk h:mm:ss]` comment.

use std::fmt::Write;

use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Variant};

use crate::db::ArchivedGame;

/// The PDN `GameType` number of a draughts variant (PDN 3.0's table).
pub fn game_type(variant: Variant) -> Option<u32> {
    Some(match variant {
        Variant::Draughts(DraughtsVariant::International) => 20,
        Variant::Draughts(DraughtsVariant::Italian) => 22,
        Variant::Draughts(DraughtsVariant::Pool) => 23,
        Variant::Draughts(DraughtsVariant::Russian) => 25,
        Variant::Draughts(DraughtsVariant::Brazilian) => 26,
        Variant::Draughts(DraughtsVariant::Portuguese) => 28,
        Variant::Draughts(DraughtsVariant::Czech) => 29,
        Variant::Draughts(DraughtsVariant::Frisian) => 40,
        Variant::Chess | Variant::Chess960 => return None,
    })
}

/// The variant of an archived game.
pub fn variant_of(game: &ArchivedGame) -> Option<Variant> {
    serde_json::from_value(serde_json::Value::String(game.variant.clone())).ok()
}

/// Is this game exported as PGN (chess) rather than PDN?
pub fn is_chess(game: &ArchivedGame) -> bool {
    variant_of(game).is_some_and(Variant::is_chess)
}

fn clk(ms: u64) -> String {
    let secs = ms / 1000;
    format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

fn date(ms: i64) -> String {
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let days = ms.div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

fn tag(out: &mut String, name: &str, value: &str) {
    let value = value.replace('\\', "\\\\").replace('"', "\\\"");
    let _ = writeln!(out, "[{name} \"{value}\"]");
}

/// The game's result in the export's convention: PGN `1-0`/`0-1`/`1/2-1/2`; PDN
/// `2-0`/`0-2`/`1-1` (two points a game); `*` for an aborted game.
fn result(game: &ArchivedGame, chess: bool) -> &'static str {
    use shared::protocol::OutcomeReason;
    if game.reason == OutcomeReason::Aborted {
        return "*";
    }
    match (game.winner, chess) {
        (Some(Color::White), true) => "1-0",
        (Some(Color::Black), true) => "0-1",
        (None, true) => "1/2-1/2",
        (Some(Color::White), false) => "2-0",
        (Some(Color::Black), false) => "0-2",
        (None, false) => "1-1",
    }
}

/// Who moves first in the game: from its FEN, else White.
fn first_to_move(game: &ArchivedGame, variant: Variant) -> Color {
    game.start_fen
        .as_deref()
        .and_then(|fen| shared::rules::Position::from_fen(variant, fen).ok())
        .map_or(Color::White, |p| p.side_to_move())
}

/// One game as PDN (draughts) or PGN (chess), ending with a blank line.
pub fn export(game: &ArchivedGame) -> String {
    let Some(variant) = variant_of(game) else {
        return String::new();
    };
    let chess = variant.is_chess();
    let result = result(game, chess);
    let mut out = String::with_capacity(512 + game.moves.len() * 24);
    let event = match (&game.arena, &game.tournament, game.rated) {
        (Some(a), _, _) => format!("damka arena {a}"),
        (_, Some(t), _) => format!("damka tournament {t}"),
        (_, _, true) => format!("damka rated {}", game.perf),
        (_, _, false) => format!("damka casual {}", game.perf),
    };
    tag(&mut out, "Event", &event);
    tag(&mut out, "Site", "damka");
    tag(&mut out, "Date", &date(game.started_at));
    tag(&mut out, "Round", "-");
    tag(&mut out, "White", &game.white.name);
    tag(&mut out, "Black", &game.black.name);
    tag(&mut out, "Result", result);
    tag(&mut out, "GameId", &game.id);
    if let Some(t) = game_type(variant) {
        tag(&mut out, "GameType", &t.to_string());
    }
    if variant == Variant::Chess960 {
        tag(&mut out, "Variant", "Chess960");
    }
    for (name, p) in [("White", &game.white), ("Black", &game.black)] {
        if let Some(r) = p.rating_before {
            tag(
                &mut out,
                &format!("{name}Elo"),
                &format!("{}", r.round() as i64),
            );
        }
        if let (Some(b), Some(a)) = (p.rating_before, p.rating_after) {
            tag(
                &mut out,
                &format!("{name}RatingDiff"),
                &format!("{:+}", (a - b).round() as i64),
            );
        }
    }
    tag(&mut out, "TimeControl", &pgn_time_control(&game.clock));
    tag(&mut out, "Termination", &termination(game));
    if let Some(fen) = &game.start_fen {
        if chess {
            tag(&mut out, "SetUp", "1");
        }
        tag(&mut out, "FEN", fen);
    } else if variant == Variant::Chess960 {
        // Chess960 games always name their start array.
        tag(&mut out, "SetUp", "1");
    }
    out.push('\n');
    let moves: Vec<Written<'_>> = game
        .moves
        .iter()
        .map(|mv| Written {
            text: &mv.san,
            comment: mv.clock_ms.map(|ms| format!("[%clk {}]", clk(ms))),
        })
        .collect();
    movetext(
        &mut out,
        variant,
        first_to_move(game, variant),
        &moves,
        result,
    );
    out
}

/// One move of a movetext: the move in damka's notation and a comment to write after it.
pub struct Written<'a> {
    /// The move as the game recorded it (`Position::move_text`).
    pub text: &'a str,
    /// Written after the move in braces.
    pub comment: Option<String>,
}

/// The movetext of a game, the one writer of PDN and PGN moves (the game export and
/// the tournament file both use it): numbered moves (`1... ` when Black moves first),
/// draughts captures with `x` (damka's notation uses `:` in the 8x8 variants: c3:e5:g7
/// becomes c3xe5xg7, every square of the route kept), comments in braces, the result,
/// lines of at most 79 characters, a blank line after.
pub fn movetext(
    out: &mut String,
    variant: Variant,
    first: Color,
    moves: &[Written<'_>],
    result: &str,
) {
    let chess = variant.is_chess();
    let mut turn = first;
    let mut number = 1;
    let mut line = String::new();
    for (i, mv) in moves.iter().enumerate() {
        if turn == Color::White {
            let _ = write!(line, "{number}. ");
        } else if i == 0 {
            let _ = write!(line, "{number}... ");
        }
        if chess {
            line.push_str(mv.text);
        } else {
            line.push_str(&mv.text.replace(':', "x"));
        }
        if let Some(c) = &mv.comment {
            let _ = write!(line, " {{{c}}}");
        }
        line.push(' ');
        if turn == Color::Black {
            number += 1;
        }
        turn = turn.opponent();
    }
    line.push_str(result);
    wrap(out, &line, 79);
    out.push_str("\n\n");
}

/// A control in PGN's TimeControl tag: `5+3` as `300+3`, periods as
/// `40/7200:3600` (moves/seconds, `:` between periods). PGN has no delay notation: a
/// delay is left out.
fn pgn_time_control(clock: &str) -> String {
    let secs = |ms: u64| {
        if ms.is_multiple_of(1000) {
            (ms / 1000).to_string()
        } else {
            (ms as f64 / 1000.0).to_string()
        }
    };
    match clock.parse::<shared::protocol::TimeControl>() {
        Ok(tc) => tc
            .periods()
            .iter()
            .map(|p| {
                let mut text = String::new();
                if let Some(moves) = p.moves {
                    let _ = write!(text, "{moves}/");
                }
                text.push_str(&secs(p.time_ms));
                if p.increment_ms > 0 {
                    let _ = write!(text, "+{}", secs(p.increment_ms));
                }
                text
            })
            .collect::<Vec<_>>()
            .join(":"),
        Err(_) => clock.to_string(),
    }
}

fn termination(game: &ArchivedGame) -> String {
    let reason = serde_json::to_value(game.reason)
        .ok()
        .and_then(|v| v.as_str().map(|s| s.replace('_', " ")))
        .unwrap_or_default();
    match &game.rule {
        Some(rule) => format!("{reason} ({rule})"),
        None => reason,
    }
}

/// Appends `text` broken at spaces into lines of at most `width` characters (a comment
/// is never broken).
fn wrap(out: &mut String, text: &str, width: usize) {
    let mut col = 0;
    let mut in_comment = false;
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String, col: &mut usize| {
        if token.is_empty() {
            return;
        }
        if *col > 0 && *col + 1 + token.len() > width {
            out.push('\n');
            *col = 0;
        } else if *col > 0 {
            out.push(' ');
            *col += 1;
        }
        out.push_str(token);
        *col += token.len();
        token.clear();
    };
    for c in text.chars() {
        match c {
            '{' => {
                in_comment = true;
                token.push(c);
            }
            '}' => {
                in_comment = false;
                token.push(c);
            }
            ' ' if !in_comment => flush(&mut token, out, &mut col),
            _ => token.push(c),
        }
    }
    flush(&mut token, out, &mut col);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{ArchivedMove, ArchivedPlayer};
    use shared::protocol::OutcomeReason;

    fn game(variant: &str, moves: &[&str], winner: Option<Color>) -> ArchivedGame {
        let player = |name: &str| ArchivedPlayer {
            id: name.to_lowercase(),
            name: name.into(),
            guest: false,
            rating_before: Some(1500.0),
            rating_after: Some(1520.4),
        };
        ArchivedGame {
            id: "g1".into(),
            variant: variant.into(),
            rules: variant.into(),
            perf: format!("{variant}-blitz"),
            rated: true,
            clock: "3+2".into(),
            white: player("Alice"),
            black: player("Bob"),
            start_fen: None,
            moves: moves
                .iter()
                .map(|m| ArchivedMove {
                    san: (*m).into(),
                    clock_ms: Some(178_500),
                })
                .collect(),
            result: String::new(),
            winner,
            reason: OutcomeReason::Resignation,
            rule: None,
            started_at: 1_795_000_000_000,
            ended_at: 1_795_000_100_000,
            arena: None,
            tournament: None,
            berserk: Vec::new(),
        }
    }

    #[test]
    fn pdn_has_game_type_result_and_clocks() {
        let pdn = export(&game("russian", &["c3-d4", "f6-g5"], Some(Color::White)));
        assert!(pdn.contains("[GameType \"25\"]"), "{pdn}");
        assert!(pdn.contains("[Result \"2-0\"]"), "{pdn}");
        assert!(
            pdn.contains("1. c3-d4 {[%clk 0:02:58]} f6-g5 {[%clk 0:02:58]} 2-0"),
            "{pdn}"
        );
        assert!(pdn.contains("[TimeControl \"180+2\"]"), "{pdn}");
        assert!(pdn.contains("[Date \"2026.11.18\"]"), "{pdn}");
    }

    #[test]
    fn pgn_for_chess960_names_the_variant() {
        let mut g = game("chess960", &["e4"], None);
        g.start_fen = Some("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1".into());
        let pgn = export(&g);
        assert!(pgn.contains("[Variant \"Chess960\"]"));
        assert!(pgn.contains("[SetUp \"1\"]"));
        assert!(pgn.contains("[Result \"1/2-1/2\"]"));
        assert!(!pgn.contains("GameType"));
    }

    #[test]
    fn black_first_numbers_with_ellipsis() {
        let mut g = game("russian", &["f6-g5", "c3-d4"], Some(Color::Black));
        g.start_fen = Some("B:Wc3,e3:Bf6,h6".into());
        let pdn = export(&g);
        assert!(
            pdn.contains("1... f6-g5 {[%clk 0:02:58]} 2. c3-d4"),
            "{pdn}"
        );
    }

    #[test]
    fn long_games_wrap_without_breaking_comments() {
        let moves: Vec<&str> = std::iter::repeat_n("c3-d4", 200).collect();
        let pdn = export(&game("russian", &moves, None));
        assert!(pdn.lines().all(|l| l.len() <= 79), "{pdn}");
        assert!(
            pdn.lines()
                .all(|l| l.matches('{').count() == l.matches('}').count())
        );
    }
}
