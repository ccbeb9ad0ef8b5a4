//! lichess's JSON shapes for what damka has: variants (keys in a [`Dialect`]), speeds,
//! players, challenges, and a game's state with its moves as the bots write them (UCI
//! for chess; `FFTT` hops for draughts, as lidraughts: [`Position::api_move`]).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use shared::protocol::{
    ChallengeInfo, ColorChoice, DeclineReason, GameState, Outcome, OutcomeReason, Speed,
    TimeControl, UserInfo,
};
use shared::rules::draughts::DraughtsVariant;
use shared::rules::{Color, Position, Variant};

use super::Dialect;
use crate::db::PerfRating;
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

/// The variant of a game or challenge that may start from a position of its own:
/// lichess calls a chess game from a set position `fromPosition` ("From Position"), and
/// lichess-bot sets its board up from `initialFen` only under that name.
pub fn variant_from(v: Variant, custom_start: bool, d: Dialect) -> Value {
    if custom_start && v == Variant::Chess && d == Dialect::Lichess {
        return json!({ "key": "fromPosition", "name": "From Position", "short": "FEN" });
    }
    variant(v, d)
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

/// A player's ratings as lichess's `perfs`: in the dialect's main variant one perf a
/// speed (`blitz`), every other variant one perf (`chess960`, `russian`: its most
/// played speed). lichess-bot's matchmaking picks opponents by these (`games`,
/// `rating`).
pub fn perfs(ratings: &BTreeMap<String, PerfRating>, d: Dialect) -> Value {
    let mut out: BTreeMap<String, &PerfRating> = BTreeMap::new();
    for (key, r) in ratings {
        let Some((variant, speed)) = key.rsplit_once('-') else {
            continue;
        };
        let Some(v) = Variant::ALL.into_iter().find(|v| v.name() == variant) else {
            continue;
        };
        let name = match variant_key(v, d) {
            "standard" => speed.to_string(),
            other => other.to_string(),
        };
        let kept = out.entry(name).or_insert(r);
        if r.games > kept.games {
            *kept = r;
        }
    }
    let shown: Map<String, Value> = out
        .into_iter()
        .map(|(k, r)| {
            let perf = json!({
                "games": r.games,
                "rating": r.rating.round() as i64,
                "rd": r.rd.round() as i64,
                "prov": r.provisional,
            });
            (k, perf)
        })
        .collect();
    Value::Object(shown)
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

/// A challenge's id as lichess's clients know it: the id of the game it starts (on
/// lichess a challenge and its game share one, and lichess-bot counts on it), else
/// damka's number. Either is accepted in the paths.
pub fn challenge_key(ch: &ChallengeInfo) -> String {
    ch.game_id
        .as_ref()
        .map_or_else(|| ch.challenge_id.0.to_string(), |g| g.0.clone())
}

/// A challenge in lichess's shape, as `me` sees it (`direction`).
pub fn challenge(ch: &ChallengeInfo, me: &UserInfo, d: Dialect) -> Value {
    let first = ch.time_control.first();
    let color = match ch.color {
        ColorChoice::Random => "random",
        ColorChoice::White => "white",
        ColorChoice::Black => "black",
    };
    let id = challenge_key(ch);
    let mut v = json!({
        "id": id,
        "url": format!("/challenge/{id}"),
        "status": "created",
        "challenger": player(&ch.from),
        "destUser": { "id": ch.to.0, "name": ch.to.0 },
        "variant": variant_from(ch.variant, ch.fen.is_some(), d),
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
        "direction": if ch.from.id == me.id { "out" } else { "in" },
    });
    // lichess names `initialFen` only for a set position, and `finalColor` always.
    if let Some(fen) = &ch.fen {
        v["initialFen"] = json!(fen);
    }
    if let Some(c) = ch.final_color {
        v["finalColor"] = json!(c.to_string());
    }
    v
}

/// A decline reason as lichess's clients send it (any case: lichess-bot sends
/// `tooFast`, berserk `toofast`); `None` if it is none of lichess's.
pub fn parse_decline_reason(text: &str) -> Option<DeclineReason> {
    use DeclineReason::*;
    let all = [
        Generic,
        Later,
        TooFast,
        TooSlow,
        TimeControl,
        Rated,
        Casual,
        Standard,
        Variant,
        NoBot,
        OnlyBot,
    ];
    all.into_iter()
        .find(|r| decline_reason_key(*r).eq_ignore_ascii_case(text.trim()))
}

/// lichess's key of a decline reason.
pub fn decline_reason_key(r: DeclineReason) -> &'static str {
    match r {
        DeclineReason::Generic => "generic",
        DeclineReason::Later => "later",
        DeclineReason::TooFast => "tooFast",
        DeclineReason::TooSlow => "tooSlow",
        DeclineReason::TimeControl => "timeControl",
        DeclineReason::Rated => "rated",
        DeclineReason::Casual => "casual",
        DeclineReason::Standard => "standard",
        DeclineReason::Variant => "variant",
        DeclineReason::NoBot => "noBot",
        DeclineReason::OnlyBot => "onlyBot",
    }
}

/// What a declining player says, in words, for a reason.
pub fn decline_reason_text(r: DeclineReason) -> &'static str {
    match r {
        DeclineReason::Generic => "I am not taking challenges now.",
        DeclineReason::Later => "Not now: please ask again later.",
        DeclineReason::TooFast => "This clock is too fast for me: please send a slower one.",
        DeclineReason::TooSlow => "This clock is too slow for me: please send a faster one.",
        DeclineReason::TimeControl => "I do not play this time control.",
        DeclineReason::Rated => "Please send a rated challenge.",
        DeclineReason::Casual => "Please send a casual challenge.",
        DeclineReason::Standard => "I play the main variant only just now.",
        DeclineReason::Variant => "I do not play this variant just now.",
        DeclineReason::NoBot => "I do not play bots.",
        DeclineReason::OnlyBot => "I play bots only.",
    }
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
        let custom_start = initial != "startpos";
        json!({
            "type": "gameFull",
            "id": s.game_id.0,
            "createdAt": s.created_ms,
            "variant": variant_from(s.variant, custom_start, d),
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

/// The last move as bots write it (UCI, or the last `FFTT` hop), empty before any.
fn last_move(s: &GameState) -> String {
    if s.moves.is_empty() {
        return String::new();
    }
    Track::of(s.clone())
        .and_then(|t| t.moves.last().cloned())
        .unwrap_or_default()
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
        "lastMove": last_move(s),
        "opponent": { "id": opponent.id.0, "username": opponent.name, "rating": opponent.rating },
        "perf": speed(s.variant, s.time_control),
        "rated": s.rated,
        "secondsLeft": left / 1000,
        "source": "friend",
        "speed": speed(s.variant, s.time_control),
        "variant": variant_from(s.variant, s.initial_fen != Position::start(s.variant).fen(), d),
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
