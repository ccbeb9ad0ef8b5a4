//! Every rule set damka plays by, stated as data: the draw rules of each variant built
//! from the small vocabulary of [`Trigger`]s and [`Situation`]s, the draw-offer rules, and
//! the rapid/blitz provisions. Nothing here is code per variant; `docs/law.md` tabulates
//! every rule with the words of its article.

use serde::{Deserialize, Serialize};

use super::outcome::RuleId;
use super::situation::{Force, Forces, KingsOn, Region, Side, Situation, force};
use crate::clock::Category;
use crate::rules::Variant;
use crate::rules::draughts::DraughtsVariant;

/// Whether a rule ends the game by itself or waits for a player's claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// The game ends after the move that meets the rule.
    Automatic,
    /// The player to move may claim it (now, or with the move he is about to make).
    Claim,
    /// Either player may claim it at any time while it holds (Italian 8.2.3).
    ClaimByEither,
}

/// What makes a draw rule apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The same position for the `times`-th time in the game.
    Repetition {
        /// Occurrences needed, the current one included.
        times: u8,
        /// Positions count as the same whoever is to move (Italian 8.2.3).
        ignore_side_to_move: bool,
        /// Only in classical games (IDF 8.2.3 "фиксируется только в соревнованиях с
        /// классическим контролем времени").
        only_classical: bool,
    },
    /// The stronger side's own `moves` moves ("своих N ходов"), counted from the moment
    /// the balance of forces was established (the last capture or crowning, or the start
    /// of the record), once the situation has held at some moment since then. Met by the
    /// stronger side's `moves`-th such move (or at once, if the situation arises later).
    OwnMoves {
        /// Moves of the stronger side.
        moves: u16,
        /// The situation.
        situation: Situation,
    },
    /// `moves` moves by each side (2 x `moves` plies) without a change in the balance of
    /// forces (no capture, no crowning), once the situation has held since that change.
    EachSideMoves {
        /// Moves by each side.
        moves: u16,
        /// The situation.
        situation: Situation,
        /// Does not apply while the situation of an [`Trigger::OwnMoves`] rule of the same
        /// rule set has held since the last change (IDF 8.2.25 "в случаях, не описанных в
        /// статьях 8.2.4-8.2.24").
        yields: bool,
    },
    /// `moves` moves by each side in which no man (pawn) moved and nothing was captured:
    /// only kings moved (IDF 8.2.14, INT 3.5), or the 50/75-move rules (FIDE 9.3, 9.6.2).
    QuietMoves {
        /// Moves by each side.
        moves: u16,
        /// Applies only while a man is on the board. IDF 8.2.14 is read so: otherwise a
        /// kings-only ending would always be drawn by it after 15 moves, and 8.2.24 (four
        /// kings against two, 30 moves) could never apply.
        needs_men: bool,
    },
    /// Frisian 21.1: one king each, no capture possible for either, and the side to move
    /// has no move that forces a capture next move.
    LoneKings,
    /// Chess: neither side can mate by any series of legal moves (FIDE 5.2.2).
    DeadPosition,
}

/// One draw rule of a rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    /// Its article.
    pub id: RuleId,
    /// What makes it apply.
    pub trigger: Trigger,
    /// Automatic or on a claim.
    pub decision: Decision,
}

/// How draw offers work in a rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OfferRules {
    /// Each side must have made this many moves (IDF s.2 9.2, UA rule 1: 20).
    pub min_moves_each: u32,
    /// An offer is made with one's own move, before the opponent replies (IDF s.2 9.2).
    pub with_own_move: bool,
    /// After a decline the same player may not offer again until the opponent has
    /// offered (IDF s.2 9.2).
    pub bar_after_decline: bool,
    /// In games without a move record the move minimum is lifted, but a draw may be
    /// agreed only with at most this many pieces each (IDF s.2 22.5, UA rule 1).
    pub unrecorded_max_pieces: Option<u8>,
    /// Only "in the endgame", read as: once a king is on the board (FRI 21.2).
    pub endgame_only: bool,
    /// A refused claim stands as a draw offer (FIDE 9.1.2.3).
    pub refused_claim_is_offer: bool,
}

/// When standard-draw positions are drawn at once in games without increment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoIncrement {
    /// Never.
    Never,
    /// In rapid and blitz games (IDF s.2 22.7).
    RapidAndBlitz,
    /// In every game without increment (UA rule 9).
    Always,
}

impl NoIncrement {
    /// Does the provision apply to a game of this time-control category?
    pub fn applies(self, category: Category) -> bool {
        match self {
            NoIncrement::Never => false,
            NoIncrement::RapidAndBlitz => category != Category::Classical,
            NoIncrement::Always => true,
        }
    }
}

/// The rule sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RulesetId {
    /// Russian draughts, IDF 2016 (section 1 art. 8, section 2 art. 9.2, 22).
    RussianIdf,
    /// Russian draughts with the Ukrainian federation's draw law (UA).
    RussianUa,
    /// Brazilian draughts (IDF app. 1, art. 8 as Russian).
    Brazilian,
    /// Pool checkers (IDF app. 2, art. 8 as Russian).
    Pool,
    /// Czech draughts (IDF app. 3, art. 8 as Russian).
    Czech,
    /// Portuguese draughts (IDF app. 4 art. 8: a subset of IDF 8.2).
    Portuguese,
    /// Italian draughts (IDF app. 5 art. 8).
    Italian,
    /// International draughts (INT 3.5).
    International,
    /// Frisian draughts (FRI 18, 21).
    Frisian,
    /// Chess and Chess960 (FIDE 5, 6.9, 9).
    Fide,
}

/// A rule set: the draw law of one variant.
#[derive(Debug)]
pub struct Ruleset {
    /// Its id.
    pub id: RulesetId,
    /// The variants it governs.
    pub variants: &'static [Variant],
    /// Its draw rules, in article order; when several are met by one move the first
    /// listed is the reason given.
    pub draws: &'static [DrawRule],
    /// Draw offers.
    pub offers: OfferRules,
    /// In rapid and blitz games a player may claim a standard draw whenever its
    /// position is on the board (IDF s.2 22.6).
    pub rapid_standard_claims: bool,
    /// Standard-draw positions drawn at once without increment (IDF 22.7, UA 9).
    pub no_increment: NoIncrement,
    /// Chess: a flag loses only if the opponent could still mate (FIDE 6.9).
    pub flag_needs_mating_material: bool,
}

impl RulesetId {
    /// Every rule set.
    pub const ALL: [RulesetId; 10] = [
        RulesetId::RussianIdf,
        RulesetId::RussianUa,
        RulesetId::Brazilian,
        RulesetId::Pool,
        RulesetId::Czech,
        RulesetId::Portuguese,
        RulesetId::Italian,
        RulesetId::International,
        RulesetId::Frisian,
        RulesetId::Fide,
    ];

    /// The rule set's data.
    pub fn rules(self) -> &'static Ruleset {
        match self {
            RulesetId::RussianIdf => &RUSSIAN_IDF,
            RulesetId::RussianUa => &RUSSIAN_UA,
            RulesetId::Brazilian => &BRAZILIAN,
            RulesetId::Pool => &POOL,
            RulesetId::Czech => &CZECH,
            RulesetId::Portuguese => &PORTUGUESE,
            RulesetId::Italian => &ITALIAN,
            RulesetId::International => &INTERNATIONAL,
            RulesetId::Frisian => &FRISIAN,
            RulesetId::Fide => &FIDE,
        }
    }

    /// The default rule set of a variant (Russian: IDF; the Ukrainian profile is chosen
    /// explicitly).
    pub fn default_for(variant: Variant) -> RulesetId {
        match variant {
            Variant::Draughts(DraughtsVariant::Russian) => RulesetId::RussianIdf,
            Variant::Draughts(DraughtsVariant::Brazilian) => RulesetId::Brazilian,
            Variant::Draughts(DraughtsVariant::Pool) => RulesetId::Pool,
            Variant::Draughts(DraughtsVariant::Czech) => RulesetId::Czech,
            Variant::Draughts(DraughtsVariant::Portuguese) => RulesetId::Portuguese,
            Variant::Draughts(DraughtsVariant::Italian) => RulesetId::Italian,
            Variant::Draughts(DraughtsVariant::International) => RulesetId::International,
            Variant::Draughts(DraughtsVariant::Frisian) => RulesetId::Frisian,
            Variant::Chess | Variant::Chess960 => RulesetId::Fide,
        }
    }
}

// ---- vocabulary shorthands -------------------------------------------------------

const LONE_KING: Side = Side::of(Forces::OneOf(&[force(1, 0)]));
const TWO_KINGS: Side = Side::of(Forces::OneOf(&[force(2, 0)]));
/// Three kings, two kings and a man, a king and two men (IDF 8.2.4, 8.2.6; INT 16 moves).
const THREE_PIECES: &[Force] = &[force(3, 0), force(2, 1), force(1, 2)];
/// Two kings, king and man, one king (IDF 8.2.5; INT 5 moves).
const UP_TO_TWO: &[Force] = &[force(2, 0), force(1, 1), force(1, 0)];
const KING_AND_MAN: Forces = Forces::OneOf(&[force(1, 1)]);
const KING_AND_TWO_MEN: Forces = Forces::OneOf(&[force(1, 2)]);
const TWO_KINGS_AND_MAN: Forces = Forces::OneOf(&[force(2, 1)]);

const fn versus(strong: Side, weak: Side) -> Situation {
    Situation::Versus { strong, weak }
}

const fn auto(id: RuleId, trigger: Trigger) -> DrawRule {
    DrawRule {
        id,
        trigger,
        decision: Decision::Automatic,
    }
}

const fn own(id: RuleId, moves: u16, situation: Situation) -> DrawRule {
    auto(id, Trigger::OwnMoves { moves, situation })
}

/// IDF 8.2.18-8.2.23: two kings and a man against a king and two men, men on squares.
const fn thirty(
    id: RuleId,
    man: &'static [&'static str],
    weak: &'static [&'static str],
) -> DrawRule {
    own(
        id,
        30,
        versus(
            Side::of(TWO_KINGS_AND_MAN).men_on(man),
            Side::of(KING_AND_TWO_MEN).men_on(weak),
        ),
    )
}

const IDF_REPETITION: DrawRule = DrawRule {
    id: RuleId::Idf8_2_3,
    trigger: Trigger::Repetition {
        times: 3,
        ignore_side_to_move: false,
        only_classical: true,
    },
    decision: Decision::Claim,
};
const IDF_8_2_4: DrawRule = own(
    RuleId::Idf8_2_4,
    5,
    versus(
        Side::of(Forces::OneOf(THREE_PIECES)),
        LONE_KING.kings_on(KingsOn::MainRoad),
    ),
);
const IDF_8_2_5: DrawRule = own(
    RuleId::Idf8_2_5,
    5,
    versus(Side::of(Forces::OneOf(UP_TO_TWO)), LONE_KING),
);
const IDF_8_2_6: DrawRule = own(
    RuleId::Idf8_2_6,
    5,
    versus(Side::of(Forces::OneOf(THREE_PIECES)), TWO_KINGS),
);
const IDF_8_2_7: DrawRule = own(
    RuleId::Idf8_2_7,
    5,
    versus(
        Side::of(Forces::OneOf(&[force(4, 0)])),
        TWO_KINGS.kings_on(KingsOn::MainRoadOrBothDoubles),
    ),
);
const IDF_8_2_13: DrawRule = own(
    RuleId::Idf8_2_13,
    5,
    versus(
        Side::of(Forces::OneOf(&[force(1, 3)]))
            .men_on(&["h6"])
            .other_men(Region::RightOfMainRoad),
        Side::of(KING_AND_MAN)
            .kings_on(KingsOn::MainRoad)
            .men_on(&["f8"]),
    ),
);
const IDF_8_2_14: DrawRule = auto(
    RuleId::Idf8_2_14,
    Trigger::QuietMoves {
        moves: 15,
        needs_men: true,
    },
);
const IDF_8_2_24: DrawRule = own(
    RuleId::Idf8_2_24,
    30,
    versus(
        Side::of(Forces::OneOf(&[force(4, 0)])).kings_on(KingsOn::MainRoadAndDouble),
        TWO_KINGS,
    ),
);
const IDF_8_2_25_SMALL: DrawRule = auto(
    RuleId::Idf8_2_25,
    Trigger::EachSideMoves {
        moves: 30,
        situation: Situation::KingsOnBothSides { min: 4, max: 5 },
        yields: true,
    },
);
const IDF_8_2_25_LARGE: DrawRule = auto(
    RuleId::Idf8_2_25,
    Trigger::EachSideMoves {
        moves: 40,
        situation: Situation::KingsOnBothSides { min: 6, max: 7 },
        yields: true,
    },
);

/// IDF section 1 art. 8.2.3-8.2.25 (Russian; Brazilian, Pool and Czech refer to it).
const IDF_DRAWS: &[DrawRule] = &[
    IDF_REPETITION,
    IDF_8_2_4,
    IDF_8_2_5,
    IDF_8_2_6,
    IDF_8_2_7,
    own(
        RuleId::Idf8_2_9,
        5,
        versus(
            Side::of(Forces::OneOf(&[force(1, 3)])).men_on(&["g5", "h4", "h6"]),
            LONE_KING.kings_on(KingsOn::MainRoad),
        ),
    ),
    own(
        RuleId::Idf8_2_10,
        5,
        versus(
            Side::of(TWO_KINGS_AND_MAN)
                .kings_on(KingsOn::MainRoad)
                .men_on(&["a7"]),
            Side::of(KING_AND_MAN).men_on(&["b8"]),
        ),
    ),
    own(
        RuleId::Idf8_2_11,
        5,
        versus(
            Side::of(TWO_KINGS_AND_MAN)
                .kings_on(KingsOn::MainRoad)
                .men_on(&["g1"]),
            Side::of(KING_AND_MAN).men_on(&["h2"]),
        ),
    ),
    own(
        RuleId::Idf8_2_12,
        5,
        versus(
            Side::of(TWO_KINGS_AND_MAN)
                .kings_on(KingsOn::MainRoad)
                .men_on(&["h6"]),
            Side::of(KING_AND_MAN).men_on(&["f8"]),
        ),
    ),
    IDF_8_2_13,
    IDF_8_2_14,
    own(
        RuleId::Idf8_2_15,
        15,
        versus(Side::of(Forces::KingsOnlyAtLeast(3)), LONE_KING),
    ),
    own(
        RuleId::Idf8_2_16,
        15,
        versus(
            Side::of(Forces::OneOf(&[force(3, 0)])),
            Side::of(KING_AND_MAN).men_on(&["h2"]),
        ),
    ),
    own(
        RuleId::Idf8_2_17,
        15,
        versus(
            Side::of(TWO_KINGS_AND_MAN).men_on(&["a1"]),
            Side::of(KING_AND_MAN).men_on(&["a3"]),
        ),
    ),
    thirty(RuleId::Idf8_2_18, &["c1"], &["a3", "a5"]),
    thirty(RuleId::Idf8_2_19, &["c1"], &["a3", "h6"]),
    thirty(RuleId::Idf8_2_20, &["c1"], &["a3", "h4"]),
    thirty(RuleId::Idf8_2_21, &["c1"], &["a3", "f8"]),
    thirty(RuleId::Idf8_2_22, &["e1"], &["a3", "a5"]),
    thirty(RuleId::Idf8_2_23, &["g1"], &["a3", "a5"]),
    IDF_8_2_24,
    IDF_8_2_25_SMALL,
    IDF_8_2_25_LARGE,
];

/// IDF app. 4 art. 8: 8.2.1-8.2.8, 8.2.13-8.2.14, 8.2.24-8.2.25 of the Russian rules.
const PORTUGUESE_DRAWS: &[DrawRule] = &[
    IDF_REPETITION,
    IDF_8_2_4,
    IDF_8_2_5,
    IDF_8_2_6,
    IDF_8_2_7,
    IDF_8_2_13,
    IDF_8_2_14,
    IDF_8_2_24,
    IDF_8_2_25_SMALL,
    IDF_8_2_25_LARGE,
];

/// UA rules 3-8.
const UA_DRAWS: &[DrawRule] = &[
    auto(
        RuleId::Ua3,
        Trigger::Repetition {
            times: 3,
            ignore_side_to_move: false,
            only_classical: false,
        },
    ),
    own(
        RuleId::Ua4,
        15,
        versus(Side::of(Forces::OneOf(&[force(3, 0)])), LONE_KING),
    ),
    auto(
        RuleId::Ua5,
        Trigger::QuietMoves {
            moves: 15,
            needs_men: false,
        },
    ),
    auto(
        RuleId::Ua6,
        Trigger::EachSideMoves {
            moves: 30,
            situation: Situation::KingsOnBothSides { min: 4, max: 5 },
            yields: false,
        },
    ),
    auto(
        RuleId::Ua6,
        Trigger::EachSideMoves {
            moves: 60,
            situation: Situation::KingsOnBothSides { min: 6, max: 7 },
            yields: false,
        },
    ),
    own(
        RuleId::Ua7,
        5,
        versus(
            Side::of(Forces::OneOf(THREE_PIECES)),
            LONE_KING.kings_on(KingsOn::MainRoad),
        ),
    ),
    own(
        RuleId::Ua8,
        5,
        versus(Side::of(Forces::OneOf(UP_TO_TWO)), LONE_KING),
    ),
];

/// IDF app. 5 art. 8.2.3-8.2.4.
const ITALIAN_DRAWS: &[DrawRule] = &[
    DrawRule {
        id: RuleId::Italian8_2_3,
        trigger: Trigger::Repetition {
            times: 4,
            ignore_side_to_move: true,
            only_classical: false,
        },
        decision: Decision::ClaimByEither,
    },
    auto(
        RuleId::Italian8_2_4,
        Trigger::EachSideMoves {
            moves: 40,
            situation: Situation::Any,
            yields: false,
        },
    ),
];

const THREEFOLD_CLAIM: Trigger = Trigger::Repetition {
    times: 3,
    ignore_side_to_move: false,
    only_classical: false,
};

/// INT 3.5.
const INTERNATIONAL_DRAWS: &[DrawRule] = &[
    DrawRule {
        id: RuleId::IntRepetition,
        trigger: THREEFOLD_CLAIM,
        decision: Decision::Claim,
    },
    auto(
        RuleId::Int3_5KingsOnly25,
        Trigger::QuietMoves {
            moves: 25,
            needs_men: false,
        },
    ),
    own(
        RuleId::Int3_5Sixteen,
        16,
        versus(Side::of(Forces::OneOf(THREE_PIECES)), LONE_KING),
    ),
    own(
        RuleId::Int3_5Five,
        5,
        versus(Side::of(Forces::OneOf(UP_TO_TWO)), LONE_KING),
    ),
];

/// FRI 18, 21.1, and threefold repetition (not in the text; see docs/law.md).
const FRISIAN_DRAWS: &[DrawRule] = &[
    DrawRule {
        id: RuleId::FriRepetition,
        trigger: THREEFOLD_CLAIM,
        decision: Decision::Claim,
    },
    auto(
        RuleId::Fri18,
        Trigger::EachSideMoves {
            moves: 7,
            situation: versus(TWO_KINGS, LONE_KING),
            yields: false,
        },
    ),
    auto(RuleId::Fri21_1, Trigger::LoneKings),
];

/// FIDE 5.2.2, 9.2, 9.3, 9.6.
const FIDE_DRAWS: &[DrawRule] = &[
    auto(RuleId::FideDeadPosition, Trigger::DeadPosition),
    DrawRule {
        id: RuleId::Fide9_2,
        trigger: THREEFOLD_CLAIM,
        decision: Decision::Claim,
    },
    DrawRule {
        id: RuleId::Fide9_3,
        trigger: Trigger::QuietMoves {
            moves: 50,
            needs_men: false,
        },
        decision: Decision::Claim,
    },
    auto(
        RuleId::Fide9_6_1,
        Trigger::Repetition {
            times: 5,
            ignore_side_to_move: false,
            only_classical: false,
        },
    ),
    auto(
        RuleId::Fide9_6_2,
        Trigger::QuietMoves {
            moves: 75,
            needs_men: false,
        },
    ),
];

/// IDF s.2 art. 9.2 and 22.5.
const IDF_OFFERS: OfferRules = OfferRules {
    min_moves_each: 20,
    with_own_move: true,
    bar_after_decline: true,
    unrecorded_max_pieces: Some(6),
    endgame_only: false,
    refused_claim_is_offer: false,
};

const fn idf_family(
    id: RulesetId,
    variants: &'static [Variant],
    draws: &'static [DrawRule],
) -> Ruleset {
    Ruleset {
        id,
        variants,
        draws,
        offers: IDF_OFFERS,
        rapid_standard_claims: true,
        no_increment: NoIncrement::RapidAndBlitz,
        flag_needs_mating_material: false,
    }
}

static RUSSIAN_IDF: Ruleset = idf_family(
    RulesetId::RussianIdf,
    &[Variant::Draughts(DraughtsVariant::Russian)],
    IDF_DRAWS,
);
static BRAZILIAN: Ruleset = idf_family(
    RulesetId::Brazilian,
    &[Variant::Draughts(DraughtsVariant::Brazilian)],
    IDF_DRAWS,
);
static POOL: Ruleset = idf_family(
    RulesetId::Pool,
    &[Variant::Draughts(DraughtsVariant::Pool)],
    IDF_DRAWS,
);
static CZECH: Ruleset = idf_family(
    RulesetId::Czech,
    &[Variant::Draughts(DraughtsVariant::Czech)],
    IDF_DRAWS,
);
static PORTUGUESE: Ruleset = idf_family(
    RulesetId::Portuguese,
    &[Variant::Draughts(DraughtsVariant::Portuguese)],
    PORTUGUESE_DRAWS,
);
static RUSSIAN_UA: Ruleset = Ruleset {
    id: RulesetId::RussianUa,
    variants: &[Variant::Draughts(DraughtsVariant::Russian)],
    draws: UA_DRAWS,
    offers: IDF_OFFERS,
    rapid_standard_claims: false,
    no_increment: NoIncrement::Always,
    flag_needs_mating_material: false,
};
static ITALIAN: Ruleset = Ruleset {
    id: RulesetId::Italian,
    variants: &[Variant::Draughts(DraughtsVariant::Italian)],
    draws: ITALIAN_DRAWS,
    offers: IDF_OFFERS,
    rapid_standard_claims: false,
    no_increment: NoIncrement::Never,
    flag_needs_mating_material: false,
};
static INTERNATIONAL: Ruleset = Ruleset {
    id: RulesetId::International,
    variants: &[Variant::Draughts(DraughtsVariant::International)],
    draws: INTERNATIONAL_DRAWS,
    offers: OfferRules {
        unrecorded_max_pieces: None,
        ..IDF_OFFERS
    },
    rapid_standard_claims: false,
    no_increment: NoIncrement::Never,
    flag_needs_mating_material: false,
};
static FRISIAN: Ruleset = Ruleset {
    id: RulesetId::Frisian,
    variants: &[Variant::Draughts(DraughtsVariant::Frisian)],
    draws: FRISIAN_DRAWS,
    offers: OfferRules {
        min_moves_each: 0,
        with_own_move: true,
        bar_after_decline: true,
        unrecorded_max_pieces: None,
        endgame_only: true,
        refused_claim_is_offer: false,
    },
    rapid_standard_claims: false,
    no_increment: NoIncrement::Never,
    flag_needs_mating_material: false,
};
static FIDE: Ruleset = Ruleset {
    id: RulesetId::Fide,
    variants: &[Variant::Chess, Variant::Chess960],
    draws: FIDE_DRAWS,
    offers: OfferRules {
        min_moves_each: 0,
        with_own_move: false,
        bar_after_decline: false,
        unrecorded_max_pieces: None,
        endgame_only: false,
        refused_claim_is_offer: true,
    },
    rapid_standard_claims: false,
    no_increment: NoIncrement::Never,
    flag_needs_mating_material: true,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::law::situation::named_squares;

    #[test]
    fn every_square_in_the_data_is_a_playing_square() {
        for id in RulesetId::ALL {
            for rule in id.rules().draws {
                let sits = match rule.trigger {
                    Trigger::OwnMoves { situation, .. }
                    | Trigger::EachSideMoves { situation, .. } => {
                        vec![situation]
                    }
                    _ => vec![],
                };
                for s in sits {
                    if let Situation::Versus { strong, weak } = s {
                        assert!(named_squares(strong.men_on).is_some(), "{:?}", rule.id);
                        assert!(named_squares(weak.men_on).is_some(), "{:?}", rule.id);
                    }
                }
            }
        }
    }

    #[test]
    fn every_variant_has_a_default_ruleset_that_governs_it() {
        for v in Variant::ALL {
            assert!(RulesetId::default_for(v).rules().variants.contains(&v));
        }
    }
}
