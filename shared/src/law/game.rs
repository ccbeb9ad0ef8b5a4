//! The game record above a position: the moves in the variant's notation, the counts
//! behind every draw rule, draw offers and claims, flags, resignation, abort, and the
//! outcome. Every change goes through a method that refuses, with a typed error and no
//! change, anything the law does not allow. The record serialises as its start position
//! and list of actions, and deserialising replays them.

use serde::{Deserialize, Serialize};

use super::offers::{OfferRefusal, Offers};
use super::outcome::{Outcome, Reason, RuleId, Verdict, Via};
use super::rulebook::{Decision, Ruleset, RulesetId, Trigger};
use super::settings::Settings;
use super::tally::{Progress, Tally, standard_on_board};
use crate::rules::{Color, FenError, Move, MoveParseError, Position, Variant};

/// Why an action was refused. Nothing changes when one is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LawError {
    /// The game is over.
    #[error("the game is over")]
    GameOver,
    /// It is the other side's turn.
    #[error("it is {0}'s turn")]
    NotYourTurn(Color),
    /// The move is not legal here.
    #[error("illegal move")]
    IllegalMove,
    /// The move text did not name exactly one legal move.
    #[error(transparent)]
    BadMove(#[from] MoveParseError),
    /// A draw offer or acceptance is not allowed now.
    #[error("{0}")]
    Offer(#[from] OfferRefusal),
    /// There is no offer from the opponent to answer.
    #[error("no draw offer from the opponent is standing")]
    NoOffer,
    /// Both sides have moved: too late to abort.
    #[error("a game can be aborted only before both sides have moved")]
    TooLateToAbort,
    /// The rule set does not govern the start position's variant.
    #[error("rule set {ruleset:?} does not govern {variant}")]
    WrongVariant {
        /// The rule set asked for.
        ruleset: RulesetId,
        /// The start position's variant.
        variant: Variant,
    },
}

/// Why a draw claim was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimRefusal {
    /// No claimable rule is met.
    #[error("no draw rule can be claimed now")]
    NothingToClaim,
    /// A rule is met, but only the player to move may claim it.
    #[error("only the player to move may claim this draw")]
    NotOnTurn,
    /// Repetition is recorded only in classical games (IDF 8.2.3).
    #[error("repetition is recorded only in classical games (IDF 8.2.3)")]
    OnlyInClassical,
}

/// What a move did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    /// The move as recorded, in the variant's notation.
    pub text: String,
    /// The move declined a standing offer of the opponent.
    pub declined_offer: bool,
    /// The game ended with this move.
    pub outcome: Option<Outcome>,
}

/// The answer to a draw claim.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "claim", rename_all = "snake_case")]
pub enum Claim {
    /// The claim was correct: the game is drawn.
    Granted(Outcome),
    /// The claim was not correct.
    Refused {
        /// Why.
        refusal: ClaimRefusal,
        /// The move declared with the claim, which then stands as played (IDF s.2 13,
        /// FIDE 9.5).
        played: Option<Played>,
        /// The claim stands as a draw offer (FIDE 9.1.2.3).
        offered: bool,
    },
}

/// One entry of the action log, from which a game can be replayed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    /// A move, possibly with a draw offer.
    Move {
        /// The mover.
        by: Color,
        /// The move text, sized to it: a game holds one per move.
        text: Box<str>,
        /// A draw offer made with it.
        #[serde(default)]
        offer: bool,
    },
    /// A draw offer on its own.
    Offer {
        /// The offerer.
        by: Color,
    },
    /// An offer accepted.
    Accept {
        /// The accepter.
        by: Color,
    },
    /// An offer declined.
    Decline {
        /// The decliner.
        by: Color,
    },
    /// A draw claim, possibly with the move about to be made.
    Claim {
        /// The claimer.
        by: Color,
        /// The declared move.
        intended: Option<Box<str>>,
    },
    /// Resignation.
    Resign {
        /// Who resigned.
        by: Color,
    },
    /// A flag fell.
    Flag {
        /// Whose.
        by: Color,
    },
    /// Both flags fell, order unknown.
    BothFlags,
    /// The game was aborted.
    Abort {
        /// By whom.
        by: Color,
    },
}

/// What a player may do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actions {
    /// Make a move.
    pub play: bool,
    /// Offer a draw now (after one's own move).
    pub offer_now: bool,
    /// Offer a draw together with the next move (the 22.5 piece limit is checked against
    /// the current position).
    pub offer_with_move: bool,
    /// Accept the opponent's offer.
    pub accept: bool,
    /// Decline the opponent's offer.
    pub decline: bool,
    /// A draw rule that a claim now would be granted by.
    pub claim: Option<RuleId>,
    /// Resign.
    pub resign: bool,
    /// Abort.
    pub abort: bool,
}

/// A game in progress or finished.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "GameRecord", into = "GameRecord")]
pub struct Game {
    ruleset: RulesetId,
    settings: Settings,
    start: Position,
    position: Position,
    /// Where each move played is in `actions` (a move, or a refused claim's declared
    /// move): its text is held once, there.
    moves: Vec<usize>,
    moves_by: [u32; 2],
    tally: Tally,
    offers: Offers,
    outcome: Option<Outcome>,
    actions: Vec<Action>,
}

impl Game {
    /// A game from `start` under a rule set. Refused if the rule set does not govern the
    /// variant. A start position that is already decided (no pieces or no move for a
    /// side, a position drawn at once) gives a game that is already over.
    pub fn new(ruleset: RulesetId, start: Position, settings: Settings) -> Result<Game, LawError> {
        let rules = ruleset.rules();
        let variant = start.variant();
        if !rules.variants.contains(&variant) {
            return Err(LawError::WrongVariant { ruleset, variant });
        }
        let mut game = Game {
            ruleset,
            settings,
            tally: Tally::new(rules, &start),
            position: start.clone(),
            start,
            moves: Vec::new(),
            moves_by: [0; 2],
            offers: Offers::default(),
            outcome: None,
            actions: Vec::new(),
        };
        game.outcome = game.judge();
        Ok(game)
    }

    /// A game of `variant` from its start position under its default rule set.
    pub fn standard(variant: Variant, settings: Settings) -> Game {
        let ruleset = RulesetId::default_for(variant);
        let start = Position::start(variant);
        // The default rule set governs its variant, so this cannot fail; fall back to
        // building by hand all the same rather than panic.
        Game::new(ruleset, start.clone(), settings).unwrap_or_else(|_| Game {
            ruleset,
            settings,
            tally: Tally::new(ruleset.rules(), &start),
            position: start.clone(),
            start,
            moves: Vec::new(),
            moves_by: [0; 2],
            offers: Offers::default(),
            outcome: None,
            actions: Vec::new(),
        })
    }

    /// Replays a list of moves from `start`, each by the side to move.
    pub fn replay<S: AsRef<str>>(
        ruleset: RulesetId,
        start: Position,
        settings: Settings,
        moves: &[S],
    ) -> Result<Game, ReplayError> {
        let mut game = Game::new(ruleset, start, settings).map_err(ReplayError::Start)?;
        for (index, text) in moves.iter().enumerate() {
            let by = game.position.side_to_move();
            game.play_text(by, text.as_ref())
                .map_err(|error| ReplayError::Action { index, error })?;
        }
        Ok(game)
    }

    // ---- queries ------------------------------------------------------------------

    /// The rule set's id.
    pub fn ruleset_id(&self) -> RulesetId {
        self.ruleset
    }

    /// The rule set.
    pub fn ruleset(&self) -> &'static Ruleset {
        self.ruleset.rules()
    }

    /// The game's settings.
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The start position of the record.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.position.side_to_move()
    }

    /// The moves played, in the variant's notation, oldest first.
    pub fn moves(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + Clone {
        self.moves.iter().map(|&at| match self.actions.get(at) {
            Some(
                Action::Move { text, .. }
                | Action::Claim {
                    intended: Some(text),
                    ..
                },
            ) => text,
            // Every index is pushed with its action (`apply`, `claim_draw`).
            _ => "",
        })
    }

    /// Plies played in this record.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Moves made by one side in this record.
    pub fn moves_made(&self, color: Color) -> u32 {
        self.moves_by[color.index()]
    }

    /// The action log.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// How often the current position has occurred, itself included (same side to move).
    pub fn repetitions(&self) -> u8 {
        self.tally.occurrences(&self.position, false)
    }

    /// The progress of every counted draw rule.
    pub fn progress(&self) -> Vec<Progress> {
        self.tally.progress(self.ruleset(), &self.position)
    }

    /// The outcome, once the game is over.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    /// Is the game over?
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The side whose draw offer is standing.
    pub fn pending_offer(&self) -> Option<Color> {
        self.offers.pending
    }

    /// May `by` offer a draw now (after his own move, or at any time in chess)?
    pub fn may_offer(&self, by: Color) -> Result<(), LawError> {
        self.live()?;
        if self.ruleset().offers.with_own_move
            && (self.side_to_move() != by.opponent() || self.moves_made(by) == 0)
        {
            return Err(OfferRefusal::NotAfterOwnMove.into());
        }
        match self.offers.pending {
            Some(c) if c == by => return Err(OfferRefusal::AlreadyOffered.into()),
            Some(_) => return Err(OfferRefusal::OpponentOffered.into()),
            None => {}
        }
        self.offer_conditions(by, &self.position, self.moves_by)
    }

    /// May `by` offer a draw with his next move? (The piece limit of IDF 22.5 is checked
    /// against the current position; [`Game::play_and_offer`] checks the position after.)
    pub fn may_offer_with_move(&self, by: Color) -> Result<(), LawError> {
        self.live()?;
        if self.side_to_move() != by {
            return Err(LawError::NotYourTurn(self.side_to_move()));
        }
        if self.offers.pending == Some(by) {
            return Err(OfferRefusal::AlreadyOffered.into());
        }
        let mut counts = self.moves_by;
        counts[by.index()] += 1;
        self.offer_conditions(by, &self.position, counts)
    }

    /// Why `by` may not offer a draw in his present turn, or `None` when he may (or the
    /// game is over): for the side to move where a draw goes with one's own move
    /// (draughts), with his next move, as [`Game::may_offer_with_move`]; otherwise now,
    /// as [`Game::may_offer`]. A standing offer, which both players see, is left aside:
    /// one's own counts as declined, so that a bar after a decline (IDF s.2 9.2) shows
    /// while it stands. The bar is checked last: it is the only refusal the opponent's
    /// offer lifts. Cheap: no search.
    pub fn offer_refusal(&self, by: Color) -> Option<OfferRefusal> {
        if self.is_over() {
            return None;
        }
        let o = self.ruleset().offers;
        let mut counts = self.moves_by;
        if o.with_own_move {
            if self.side_to_move() == by {
                counts[by.index()] += 1;
            } else if self.moves_made(by) == 0 {
                return Some(OfferRefusal::NotAfterOwnMove);
            }
        }
        let mut offers = self.offers;
        if offers.pending == Some(by) {
            offers.decline_by(by.opponent(), o.bar_after_decline);
        }
        match self.offer_position_conditions(&self.position, counts) {
            Err(LawError::Offer(r)) => Some(r),
            _ if o.bar_after_decline && offers.barred[by.index()] => Some(OfferRefusal::Barred),
            _ => None,
        }
    }

    /// The rule a claim by `by` now would be granted by, or why it would be refused.
    pub fn claimable(&self, by: Color) -> Result<(RuleId, Via), ClaimRefusal> {
        self.claim_check(by, self.side_to_move() == by)
    }

    /// Everything `by` may do now.
    pub fn legal_actions(&self, by: Color) -> Actions {
        let live = !self.is_over();
        let answer = live && self.offers.pending == Some(by.opponent());
        Actions {
            play: live && self.side_to_move() == by,
            offer_now: self.may_offer(by).is_ok(),
            offer_with_move: self.may_offer_with_move(by).is_ok(),
            accept: answer && self.agreement_conditions().is_ok(),
            decline: answer,
            claim: if live {
                self.claimable(by).ok().map(|c| c.0)
            } else {
                None
            },
            resign: live,
            abort: live && !(self.moves_by[0] > 0 && self.moves_by[1] > 0),
        }
    }

    // ---- moves --------------------------------------------------------------------

    /// `by` plays `mv`. A standing offer of the opponent is thereby declined.
    pub fn play(&mut self, by: Color, mv: &Move) -> Result<Played, LawError> {
        self.on_turn(by)?;
        self.apply(by, mv)
    }

    /// `by` plays the move written `text` (short or full route, SAN or UCI).
    pub fn play_text(&mut self, by: Color, text: &str) -> Result<Played, LawError> {
        self.on_turn(by)?;
        let mv = self.position.parse_move(text)?;
        self.apply(by, &mv)
    }

    /// `by` plays `mv` and offers a draw with it (IDF s.2 9.2: move, offer, press the
    /// clock). If the offer is not allowed, neither is made. If the move ends the game
    /// the offer lapses.
    pub fn play_and_offer(&mut self, by: Color, mv: &Move) -> Result<Played, LawError> {
        self.on_turn(by)?;
        let mut next = self.clone();
        let played = next.apply(by, mv)?;
        if next.outcome.is_none() {
            // In chess one's own offer outlives one's move (FIDE 9.1.2.2): offering
            // again with the move changes nothing, and the move is played.
            if next.offers.pending == Some(by) {
                *self = next;
                return Ok(played);
            }
            next.offer_conditions(by, &next.position, next.moves_by)?;
            next.offers.make(by);
            if let Some(Action::Move { offer, .. }) = next.actions.last_mut() {
                *offer = true;
            }
        }
        *self = next;
        Ok(played)
    }

    // ---- offers -------------------------------------------------------------------

    /// `by` offers a draw (in draughts: right after his own move).
    pub fn offer_draw(&mut self, by: Color) -> Result<(), LawError> {
        self.may_offer(by)?;
        self.offers.make(by);
        self.actions.push(Action::Offer { by });
        Ok(())
    }

    /// `by` accepts the opponent's standing offer.
    pub fn accept_draw(&mut self, by: Color) -> Result<Outcome, LawError> {
        self.live()?;
        if self.offers.pending != Some(by.opponent()) {
            return Err(LawError::NoOffer);
        }
        self.agreement_conditions()?;
        self.actions.push(Action::Accept { by });
        Ok(self.finish(Outcome::draw(Reason::Agreement)))
    }

    /// `by` declines the opponent's standing offer.
    pub fn decline_draw(&mut self, by: Color) -> Result<(), LawError> {
        self.live()?;
        if !self
            .offers
            .decline_by(by, self.ruleset().offers.bar_after_decline)
        {
            return Err(LawError::NoOffer);
        }
        self.actions.push(Action::Decline { by });
        Ok(())
    }

    // ---- claims -------------------------------------------------------------------

    /// `by` claims a draw, either on the current position or, with `intended`, on the
    /// position his next move would make (IDF 8.2.3, FIDE 9.2-9.3: the move is written
    /// down, not played). A correct claim ends the game; an incorrect one with a move
    /// lets the move stand as played (IDF s.2 13, FIDE 9.5), and in chess stands as a
    /// draw offer (FIDE 9.1.2.3).
    pub fn claim_draw(&mut self, by: Color, intended: Option<&Move>) -> Result<Claim, LawError> {
        self.live()?;
        let Some(mv) = intended else {
            return Ok(match self.claimable(by) {
                Ok((rule, via)) => {
                    self.actions.push(Action::Claim { by, intended: None });
                    Claim::Granted(self.finish(Outcome::by_rule(rule, via)))
                }
                Err(refusal) => {
                    let offered = self.claim_as_offer(by);
                    self.actions.push(Action::Claim { by, intended: None });
                    Claim::Refused {
                        refusal,
                        played: None,
                        offered,
                    }
                }
            });
        };
        self.on_turn(by)?;
        let mut next = self.clone();
        let played = next.apply(by, mv)?;
        next.actions.pop();
        let action = Action::Claim {
            by,
            intended: Some(played.text.as_str().into()),
        };
        match next.claim_check(by, true) {
            Ok((rule, via)) => {
                self.actions.push(action);
                Ok(Claim::Granted(self.finish(Outcome::by_rule(rule, via))))
            }
            Err(refusal) => {
                let offered = next.outcome.is_none() && next.claim_as_offer(by);
                next.actions.push(action);
                *self = next;
                Ok(Claim::Refused {
                    refusal,
                    played: Some(played),
                    offered,
                })
            }
        }
    }

    // ---- other endings ------------------------------------------------------------

    /// `by` resigns.
    pub fn resign(&mut self, by: Color) -> Result<Outcome, LawError> {
        self.live()?;
        self.actions.push(Action::Resign { by });
        Ok(self.finish(Outcome::win(by.opponent(), Reason::Resignation)))
    }

    /// `by`'s flag fell, as reported by the clock owner. Refused once the game is over
    /// (a flag after a move that left the opponent no piece or no move does not matter,
    /// IDF s.2 7.3.8). In chess a flag is a draw if the opponent cannot mate (FIDE 6.9).
    pub fn flag(&mut self, by: Color) -> Result<Outcome, LawError> {
        self.live()?;
        let winner = by.opponent();
        let cannot_win = match &self.position {
            Position::Chess(c) => self.ruleset().flag_needs_mating_material && !c.can_mate(winner),
            Position::Draughts(_) => false,
        };
        self.actions.push(Action::Flag { by });
        Ok(self.finish(if cannot_win {
            Outcome::draw(Reason::TimeForfeitCannotWin)
        } else {
            Outcome::win(winner, Reason::TimeForfeit)
        }))
    }

    /// Both flags fell and the order cannot be told: a draw (IDF 8.2.2, 22.8; FIDE 6.8 in
    /// the last period, which is the only time the clock owner reports it).
    pub fn both_flags(&mut self) -> Result<Outcome, LawError> {
        self.live()?;
        self.actions.push(Action::BothFlags);
        Ok(self.finish(Outcome::draw(Reason::BothFlags)))
    }

    /// `by` aborts the game: only before both sides have moved.
    pub fn abort(&mut self, by: Color) -> Result<Outcome, LawError> {
        self.live()?;
        if self.moves_by[0] > 0 && self.moves_by[1] > 0 {
            return Err(LawError::TooLateToAbort);
        }
        self.actions.push(Action::Abort { by });
        Ok(self.finish(Outcome {
            result: Verdict::Aborted,
            reason: Reason::Aborted,
        }))
    }

    /// The record: start position, settings and action log, with the moves and the
    /// outcome for readers.
    pub fn record(&self) -> GameRecord {
        GameRecord {
            variant: self.start.variant(),
            ruleset: self.ruleset,
            settings: self.settings,
            start_fen: self.start.fen(),
            actions: self.actions.clone(),
            moves: self.moves().map(str::to_owned).collect(),
            outcome: self.outcome,
        }
    }

    // ---- internals ----------------------------------------------------------------

    fn live(&self) -> Result<(), LawError> {
        if self.outcome.is_some() {
            Err(LawError::GameOver)
        } else {
            Ok(())
        }
    }

    fn on_turn(&self, by: Color) -> Result<(), LawError> {
        self.live()?;
        let side = self.side_to_move();
        if by != side {
            return Err(LawError::NotYourTurn(side));
        }
        Ok(())
    }

    fn finish(&mut self, outcome: Outcome) -> Outcome {
        self.offers.pending = None;
        self.outcome = Some(outcome);
        outcome
    }

    /// Plays a move for the side to move; the caller has checked the turn.
    fn apply(&mut self, by: Color, mv: &Move) -> Result<Played, LawError> {
        let mut next = self.position.clone();
        next.play(mv).map_err(|_| LawError::IllegalMove)?;
        let text = self.position.move_text(mv);
        let rules = self.ruleset();
        self.tally.advance(rules, &self.position, mv, &next);
        self.position = next;
        self.moves_by[by.index()] += 1;
        let declined_offer = self.offers.decline_by(by, rules.offers.bar_after_decline);
        // A claim with this move puts its own action in this one's place.
        self.moves.push(self.actions.len());
        self.actions.push(Action::Move {
            by,
            text: text.as_str().into(),
            offer: false,
        });
        let outcome = self.judge();
        if let Some(o) = outcome {
            self.finish(o);
        }
        Ok(Played {
            text,
            declined_offer,
            outcome,
        })
    }

    /// The outcome the current position imposes, if any: a win when the side to move has
    /// no piece or no move, mate or stalemate, then the automatic draw rules in rule-book
    /// order, then IDF 22.7 / UA 9.
    fn judge(&self) -> Option<Outcome> {
        let pos = &self.position;
        let to_move = pos.side_to_move();
        match pos {
            Position::Draughts(p) => {
                if p.pieces(to_move) == 0 {
                    return Some(Outcome::win(to_move.opponent(), Reason::NoPieces));
                }
                if p.pieces(to_move.opponent()) == 0 {
                    return Some(Outcome::win(to_move, Reason::NoPieces));
                }
                if p.legal_moves().is_empty() {
                    return Some(Outcome::win(to_move.opponent(), Reason::NoLegalMove));
                }
            }
            Position::Chess(c) => {
                if c.is_checkmate() {
                    return Some(Outcome::win(to_move.opponent(), Reason::Checkmate));
                }
                if c.is_stalemate() {
                    return Some(Outcome::draw(Reason::Stalemate));
                }
            }
        }
        let rules = self.ruleset();
        for (i, rule) in rules.draws.iter().enumerate() {
            if rule.decision == Decision::Automatic
                && self.tally.met(rules, i, pos, self.settings.category)
            {
                return Some(Outcome::by_rule(rule.id, Via::Automatic));
            }
        }
        if !self.settings.increment
            && rules.no_increment.applies(self.settings.category)
            && let Some(rule) = standard_on_board(rules, pos)
            && let Position::Draughts(p) = pos
            && !p.has_capture()
        {
            return Some(Outcome::by_rule(rule, Via::NoIncrement));
        }
        None
    }

    /// The conditions on the game, not the turn, for `by` to offer a draw.
    fn offer_conditions(
        &self,
        _by: Color,
        pos: &Position,
        moves_by: [u32; 2],
    ) -> Result<(), LawError> {
        let o = self.ruleset().offers;
        if o.bar_after_decline && self.offers.barred[_by.index()] {
            return Err(OfferRefusal::Barred.into());
        }
        self.offer_position_conditions(pos, moves_by)
    }

    /// The conditions of [`Game::offer_conditions`] on the position and the move
    /// counts alone (no bar).
    fn offer_position_conditions(
        &self,
        pos: &Position,
        moves_by: [u32; 2],
    ) -> Result<(), LawError> {
        let o = self.ruleset().offers;
        match (self.settings.recorded, o.unrecorded_max_pieces) {
            (false, Some(max)) => pieces_within(pos, max)?,
            _ => {
                let required = self
                    .settings
                    .min_moves_for_agreement
                    .unwrap_or(o.min_moves_each);
                if moves_by.iter().any(|&n| n < required) {
                    return Err(OfferRefusal::TooEarly { required }.into());
                }
            }
        }
        if o.endgame_only
            && let Position::Draughts(p) = pos
            && p.kings() == 0
        {
            return Err(OfferRefusal::NotEndgame.into());
        }
        Ok(())
    }

    /// The conditions on the position for a draw to be agreed now (IDF 22.5).
    fn agreement_conditions(&self) -> Result<(), LawError> {
        match (
            self.settings.recorded,
            self.ruleset().offers.unrecorded_max_pieces,
        ) {
            (false, Some(max)) => pieces_within(&self.position, max),
            _ => Ok(()),
        }
    }

    /// Which claimable rule is met in the current position; `on_turn` says whether the
    /// claimer is the player whose turn the claim is made on.
    fn claim_check(&self, by: Color, on_turn: bool) -> Result<(RuleId, Via), ClaimRefusal> {
        let _ = by;
        let rules = self.ruleset();
        let pos = &self.position;
        let mut refusal = ClaimRefusal::NothingToClaim;
        for (i, rule) in rules.draws.iter().enumerate() {
            if rule.decision == Decision::Automatic {
                continue;
            }
            if !self.tally.met(rules, i, pos, self.settings.category) {
                if let Trigger::Repetition {
                    times,
                    ignore_side_to_move,
                    only_classical: true,
                } = rule.trigger
                    && !self.settings.is_classical()
                    && self.tally.occurrences(pos, ignore_side_to_move) >= times
                {
                    refusal = ClaimRefusal::OnlyInClassical;
                }
                continue;
            }
            if rule.decision == Decision::Claim && !on_turn {
                refusal = ClaimRefusal::NotOnTurn;
                continue;
            }
            return Ok((rule.id, Via::Claim));
        }
        if rules.rapid_standard_claims
            && !self.settings.is_classical()
            && let Some(rule) = standard_on_board(rules, pos)
        {
            return Ok((rule, Via::RapidClaim));
        }
        Err(refusal)
    }

    /// FIDE 9.1.2.3: a refused claim stands as an offer, if an offer could be made.
    fn claim_as_offer(&mut self, by: Color) -> bool {
        let o = self.ruleset().offers;
        if o.refused_claim_is_offer
            && self.offers.pending.is_none()
            && self
                .offer_conditions(by, &self.position, self.moves_by)
                .is_ok()
        {
            self.offers.make(by);
            true
        } else {
            false
        }
    }
}

fn pieces_within(pos: &Position, max: u8) -> Result<(), LawError> {
    if let Position::Draughts(p) = pos
        && [Color::White, Color::Black]
            .iter()
            .any(|&c| p.pieces(c).count_ones() > u32::from(max))
    {
        return Err(OfferRefusal::TooManyPieces { max }.into());
    }
    Ok(())
}

/// Why a record could not be replayed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The start FEN is not valid.
    #[error("bad start position: {0}")]
    Fen(#[from] FenError),
    /// The game could not be set up.
    #[error("cannot start the game: {0}")]
    Start(LawError),
    /// An action was refused.
    #[error("action {index} was refused: {error}")]
    Action {
        /// Its index in the list.
        index: usize,
        /// Why.
        error: LawError,
    },
    /// A claim in the log came out differently.
    #[error("action {index}: the claim came out differently on replay")]
    ClaimMismatch {
        /// Its index in the log.
        index: usize,
    },
    /// The stored outcome differs from the replayed one.
    #[error("the stored outcome differs from the replayed one")]
    OutcomeMismatch,
}

/// A game as stored: enough to replay it, plus the moves and outcome for readers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The variant.
    pub variant: Variant,
    /// The rule set.
    pub ruleset: RulesetId,
    /// The settings.
    pub settings: Settings,
    /// The start position.
    pub start_fen: String,
    /// Every action, in order.
    pub actions: Vec<Action>,
    /// The moves (derived; checked on replay).
    #[serde(default)]
    pub moves: Vec<String>,
    /// The outcome (derived; checked on replay).
    #[serde(default)]
    pub outcome: Option<Outcome>,
}

impl GameRecord {
    /// Rebuilds the game by replaying the actions.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let start = Position::from_fen(self.variant, &self.start_fen)?;
        let mut g = Game::new(self.ruleset, start, self.settings).map_err(ReplayError::Start)?;
        for (index, action) in self.actions.iter().enumerate() {
            let fail = |error| ReplayError::Action { index, error };
            match action {
                Action::Move { by, text, offer } => {
                    let mv = g.position.parse_move(text).map_err(|e| fail(e.into()))?;
                    if *offer {
                        g.play_and_offer(*by, &mv).map_err(fail)?;
                    } else {
                        g.play(*by, &mv).map_err(fail)?;
                    }
                }
                Action::Offer { by } => g.offer_draw(*by).map_err(fail)?,
                Action::Accept { by } => {
                    g.accept_draw(*by).map_err(fail)?;
                }
                Action::Decline { by } => g.decline_draw(*by).map_err(fail)?,
                Action::Claim { by, intended } => {
                    let mv = match intended {
                        Some(t) => Some(g.position.parse_move(t).map_err(|e| fail(e.into()))?),
                        None => None,
                    };
                    g.claim_draw(*by, mv.as_ref()).map_err(fail)?;
                }
                Action::Resign { by } => {
                    g.resign(*by).map_err(fail)?;
                }
                Action::Flag { by } => {
                    g.flag(*by).map_err(fail)?;
                }
                Action::BothFlags => {
                    g.both_flags().map_err(fail)?;
                }
                Action::Abort { by } => {
                    g.abort(*by).map_err(fail)?;
                }
            }
            if g.actions.len() != index + 1 {
                return Err(ReplayError::ClaimMismatch { index });
            }
        }
        let same_moves = || g.moves().eq(self.moves.iter().map(String::as_str));
        if g.outcome != self.outcome || (!self.moves.is_empty() && !same_moves()) {
            return Err(ReplayError::OutcomeMismatch);
        }
        Ok(g)
    }
}

impl Game {
    /// The game as it was before its last `plies` moves (a takeback), with every offer,
    /// decline and claim made before them kept: the record's actions are replayed up to
    /// the first move taken back.
    pub fn without_last_moves(&self, plies: usize) -> Result<Game, ReplayError> {
        let keep_moves = self.moves.len().saturating_sub(plies);
        let mut seen = 0;
        let cut = self
            .actions
            .iter()
            .position(|a| {
                // A claim with a declared move in a live record was refused, so its
                // move stands as played (IDF s.2 13, FIDE 9.5): it counts as a move.
                if matches!(
                    a,
                    Action::Move { .. }
                        | Action::Claim {
                            intended: Some(_),
                            ..
                        }
                ) {
                    seen += 1;
                }
                seen > keep_moves
            })
            .unwrap_or(self.actions.len());
        let mut record = self.record();
        if cut < record.actions.len() {
            // Whatever ended the game came after the first move taken back.
            record.actions.truncate(cut);
            record.outcome = None;
        }
        record.moves.truncate(keep_moves);
        record.replay()
    }
}

impl From<Game> for GameRecord {
    fn from(g: Game) -> GameRecord {
        g.record()
    }
}

impl TryFrom<GameRecord> for Game {
    type Error = ReplayError;

    fn try_from(r: GameRecord) -> Result<Game, ReplayError> {
        r.replay()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_takes_24_bytes_and_its_text_is_sized_to_it() {
        // A live game holds one action per move: a `String` made it 32 bytes and kept
        // the text's spare capacity.
        assert!(std::mem::size_of::<Action>() <= 24);
        let action = Action::Move {
            by: Color::White,
            text: "32-28".into(),
            offer: false,
        };
        let json = serde_json::to_string(&action).unwrap();
        assert_eq!(
            json,
            r#"{"action":"move","by":"white","text":"32-28","offer":false}"#
        );
        assert_eq!(serde_json::from_str::<Action>(&json).unwrap(), action);
    }
}
