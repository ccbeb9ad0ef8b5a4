//! How a game ended: the verdict, and a typed reason naming the article that decided it;
//! and [`GameResult`], the result of a decided game that ratings and tournaments count.

use serde::{Deserialize, Serialize};

use crate::rules::Color;

/// Who won, or a draw, or no result at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "result", content = "winner", rename_all = "snake_case")]
pub enum Verdict {
    /// This side won.
    Win(Color),
    /// A draw.
    Draw,
    /// The game was aborted before both sides had moved: no result.
    Aborted,
}

impl Verdict {
    /// The result, unless the game was aborted.
    pub fn result(self) -> Option<GameResult> {
        match self {
            Verdict::Win(winner) => Some(GameResult::from_winner(Some(winner))),
            Verdict::Draw => Some(GameResult::Draw),
            Verdict::Aborted => None,
        }
    }
}

/// The result of a decided game (one not aborted): what a rating and a tournament count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameResult {
    /// White won.
    WhiteWin,
    /// A draw.
    Draw,
    /// Black won.
    BlackWin,
}

impl GameResult {
    /// The result with this winner; `None` is a draw.
    pub fn from_winner(winner: Option<Color>) -> GameResult {
        match winner {
            Some(Color::White) => GameResult::WhiteWin,
            Some(Color::Black) => GameResult::BlackWin,
            None => GameResult::Draw,
        }
    }

    /// The winner's colour, or `None` for a draw.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::WhiteWin => Some(Color::White),
            GameResult::BlackWin => Some(Color::Black),
            GameResult::Draw => None,
        }
    }

    /// The result as PDN writes it (`2-0`, `1-1`, `0-2`: the 64-square draughts scale).
    pub fn pdn(self) -> &'static str {
        match self {
            GameResult::WhiteWin => "2-0",
            GameResult::Draw => "1-1",
            GameResult::BlackWin => "0-2",
        }
    }
}

/// How a draw rule came to be applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Via {
    /// The rule ends the game by itself after the move that meets it.
    Automatic,
    /// A player claimed it and the claim was correct (IDF 8.2.3, FIDE 9.2-9.3).
    Claim,
    /// A standard-draw position claimed in a rapid or blitz game (IDF s.2 22.6).
    RapidClaim,
    /// A standard-draw position in a game without increment: not played on (IDF s.2
    /// 22.7, UA rule 9).
    NoIncrement,
}

macro_rules! rule_ids {
    ($($name:ident => $text:literal,)*) => {
        /// Every draw rule damka knows, named after its article (see `docs/law.md`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum RuleId {
            $(#[doc = $text] $name,)*
        }

        impl RuleId {
            /// Every rule id.
            pub const ALL: &'static [RuleId] = &[$(RuleId::$name,)*];

            /// The article in words, e.g. `IDF 8.2.15 (...)`.
            pub fn article(self) -> &'static str {
                match self {
                    $(RuleId::$name => $text,)*
                }
            }
        }
    };
}

rule_ids! {
    Idf8_2_3 => "IDF 8.2.3 (threefold repetition)",
    Idf8_2_4 => "IDF 8.2.4 (standard draw: 3 pieces v king on the main road, 5 moves)",
    Idf8_2_5 => "IDF 8.2.5 (standard draw: up to 2 pieces v king, 5 moves)",
    Idf8_2_6 => "IDF 8.2.6 (standard draw: 3 pieces v 2 kings, 5 moves)",
    Idf8_2_7 => "IDF 8.2.7 (standard draw: 4 kings v 2 kings, 5 moves)",
    Idf8_2_9 => "IDF 8.2.9",
    Idf8_2_10 => "IDF 8.2.10",
    Idf8_2_11 => "IDF 8.2.11",
    Idf8_2_12 => "IDF 8.2.12",
    Idf8_2_13 => "IDF 8.2.13",
    Idf8_2_14 => "IDF 8.2.14 (15 moves of kings only)",
    Idf8_2_15 => "IDF 8.2.15 (3 or more kings v king, 15 moves)",
    Idf8_2_16 => "IDF 8.2.16",
    Idf8_2_17 => "IDF 8.2.17",
    Idf8_2_18 => "IDF 8.2.18",
    Idf8_2_19 => "IDF 8.2.19",
    Idf8_2_20 => "IDF 8.2.20",
    Idf8_2_21 => "IDF 8.2.21",
    Idf8_2_22 => "IDF 8.2.22",
    Idf8_2_23 => "IDF 8.2.23",
    Idf8_2_24 => "IDF 8.2.24",
    Idf8_2_25 => "IDF 8.2.25 (30/40 moves without change in the balance of forces)",
    Ua3 => "UA rule 3 (threefold repetition)",
    Ua4 => "UA rule 4 (3 kings v king, 15 moves)",
    Ua5 => "UA rule 5 (15 moves of kings only)",
    Ua6 => "UA rule 6 (30/60 moves without change in the balance of forces)",
    Ua7 => "UA rule 7 (3 pieces v king on the main road, 5 moves)",
    Ua8 => "UA rule 8 (up to 2 pieces v king, 5 moves)",
    Italian8_2_3 => "IDF app. 5 (Italian) 8.2.3 (fourfold repetition)",
    Italian8_2_4 => "IDF app. 5 (Italian) 8.2.4 (40 moves)",
    IntRepetition => "INT 3.5 / 2.1.9 (threefold repetition)",
    Int3_5KingsOnly25 => "INT 3.5 (25 moves of kings only)",
    Int3_5Sixteen => "INT 3.5 (3 pieces v king, 16th move)",
    Int3_5Five => "INT 3.5 (up to 2 pieces v king, 5th move)",
    FriRepetition => "FRI (threefold repetition, damka's addition)",
    Fri18 => "FRI 18 (2 kings v king, 7 moves)",
    Fri21_1 => "FRI 21.1 (one king each, no capture)",
    Fide9_2 => "FIDE 9.2 (threefold repetition)",
    Fide9_3 => "FIDE 9.3 (50 moves)",
    FideDeadPosition => "FIDE 5.2.2 / 9.6 (dead position)",
    Fide9_6_1 => "FIDE 9.6.1 (fivefold repetition)",
    Fide9_6_2 => "FIDE 9.6.2 (75 moves)",
}

impl RuleId {
    /// Is this one of the standard draws of IDF 8.2.8 (8.2.4-8.2.7) or UA rule 10 (7-8)?
    pub fn is_standard(self) -> bool {
        matches!(
            self,
            RuleId::Idf8_2_4
                | RuleId::Idf8_2_5
                | RuleId::Idf8_2_6
                | RuleId::Idf8_2_7
                | RuleId::Ua7
                | RuleId::Ua8
        )
    }
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Reason {
    /// The loser has no pieces left (IDF 8.1, FRI 20.1).
    NoPieces,
    /// The loser, to move, has no legal move (IDF 8.1, FRI 20.5).
    NoLegalMove,
    /// Checkmate (FIDE 5.1).
    Checkmate,
    /// Stalemate (FIDE 5.2.1).
    Stalemate,
    /// The loser resigned.
    Resignation,
    /// The loser's time ran out.
    TimeForfeit,
    /// A flag fell but the opponent could not win by any series of legal moves (FIDE 6.9).
    TimeForfeitCannotWin,
    /// Both flags fell and the order cannot be told (IDF 8.2.2, 22.8).
    BothFlags,
    /// Draw agreed (IDF 8.2.1, FIDE 9.1).
    Agreement,
    /// A draw rule of the ruleset.
    Rule {
        /// The rule.
        rule: RuleId,
        /// How it was applied.
        via: Via,
    },
    /// Aborted before both sides had moved.
    Aborted,
}

/// The end of a game: result and reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Outcome {
    /// Who won, or draw, or aborted.
    pub result: Verdict,
    /// Why.
    pub reason: Reason,
}

impl Outcome {
    /// A win for `winner`.
    pub fn win(winner: Color, reason: Reason) -> Outcome {
        Outcome {
            result: Verdict::Win(winner),
            reason,
        }
    }

    /// A draw.
    pub fn draw(reason: Reason) -> Outcome {
        Outcome {
            result: Verdict::Draw,
            reason,
        }
    }

    /// A draw by a rule.
    pub fn by_rule(rule: RuleId, via: Via) -> Outcome {
        Outcome::draw(Reason::Rule { rule, via })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decided_result_keeps_its_winner_and_wire_names() {
        for (result, winner, wire) in [
            (GameResult::WhiteWin, Some(Color::White), "white_win"),
            (GameResult::Draw, None, "draw"),
            (GameResult::BlackWin, Some(Color::Black), "black_win"),
        ] {
            assert_eq!(GameResult::from_winner(winner), result);
            assert_eq!(result.winner(), winner);
            assert_eq!(
                serde_json::to_value(result).ok(),
                Some(serde_json::json!(wire))
            );
        }
        assert_eq!(
            Verdict::Win(Color::Black).result(),
            Some(GameResult::BlackWin)
        );
        assert_eq!(Verdict::Draw.result(), Some(GameResult::Draw));
        assert_eq!(Verdict::Aborted.result(), None);
        // The verdict's stored form is the one `law::GameResult` had.
        let stored = serde_json::to_value(Outcome::win(Color::White, Reason::Resignation));
        assert_eq!(
            stored.ok(),
            Some(serde_json::json!({
                "result": {"result": "win", "winner": "white"},
                "reason": {"reason": "resignation"},
            }))
        );
    }
}
