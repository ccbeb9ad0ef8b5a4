//! Ballot tables (IDF s.2 art. 2.7, 7.2.4-7.2.6; s.1 art. 3.1; s.2 art. 5.5).
//!
//! Before the first game of a micro-match an opening may be drawn by lot: the first move
//! of White, a series of opening moves, or a start position, from a table the IDF
//! approves for a period (7.2.5, 7.2.6). The draw is made once and binds both games of
//! the micro-match (2.7, 7.2.4). Some positions of a table start with Black to move
//! (s.1 art. 3.1). Moves made by the ballot do not count towards the time control's
//! moves (5.5): the server sets the drawn position up as the game's start and starts the
//! clock there, so the clock's move counts (and so its quotas) begin after the ballot.
//!
//! Tables are data, so that an operator can load the table in force. The format (one
//! entry a line, `#` starts a comment, blank lines are ignored):
//!
//! ```text
//! format = damka-ballot-1
//! variant = russian
//! name = Example table
//! 1 | moves | c3-d4 d6-c5 b2-c3
//! 2 | position | B:Wa1,c1,e1:Bb8,d8,f8
//! ```
//!
//! Headers `format` (must be `damka-ballot-1`), `variant` (a draughts variant's name) and
//! `name` come first. An entry is `number | kind | content`: numbers are positive and
//! unique; `moves` lists moves in the variant's notation, played from the start position
//! and checked for legality when the table loads; `position` is a FEN (see
//! [`crate::rules::draughts`]'s FEN) whose first field says who moves first. Every error
//! names its line.

use serde::{Deserialize, Serialize};

use crate::rules::{Color, Position, Variant};

/// A source of uniformly distributed 64-bit numbers, injected so that draws are
/// reproducible in tests and come from the operating system in the server.
pub trait RandomSource {
    /// The next number.
    fn next_u64(&mut self) -> u64;
}

/// A uniform index below `n` (`n > 0`), by rejection sampling (no modulo bias).
pub fn uniform_below(rng: &mut impl RandomSource, n: usize) -> usize {
    let n = n.max(1) as u64;
    let limit = u64::MAX - u64::MAX % n;
    loop {
        let x = rng.next_u64();
        if x < limit {
            return (x % n) as usize;
        }
    }
}

/// How an opening was given in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningKind {
    /// A series of opening moves from the start position.
    Moves,
    /// A start position.
    Position,
}

/// One entry of a ballot table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// The entry's number in the table.
    pub number: u32,
    /// Moves or a position.
    pub kind: OpeningKind,
    /// The ballot moves as recorded (full routes), empty for a position.
    pub moves: Vec<String>,
    /// The position the games start from, after the ballot moves.
    pub start_fen: String,
    /// Who makes the first move of the game (Black in some positions, s.1 art. 3.1).
    pub to_move: Color,
}

impl Opening {
    /// The position the games start from.
    pub fn start(&self, variant: Variant) -> Result<Position, crate::rules::FenError> {
        Position::from_fen(variant, &self.start_fen)
    }
}

/// A ballot table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BallotTable {
    /// The variant the table is for.
    pub variant: Variant,
    /// The table's name.
    pub name: String,
    /// The entries, in the order of the file.
    pub openings: Vec<Opening>,
}

/// What is wrong with a ballot table.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BallotErrorKind {
    /// A header is missing (or comes after the first entry).
    #[error("the `{0}` header is missing before the first entry")]
    MissingHeader(&'static str),
    /// A header given twice.
    #[error("the `{0}` header is given twice")]
    DuplicateHeader(String),
    /// A header damka does not know.
    #[error("unknown header `{0}`; known: format, variant, name")]
    UnknownHeader(String),
    /// A format other than `damka-ballot-1`.
    #[error("unsupported format `{0}`; this server reads damka-ballot-1")]
    UnsupportedFormat(String),
    /// An unknown variant.
    #[error("unknown variant `{0}`")]
    UnknownVariant(String),
    /// Ballots are for draughts.
    #[error("ballot tables are for draughts variants, not {0}")]
    NotDraughts(Variant),
    /// A line that is neither a header nor an entry.
    #[error("expected `number | kind | content` or `key = value`, found `{0}`")]
    Malformed(String),
    /// An entry number that is not a positive integer.
    #[error("`{0}` is not a positive entry number")]
    BadNumber(String),
    /// An entry number used twice.
    #[error("entry {0} is numbered twice")]
    DuplicateNumber(u32),
    /// An unknown entry kind.
    #[error("unknown entry kind `{0}`; known: moves, position")]
    UnknownKind(String),
    /// A `moves` entry without moves.
    #[error("a `moves` entry lists no moves")]
    NoMoves,
    /// A move that cannot be played.
    #[error("move {index} `{text}` cannot be played: {reason}")]
    IllegalMove {
        /// 1-based index in the entry.
        index: usize,
        /// The move as written.
        text: String,
        /// Why.
        reason: String,
    },
    /// A bad FEN.
    #[error("bad position: {0}")]
    BadPosition(String),
    /// The position has no legal move: no game could start from it.
    #[error("the side to move has no legal move in this position")]
    NoLegalMove,
    /// A table without entries.
    #[error("the table has no entries")]
    Empty,
}

/// A ballot table error, with the 1-based line it is on (0 for the whole file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ballot table line {line}: {kind}")]
pub struct BallotError {
    /// 1-based line, 0 for the whole file.
    pub line: usize,
    /// What is wrong.
    pub kind: BallotErrorKind,
}

/// The format this module reads.
pub const FORMAT: &str = "damka-ballot-1";

impl BallotTable {
    /// Parses and checks a table.
    pub fn parse(text: &str) -> Result<BallotTable, BallotError> {
        let mut format = None;
        let mut variant = None;
        let mut name = None;
        let mut openings: Vec<Opening> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let err = |kind| BallotError {
                line: line_no,
                kind,
            };
            let line = raw.split_once('#').map_or(raw, |(a, _)| a).trim();
            if line.is_empty() {
                continue;
            }
            if let Some((key, value)) = line.split_once('=').filter(|_| !line.contains('|')) {
                if !openings.is_empty() {
                    return Err(err(BallotErrorKind::Malformed(line.to_string())));
                }
                let (key, value) = (key.trim(), value.trim().to_string());
                let slot = match key {
                    "format" => &mut format,
                    "variant" => &mut variant,
                    "name" => &mut name,
                    _ => return Err(err(BallotErrorKind::UnknownHeader(key.to_string()))),
                };
                if slot.replace(value).is_some() {
                    return Err(err(BallotErrorKind::DuplicateHeader(key.to_string())));
                }
                continue;
            }
            let v = header_variant(format.as_deref(), variant.as_deref()).map_err(err)?;
            if name.is_none() {
                return Err(err(BallotErrorKind::MissingHeader("name")));
            }
            let opening = parse_entry(v, line).map_err(err)?;
            if openings.iter().any(|o| o.number == opening.number) {
                return Err(err(BallotErrorKind::DuplicateNumber(opening.number)));
            }
            openings.push(opening);
        }
        let whole = |kind| BallotError { line: 0, kind };
        let v = header_variant(format.as_deref(), variant.as_deref()).map_err(whole)?;
        let name = name.ok_or(whole(BallotErrorKind::MissingHeader("name")))?;
        if openings.is_empty() {
            return Err(whole(BallotErrorKind::Empty));
        }
        Ok(BallotTable {
            variant: v,
            name,
            openings,
        })
    }

    /// The entry numbered `number`.
    pub fn get(&self, number: u32) -> Option<&Opening> {
        self.openings.iter().find(|o| o.number == number)
    }

    /// Draws an entry uniformly at random (art. 7.2.4).
    pub fn draw(&self, rng: &mut impl RandomSource) -> &Opening {
        &self.openings[uniform_below(rng, self.openings.len())]
    }
}

fn header_variant(format: Option<&str>, variant: Option<&str>) -> Result<Variant, BallotErrorKind> {
    match format {
        None => return Err(BallotErrorKind::MissingHeader("format")),
        Some(FORMAT) => {}
        Some(other) => return Err(BallotErrorKind::UnsupportedFormat(other.to_string())),
    }
    let v = variant.ok_or(BallotErrorKind::MissingHeader("variant"))?;
    let v: Variant = v
        .parse()
        .map_err(|_| BallotErrorKind::UnknownVariant(v.to_string()))?;
    if v.is_chess() {
        return Err(BallotErrorKind::NotDraughts(v));
    }
    Ok(v)
}

fn parse_entry(variant: Variant, line: &str) -> Result<Opening, BallotErrorKind> {
    let mut parts = line.splitn(3, '|').map(str::trim);
    let (Some(number), Some(kind), Some(content)) = (parts.next(), parts.next(), parts.next())
    else {
        return Err(BallotErrorKind::Malformed(line.to_string()));
    };
    let number: u32 = number
        .parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| BallotErrorKind::BadNumber(number.to_string()))?;
    let (kind, position, moves) = match kind {
        "moves" => {
            let mut pos = Position::start(variant);
            let mut moves = Vec::new();
            for (i, text) in content.split_whitespace().enumerate() {
                let illegal = |reason: String| BallotErrorKind::IllegalMove {
                    index: i + 1,
                    text: text.to_string(),
                    reason,
                };
                let mv = pos.parse_move(text).map_err(|e| illegal(e.to_string()))?;
                moves.push(pos.move_text(&mv));
                pos.play(&mv).map_err(|_| illegal("illegal".to_string()))?;
            }
            if moves.is_empty() {
                return Err(BallotErrorKind::NoMoves);
            }
            (OpeningKind::Moves, pos, moves)
        }
        "position" => {
            let pos = Position::from_fen(variant, content)
                .map_err(|e| BallotErrorKind::BadPosition(e.to_string()))?;
            (OpeningKind::Position, pos, Vec::new())
        }
        other => return Err(BallotErrorKind::UnknownKind(other.to_string())),
    };
    if position.legal_moves().is_empty() {
        return Err(BallotErrorKind::NoLegalMove);
    }
    Ok(Opening {
        number,
        kind,
        moves,
        start_fen: position.fen(),
        to_move: position.side_to_move(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::draughts::DraughtsVariant;

    /// SplitMix64, a tiny deterministic generator for tests.
    struct SplitMix(u64);
    impl RandomSource for SplitMix {
        fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
    }

    const EXAMPLE: &str = include_str!("../../../config/ballots/russian-example.txt");

    #[test]
    fn the_shipped_example_table_loads_and_has_a_black_to_move_position() {
        let t = BallotTable::parse(EXAMPLE).unwrap();
        assert_eq!(t.variant, Variant::Draughts(DraughtsVariant::Russian));
        assert!(t.openings.len() >= 10);
        let black = t
            .openings
            .iter()
            .filter(|o| o.to_move == Color::Black)
            .collect::<Vec<_>>();
        assert!(
            black.iter().any(|o| o.kind == OpeningKind::Position),
            "no Black-to-move position"
        );
        for o in &t.openings {
            let p = o.start(t.variant).unwrap();
            assert_eq!(p.side_to_move(), o.to_move);
            if o.kind == OpeningKind::Moves {
                // Three-move openings: White, Black, White; Black moves next.
                assert_eq!(o.moves.len(), 3, "entry {}", o.number);
                assert_eq!(o.to_move, Color::Black);
            }
        }
    }

    #[test]
    fn a_moves_entry_is_replayed_and_recorded_with_full_routes() {
        let t = BallotTable::parse("format = damka-ballot-1\nvariant = russian\nname = t\n7 | moves | c3-d4 f6-g5 b2-c3 # a comment\n").unwrap();
        let o = t.get(7).unwrap();
        assert_eq!(o.moves, vec!["c3-d4", "f6-g5", "b2-c3"]);
        assert_eq!(o.to_move, Color::Black);
        let mut p = Position::start(Variant::Draughts(DraughtsVariant::Russian));
        for m in ["c3-d4", "f6-g5", "b2-c3"] {
            let mv = p.parse_move(m).unwrap();
            p.play(&mv).unwrap();
        }
        assert_eq!(o.start_fen, p.fen());
    }

    fn err(text: &str) -> BallotError {
        BallotTable::parse(text).unwrap_err()
    }

    const HEAD: &str = "format = damka-ballot-1\nvariant = russian\nname = t\n";

    #[test]
    fn every_error_is_typed_and_names_its_line() {
        let e = err(&format!("{HEAD}1 | moves | c3-d4 c3-d4\n"));
        assert_eq!(e.line, 4);
        assert!(
            matches!(e.kind, BallotErrorKind::IllegalMove { index: 2, .. }),
            "{e}"
        );
        let e = err(&format!("{HEAD}1 | moves | c3-d4\n1 | moves | e3-f4\n"));
        assert_eq!((e.line, e.kind), (5, BallotErrorKind::DuplicateNumber(1)));
        let e = err(&format!("{HEAD}0 | moves | c3-d4\n"));
        assert_eq!(e.kind, BallotErrorKind::BadNumber("0".into()));
        let e = err(&format!("{HEAD}1 | opening | c3-d4\n"));
        assert_eq!(e.kind, BallotErrorKind::UnknownKind("opening".into()));
        let e = err(&format!("{HEAD}1 | position | X:W1\n"));
        assert!(matches!(e.kind, BallotErrorKind::BadPosition(_)));
        let e = err(&format!("{HEAD}1 | moves |\n"));
        assert_eq!(e.kind, BallotErrorKind::NoMoves);
        let e = err(&format!("{HEAD}just words\n"));
        assert_eq!(e.kind, BallotErrorKind::Malformed("just words".into()));
        let e = err("variant = russian\nname = t\n1 | moves | c3-d4\n");
        assert_eq!(
            (e.line, e.kind),
            (3, BallotErrorKind::MissingHeader("format"))
        );
        let e = err("format = damka-ballot-2\n");
        assert_eq!(
            e.kind,
            BallotErrorKind::UnsupportedFormat("damka-ballot-2".into())
        );
        let e = err("format = damka-ballot-1\nvariant = chess\nname = t\n");
        assert_eq!(e.kind, BallotErrorKind::NotDraughts(Variant::Chess));
        let e = err("format = damka-ballot-1\nvariant = checkers\nname = t\n");
        assert_eq!(e.kind, BallotErrorKind::UnknownVariant("checkers".into()));
        let e = err(HEAD);
        assert_eq!((e.line, e.kind), (0, BallotErrorKind::Empty));
        let e = err("format = damka-ballot-1\nformat = damka-ballot-1\n");
        assert_eq!(e.kind, BallotErrorKind::DuplicateHeader("format".into()));
        let e = err("colour = red\n");
        assert_eq!(e.kind, BallotErrorKind::UnknownHeader("colour".into()));
        // White to move without a legal move: White has no pieces that can move.
        let e = err(&format!("{HEAD}1 | position | W:Wa1:Bb2,c3\n"));
        assert_eq!(e.kind, BallotErrorKind::NoLegalMove);
    }

    #[test]
    fn draws_are_uniform() {
        let t = BallotTable::parse(EXAMPLE).unwrap();
        let n = t.openings.len();
        let mut rng = SplitMix(42);
        let mut counts = vec![0u32; n];
        let draws = 2000 * n as u32;
        for _ in 0..draws {
            let o = t.draw(&mut rng);
            let i = t
                .openings
                .iter()
                .position(|x| x.number == o.number)
                .unwrap();
            counts[i] += 1;
        }
        // Each count is Binomial(draws, 1/n): mean 2000, sd about 44; 6 sd is 265.
        for c in counts {
            assert!((1735..=2265).contains(&c), "count {c}");
        }
    }

    #[test]
    fn uniform_below_rejects_the_biased_tail() {
        struct Fixed(Vec<u64>);
        impl RandomSource for Fixed {
            fn next_u64(&mut self) -> u64 {
                self.0.remove(0)
            }
        }
        // With n = 3 the last (u64::MAX % 3 + 1) values are rejected.
        let mut r = Fixed(vec![u64::MAX, 5]);
        assert_eq!(uniform_below(&mut r, 3), 2);
    }
}
