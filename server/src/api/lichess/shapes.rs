//! lichess's JSON shapes for what damka has: variants (keys in a [`Dialect`]), speeds,
//! players, challenges, and a game's state with its moves as the bots write them (UCI
//! for chess; `FFTT` hops for draughts, as lidraughts: [`Position::api_move`]).

use serde_json::{Value, json};
use shared::protocol::{
    ChallengeInfo, ColorChoice, GameState, Outcome, OutcomeReason, Speed, TimeControl, UserInfo,
};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Position, Variant};

use super::Dialect;
use crate::game::clock::speed_of;

/// The variant's key in a dialect.
pub fn variant_key(v: Variant, d: Dialect) -> &'static str {
    match (v, d) {
        (Variant::Chess, Dialect::Lichess) => "standard",
        (Variant::Draughts(DraughtsVariant::International), Dialect::Lidraughts) => "standard",
        _ => v.name(),
    }
}

/// The variant's name in a dialect (lidraughts-bot hands it, lowercased, to pydraughts).
pub fn variant_name(v: Variant, d: Dialect) -> String {
    if variant_key(v, d) == "standard" {
        return "Standard".into();
    }
    match v {
        Variant::Chess960 => "Chess960".into(),
        other => {
            let name = other.name();
            let mut c = name.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        }
    }
}

/// `{key, name, short}`.
pub fn variant(v: Variant, d: Dialect) -> Value {
    let name = variant_name(v, d);
    let short: String = name.chars().take(3).collect();
    json!({ "key": variant_key(v, d), "name": name, "short": short })
}

/// A variant key as a request names it: its damka name, or `standard` /
/// `fromPosition` in the request's dialect.
pub fn parse_variant(key: &str, d: Dialect) -> Option<Variant> {
    match (key, d) {
        ("standard" | "fromPosition", Dialect::Lichess) => Some(Variant::Chess),
        ("standard" | "fromPosition", Dialect::Lidraughts) => {
            Some(Variant::Draughts(DraughtsVariant::International))
        }
        (other, _) => Variant::ALL.into_iter().find(|v| v.name() == other),
    }
}

/// `bullet`, `blitz`, `rapid`, `classical`.
pub fn speed_name(s: Speed) -> &'static str {
    match s {
        Speed::Bullet => "bullet",
        Speed::Blitz => "blitz",
        Speed::Rapid => "rapid",
        Speed::Classical => "classical",
    }
}

/// The speed of a game.
pub fn speed(v: Variant, tc: TimeControl) -> &'static str {
    speed_name(speed_of(v, tc))
}

/// `{name}` of the perf (`Blitz`).
pub fn perf(v: Variant, tc: TimeControl) -> Value {
    let s = speed(v, tc);
    let mut c = s.chars();
    let name: String = c
        .next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default();
    json!({ "name": name })
}

/// A player as lichess shows one in games and challenges.
pub fn player(u: &UserInfo) -> Value {
    let mut p = json!({ "id": u.id.0, "name": u.name, "rating": u.rating });
    if u.bot {
        p["title"] = json!("BOT");
    }
    p
}

/// The clock of a control, as lichess: `{initial, increment}` in ms (the first period).
pub fn clock(tc: TimeControl) -> Value {
    let first = tc.first();
    json!({ "initial": first.time_ms, "increment": first.increment_ms })
}

/// A challenge in lichess's shape, as `me` sees it (`direction`).
pub fn challenge(ch: &ChallengeInfo, me: &UserInfo, d: Dialect) -> Value {
    let first = ch.time_control.first();
    let color = match ch.color {
        ColorChoice::Random => "random",
        ColorChoice::White => "white",
        ColorChoice::Black => "black",
    };
    let id = ch.challenge_id.0.to_string();
    json!({
        "id": id,
        "url": format!("/challenge/{id}"),
        "status": "created",
        "challenger": player(&ch.from),
        "destUser": { "id": ch.to.0, "name": ch.to.0 },
        "variant": variant(ch.variant, d),
        "rated": ch.rated,
        "speed": speed(ch.variant, ch.time_control),
        "timeControl": {
            "type": "clock",
            "limit": first.time_ms / 1000,
            "increment": first.increment_ms / 1000,
            "show": ch.time_control.to_string(),
        },
        "color": color,
        "perf": perf(ch.variant, ch.time_control),
        "initialFen": ch.fen,
        "direction": if ch.from.id == me.id { "out" } else { "in" },
    })
}

/// lichess's `status` of a game.
pub fn status(outcome: Option<&Outcome>) -> &'static str {
    let Some(o) = outcome else {
        return "started";
    };
    match o.reason {
        OutcomeReason::Checkmate => "mate",
        OutcomeReason::Stalemate => "stalemate",
        OutcomeReason::NoPieces | OutcomeReason::NoMoves => "variantEnd",
        OutcomeReason::Resignation => "resign",
        OutcomeReason::Timeout => "outoftime",
        OutcomeReason::Abandoned => "timeout",
        OutcomeReason::Aborted => "aborted",
        _ => "draw",
    }
}

/// A game followed by its stream: the position, the moves as bots write them, and what
/// the next `gameState` line says.
#[derive(Clone, Debug)]
pub struct Track {
    /// The position now.
    pub position: Position,
    /// Every move so far, as bots write them (a draughts capture: one entry a hop).
    pub moves: Vec<String>,
    /// The state the track was built from, kept current by the stream.
    pub state: GameState,
}

impl Track {
    /// Replays the game's moves from its start; `None` if they do not replay (they
    /// always should: they were played by the same rules).
    pub fn of(state: GameState) -> Option<Track> {
        let mut position = Position::from_fen(state.variant, &state.initial_fen).ok()?;
        let mut moves = Vec::with_capacity(state.moves.len());
        for text in &state.moves {
            let mv = position.parse_move(text).ok()?;
            moves.extend(position.api_move(&mv));
            position.play(&mv).ok()?;
        }
        Some(Track {
            position,
            moves,
            state,
        })
    }

    /// Plays a move the game announced (its text in the variant's notation).
    pub fn play(&mut self, text: &str) -> bool {
        let Ok(mv) = self.position.parse_move(text) else {
            return false;
        };
        self.moves.extend(self.position.api_move(&mv));
        self.state.moves.push(text.to_string());
        self.position.play(&mv).is_ok()
    }

    /// The `gameState` line.
    pub fn game_state(&self) -> Value {
        let s = &self.state;
        let first = s.time_control.first();
        let mut v = json!({
            "type": "gameState",
            "moves": self.moves.join(" "),
            "wtime": s.clock.white_ms,
            "btime": s.clock.black_ms,
            "winc": first.increment_ms,
            "binc": first.increment_ms,
            "status": status(s.outcome.as_ref()),
        });
        if let Some(w) = s.outcome.as_ref().and_then(|o| o.winner) {
            v["winner"] = json!(w.to_string());
        }
        for (offer, key) in [(s.draw_offer, "draw"), (s.takeback_offer, "takeback")] {
            if let Some(c) = offer {
                let side = if c == Color::White { "w" } else { "b" };
                v[format!("{side}{key}")] = json!(true);
            }
        }
        v
    }

    /// The `gameFull` line.
    pub fn game_full(&self, d: Dialect) -> Value {
        let s = &self.state;
        let start = Position::start(s.variant).fen();
        let initial = if s.initial_fen == start {
            "startpos".to_string()
        } else {
            s.initial_fen.clone()
        };
        json!({
            "type": "gameFull",
            "id": s.game_id.0,
            "variant": variant(s.variant, d),
            "speed": speed(s.variant, s.time_control),
            "perf": perf(s.variant, s.time_control),
            "rated": s.rated,
            "clock": clock(s.time_control),
            "white": player(&s.white),
            "black": player(&s.black),
            "initialFen": initial,
            "state": self.game_state(),
        })
    }
}

/// A game as the event stream and `/api/account/playing` show it to `me`.
pub fn game_summary(s: &GameState, me: &UserInfo, d: Dialect) -> Value {
    let color = if s.white.id == me.id {
        Color::White
    } else {
        Color::Black
    };
    let opponent = if color == Color::White {
        &s.black
    } else {
        &s.white
    };
    let left = if color == Color::White {
        s.clock.white_ms
    } else {
        s.clock.black_ms
    };
    json!({
        "id": s.game_id.0,
        "gameId": s.game_id.0,
        "fullId": s.game_id.0,
        "color": color.to_string(),
        "fen": s.fen,
        "hasMoved": s.moves.len() > usize::from(color == Color::Black),
        "isMyTurn": s.outcome.is_none() && s.turn == color,
        "lastMove": s.moves.last().cloned().unwrap_or_default(),
        "opponent": { "id": opponent.id.0, "username": opponent.name, "rating": opponent.rating },
        "perf": speed(s.variant, s.time_control),
        "rated": s.rated,
        "secondsLeft": left / 1000,
        "source": "friend",
        "speed": speed(s.variant, s.time_control),
        "variant": variant(s.variant, d),
        "status": { "name": status(s.outcome.as_ref()) },
        "winner": s.outcome.as_ref().and_then(|o| o.winner).map(|w| w.to_string()),
        "compat": { "bot": true, "board": true },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_means_chess_to_lichess_and_international_to_lidraughts() {
        let intl = Variant::Draughts(DraughtsVariant::International);
        assert_eq!(variant_key(Variant::Chess, Dialect::Lichess), "standard");
        assert_eq!(variant_key(intl, Dialect::Lichess), "international");
        assert_eq!(variant_key(intl, Dialect::Lidraughts), "standard");
        assert_eq!(variant_name(intl, Dialect::Lidraughts), "Standard");
        assert_eq!(
            variant_name(
                Variant::Draughts(DraughtsVariant::Russian),
                Dialect::Lidraughts
            ),
            "Russian"
        );
        for d in [Dialect::Lichess, Dialect::Lidraughts] {
            for v in Variant::ALL {
                assert_eq!(parse_variant(variant_key(v, d), d), Some(v), "{v:?}");
                assert_eq!(parse_variant(v.name(), d), Some(v));
            }
        }
    }
}
