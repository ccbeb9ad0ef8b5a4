//! The rules of every game damka serves: draughts variants and chess, behind one
//! game-level interface.

pub mod chess;
pub mod draughts;

use draughts::DraughtsVariant;

use std::fmt;

/// A side.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// White moves first.
    White,
    /// Black.
    Black,
}

impl Color {
    /// The other side.
    pub fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "white",
            Color::Black => "black",
        })
    }
}

/// Why a move typed by a client was not accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MoveParseError {
    /// Not a move in the variant's notation at all.
    #[error("malformed move: {0}")]
    Malformed(String),
    /// Well formed, but no legal move matches.
    #[error("no legal move matches `{0}`")]
    NoSuchMove(String),
    /// Several legal moves match; the candidates are listed with their full routes.
    #[error("`{input}` is ambiguous: {}", candidates.join(", "))]
    Ambiguous {
        /// What was typed.
        input: String,
        /// Every legal move it could mean.
        candidates: Vec<String>,
    },
}

/// Every game damka serves: a draughts variant (the draughts engine's own type, each
/// listed once, in [`DraughtsVariant`]), chess or Chess960. On the wire, in stored games
/// and on the command line a variant is its name: `"russian"`, `"chess960"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// A draughts variant of the rule texts.
    Draughts(DraughtsVariant),
    /// Chess (FIDE Laws).
    Chess,
    /// Chess960 (FIDE Laws, Appendix F).
    Chess960,
}

impl Variant {
    /// Every variant: the draughts variants in [`DraughtsVariant::ALL`]'s order, then
    /// chess and Chess960.
    pub const ALL: [Variant; DraughtsVariant::ALL.len() + 2] = {
        let mut all = [Variant::Chess960; DraughtsVariant::ALL.len() + 2];
        let mut i = 0;
        while i < DraughtsVariant::ALL.len() {
            all[i] = Variant::Draughts(DraughtsVariant::ALL[i]);
            i += 1;
        }
        all[i] = Variant::Chess;
        all
    };

    /// Every variant's name, in [`Variant::ALL`]'s order.
    pub const NAMES: [&'static str; Variant::ALL.len()] = {
        let mut names = [""; Variant::ALL.len()];
        let mut i = 0;
        while i < Variant::ALL.len() {
            names[i] = Variant::ALL[i].name();
            i += 1;
        }
        names
    };

    /// The draughts variant, if this is one.
    pub fn draughts(self) -> Option<DraughtsVariant> {
        match self {
            Variant::Draughts(v) => Some(v),
            Variant::Chess | Variant::Chess960 => None,
        }
    }

    /// Is this chess or Chess960?
    pub fn is_chess(self) -> bool {
        self.draughts().is_none()
    }

    /// The name used on the command line and the wire.
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Draughts(v) => v.name(),
            Variant::Chess => "chess",
            Variant::Chess960 => "chess960",
        }
    }
}

impl From<DraughtsVariant> for Variant {
    fn from(v: DraughtsVariant) -> Variant {
        Variant::Draughts(v)
    }
}

impl serde::Serialize for Variant {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Variant {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Variant, D::Error> {
        /// Reads a variant's exact name, as serde's derive for the former flat enum did.
        struct Name;

        impl serde::de::Visitor<'_> for Name {
            type Value = Variant;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a variant name")
            }

            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Variant, E> {
                Variant::ALL
                    .into_iter()
                    .find(|v| v.name() == s)
                    .ok_or_else(|| E::unknown_variant(s, &Variant::NAMES))
            }
        }

        deserializer.deserialize_str(Name)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown variant name.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant `{0}`; known: {known}", known = Variant::NAMES.join(", "))]
pub struct UnknownVariant(pub String);

impl std::str::FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        Variant::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

/// Why a FEN was refused, for any variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// A draughts FEN error.
    #[error(transparent)]
    Draughts(#[from] draughts::DraughtsFenError),
    /// A chess FEN error.
    #[error(transparent)]
    Chess(#[from] chess::ChessFenError),
}

/// A square as a variant names it: a number (Portuguese, Italian, 10x10 boards) or
/// text (algebraic 8x8 draughts squares, chess squares).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum SquareName {
    /// A numbered square.
    Number(u8),
    /// A named square such as `c3`.
    Text(String),
}

impl fmt::Display for SquareName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SquareName::Number(n) => write!(f, "{n}"),
            SquareName::Text(t) => f.write_str(t),
        }
    }
}

/// A move described for clients: its text, origin, destination, full route and the
/// squares of the pieces it captures (in the order the recorded route takes them).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MoveInfo {
    /// The move in the variant's notation (full route; SAN for chess).
    #[serde(rename = "move")]
    pub text: String,
    /// Origin square.
    pub from: SquareName,
    /// Destination square.
    pub to: SquareName,
    /// Origin, every landing square, destination.
    pub path: Vec<SquareName>,
    /// Squares of the captured pieces.
    pub captures: Vec<SquareName>,
}

/// A position of any variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Position {
    /// A draughts position.
    Draughts(draughts::Position),
    /// A chess or Chess960 position.
    Chess(chess::ChessPosition),
}

/// A legal move of any variant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A draughts move.
    Draughts(draughts::Move),
    /// A chess move.
    Chess(chess::ChessMove),
}

impl Position {
    /// The start position of a variant. Chess960 starts from the standard array here;
    /// use [`Position::start960`] for a numbered one.
    pub fn start(variant: Variant) -> Position {
        match variant.draughts() {
            Some(v) => Position::Draughts(draughts::Position::start(v)),
            None if variant == Variant::Chess960 => Position::Chess(
                chess::ChessPosition::start960(chess::STANDARD_960_INDEX)
                    .unwrap_or_else(|_| chess::ChessPosition::start()),
            ),
            None => Position::Chess(chess::ChessPosition::start()),
        }
    }

    /// Chess960 start position number `index` (0..960).
    pub fn start960(index: u32) -> Result<Position, FenError> {
        Ok(Position::Chess(chess::ChessPosition::start960(index)?))
    }

    /// Parses a FEN of a variant.
    pub fn from_fen(variant: Variant, fen: &str) -> Result<Position, FenError> {
        Ok(match variant.draughts() {
            Some(v) => Position::Draughts(draughts::Position::from_fen(v, fen)?),
            None => Position::Chess(chess::ChessPosition::from_fen(
                fen,
                variant == Variant::Chess960,
            )?),
        })
    }

    /// The position as FEN.
    pub fn fen(&self) -> String {
        match self {
            Position::Draughts(p) => p.fen(),
            Position::Chess(p) => p.fen(),
        }
    }

    /// The variant.
    pub fn variant(&self) -> Variant {
        match self {
            Position::Draughts(p) => Variant::Draughts(p.variant()),
            Position::Chess(p) if p.is_chess960() => Variant::Chess960,
            Position::Chess(_) => Variant::Chess,
        }
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        match self {
            Position::Draughts(p) => p.side_to_move(),
            Position::Chess(p) => p.side_to_move(),
        }
    }

    /// Every legal move (one per origin, destination and captured set in draughts).
    pub fn legal_moves(&self) -> Vec<Move> {
        match self {
            Position::Draughts(p) => p.legal_moves().into_iter().map(Move::Draughts).collect(),
            Position::Chess(p) => p.legal_moves().into_iter().map(Move::Chess).collect(),
        }
    }

    /// Every legal move as text a client can send back and draw from: for draughts every
    /// capture route in full (`c3:e5:g3`; each route of a move listed, so a route clicked
    /// square by square names one move), for chess UCI (`e2e4`, `e7e8q`; Chess960
    /// castling as king-takes-rook).
    pub fn legal_move_texts(&self) -> Vec<String> {
        match self {
            Position::Draughts(p) => {
                let mut texts: Vec<String> =
                    p.legal_routes().iter().map(|m| p.move_text(m)).collect();
                texts.sort_unstable();
                texts.dedup();
                texts
            }
            Position::Chess(p) => p.legal_moves().iter().map(|m| p.uci(m)).collect(),
        }
    }

    /// Reads a move a client typed into exactly one legal move.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveParseError> {
        match self {
            Position::Draughts(p) => p.parse_move(text).map(Move::Draughts),
            Position::Chess(p) => p.parse_move(text).map(Move::Chess),
        }
    }

    /// Is `mv` legal here? (Moves from another position are not.)
    pub fn is_legal(&self, mv: &Move) -> bool {
        match (self, mv) {
            (Position::Draughts(p), Move::Draughts(m)) => p.legal_moves().contains(m),
            (Position::Chess(p), Move::Chess(m)) => shakmaty::Position::is_legal(p.inner(), m.0),
            _ => false,
        }
    }

    /// The move in the variant's notation: full route for draughts, SAN for chess.
    pub fn move_text(&self, mv: &Move) -> String {
        match (self, mv) {
            (Position::Draughts(p), Move::Draughts(m)) => p.move_text(m),
            (Position::Chess(p), Move::Chess(m)) => p.san(m),
            _ => String::new(),
        }
    }

    /// The move described for clients.
    pub fn move_info(&self, mv: &Move) -> MoveInfo {
        match (self, mv) {
            (Position::Draughts(p), Move::Draughts(m)) => {
                let rules = p.rules();
                let name = |sq: u8| match rules.numbering {
                    draughts::Numbering::Algebraic => {
                        SquareName::Text(draughts::square_name(rules, sq))
                    }
                    _ => SquareName::Number(draughts::square_number(rules, sq)),
                };
                MoveInfo {
                    text: p.move_text(m),
                    from: name(m.from()),
                    to: name(m.to()),
                    path: m.route().into_iter().map(name).collect(),
                    captures: m.taken().iter().map(|&s| name(s)).collect(),
                }
            }
            (Position::Chess(p), Move::Chess(m)) => {
                let (from, to, captured) = p.move_squares(m);
                MoveInfo {
                    text: p.san(m),
                    from: SquareName::Text(from.clone()),
                    to: SquareName::Text(to.clone()),
                    path: vec![SquareName::Text(from), SquareName::Text(to)],
                    captures: captured.into_iter().map(SquareName::Text).collect(),
                }
            }
            _ => MoveInfo {
                text: String::new(),
                from: SquareName::Number(0),
                to: SquareName::Number(0),
                path: vec![],
                captures: vec![],
            },
        }
    }

    /// Plays a move. Returns `Err(IllegalMove)` and changes nothing if it is not legal
    /// here.
    pub fn play(&mut self, mv: &Move) -> Result<(), IllegalMove> {
        if !self.is_legal(mv) {
            return Err(IllegalMove);
        }
        match (self, mv) {
            (Position::Draughts(p), Move::Draughts(m)) => p.play_unchecked(m),
            (Position::Chess(p), Move::Chess(m)) => p.play_unchecked(m),
            _ => return Err(IllegalMove),
        }
        Ok(())
    }

    /// The move as the programs written for lichess's and lidraughts's APIs write it:
    /// UCI for chess (one entry); for draughts one `FFTT` entry per hop, two-digit
    /// square numbers (the 8x8 IDF boards numbered b8 = 1 ... g1 = 32,
    /// [`draughts::square_number`]).
    pub fn api_move(&self, mv: &Move) -> Vec<String> {
        match (self, mv) {
            (Position::Draughts(p), Move::Draughts(m)) => hops(&numbered(p.rules(), &m.route())),
            (Position::Chess(p), Move::Chess(m)) => vec![p.uci(m)],
            _ => Vec::new(),
        }
    }

    /// Every legal draughts route as square numbers (origin, each landing square), with
    /// its move: what a move sent hop by hop is matched against. Empty for chess.
    pub fn numbered_routes(&self) -> Vec<(Move, Vec<u8>)> {
        match self {
            Position::Draughts(p) => p
                .legal_routes()
                .into_iter()
                .map(|m| (numbered(p.rules(), &m.route()), m))
                .map(|(route, m)| (Move::Draughts(m), route))
                .collect(),
            Position::Chess(_) => Vec::new(),
        }
    }

    /// Leaf count of the legal-move tree `depth` plies deep.
    pub fn perft(&self, depth: u32) -> u64 {
        match self {
            Position::Draughts(p) => p.perft(depth),
            Position::Chess(p) => p.perft(depth),
        }
    }

    /// A 64-bit key for repetition detection.
    pub fn key(&self) -> u64 {
        match self {
            Position::Draughts(p) => p.key(),
            Position::Chess(p) => p.key(),
        }
    }
}

/// A route in lidraughts's field numbers: on the 8x8 IDF boards b8 = 1 ... g1 = 32 (its
/// Russian game starts `W:W21,...,32:B1,...,12`), which lidraughts-bot sends and reads.
fn numbered(rules: &draughts::Rules, route: &[u8]) -> Vec<u8> {
    route
        .iter()
        .map(|&sq| draughts::square_number(rules, sq))
        .collect()
}

/// `[32, 23, 14]` as `["3223", "2314"]`.
fn hops(route: &[u8]) -> Vec<String> {
    route
        .windows(2)
        .map(|w| format!("{:02}{:02}", w[0], w[1]))
        .collect()
}

/// A move that is not legal in the position it was played in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move")]
pub struct IllegalMove;

#[cfg(test)]
mod tests {
    use super::*;

    /// A variant is its bare name on the wire, as a value and as a map key, exactly as
    /// when `Variant` was a flat enum with `rename_all = "lowercase"`.
    #[test]
    fn wire_names_are_the_bare_names() {
        let names = [
            "russian",
            "brazilian",
            "pool",
            "czech",
            "portuguese",
            "italian",
            "international",
            "frisian",
            "chess",
            "chess960",
        ];
        assert_eq!(Variant::NAMES, names);
        for (v, name) in Variant::ALL.into_iter().zip(names) {
            assert_eq!(serde_json::to_value(v).ok(), Some(serde_json::json!(name)));
            let read: Variant = serde_json::from_value(serde_json::json!(name)).expect(name);
            assert_eq!(read, v);
            assert_eq!(name.parse::<Variant>(), Ok(v));
            let map = std::collections::BTreeMap::from([(v, 1)]);
            let text = serde_json::to_string(&map).expect("a map");
            assert_eq!(text, format!("{{\"{name}\":1}}"));
            let back: std::collections::BTreeMap<Variant, i32> =
                serde_json::from_str(&text).expect("a map back");
            assert_eq!(back, map);
        }
        let err = serde_json::from_str::<Variant>("\"Russian\"").expect_err("names are exact");
        assert!(
            err.to_string().contains("unknown variant `Russian`"),
            "{err}"
        );
        assert!(serde_json::from_str::<Variant>("3").is_err());
    }

    #[test]
    fn draughts_variants_are_listed_once_and_convert_both_ways() {
        let draughts: Vec<Variant> = Variant::ALL.into_iter().filter(|v| !v.is_chess()).collect();
        let listed: Vec<Variant> = DraughtsVariant::ALL
            .into_iter()
            .map(Variant::from)
            .collect();
        assert_eq!(draughts, listed);
        for v in DraughtsVariant::ALL {
            assert_eq!(Variant::Draughts(v).draughts(), Some(v));
            assert_eq!(
                Position::start(Variant::Draughts(v)).variant(),
                Variant::Draughts(v)
            );
        }
        assert_eq!(Variant::Chess.draughts(), None);
        assert_eq!(Variant::Chess960.draughts(), None);
    }
}
