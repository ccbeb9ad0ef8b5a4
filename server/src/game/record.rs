//! The actor's view of `shared::law`: a [`law::Game`] (position, moves, draw rules,
//! offers, claims, flags, outcome), with its errors mapped to [`GameError`] and its
//! outcomes to the wire's [`Outcome`]. The law decides; this file only translates, and
//! adds the two endings the law does not know (a claim against an abandoning player,
//! and takebacks, done by replaying the moves that remain).

use shared::law::{
    self, Claim, ClaimRefusal, LawError, OfferRefusal, Reason, RuleId, RulesetId, Settings, Verdict,
};
use shared::protocol::{Outcome, OutcomeReason, Speed};
use shared::rules::{Color, MoveInfo, Position, Variant};

use super::GameError;

/// What a move did, for the actor's events.
#[derive(Clone, Debug)]
pub struct PlayedMove {
    /// The move described for clients.
    pub info: MoveInfo,
    /// It declined the opponent's standing draw offer.
    pub declined_offer: bool,
    /// A draw offer was made with it.
    pub offered: bool,
}

/// A refused draw claim.
#[derive(Clone, Debug)]
pub struct ClaimFailure {
    /// Why, for the player.
    pub message: String,
    /// The claim stands as a draw offer (chess, FIDE 9.1.2.3).
    pub offered: bool,
    /// The move declared with the claim, which stands as played (IDF s.2 13, FIDE 9.5).
    pub played: Option<PlayedMove>,
}

/// Position, history and result of one game, under its variant's default rule set.
#[derive(Clone, Debug)]
pub struct Record {
    game: law::Game,
    /// An ending from outside the law (abandonment).
    external: Option<Outcome>,
    /// How many times the law's record was rebuilt rather than extended (takebacks):
    /// a replica that saw another count must write the game whole.
    rewrites: u64,
    /// The last move described, for a state sent to a page that joins late (it marks
    /// the move); kept with every move, found by replaying after a takeback or restore.
    last: Option<MoveInfo>,
}

/// The last move of `game` described, found by replaying its moves from the start.
fn replay_last(game: &law::Game) -> Option<MoveInfo> {
    let mut before = game.moves();
    let last = before.next_back()?;
    let mut pos = game.start().clone();
    for text in before {
        let mv = pos.parse_move(text).ok()?;
        pos.play(&mv).ok()?;
    }
    let mv = pos.parse_move(last).ok()?;
    Some(pos.move_info(&mv))
}

/// The law's settings for a game: its speed (bullet counts as blitz), recorded only in
/// classical play, and whether the clock adds an increment.
pub fn settings_for(speed: Speed, increment: bool) -> Settings {
    match speed {
        Speed::Classical => Settings {
            increment,
            ..Settings::classical()
        },
        Speed::Rapid => Settings::rapid(increment),
        Speed::Bullet | Speed::Blitz => Settings::blitz(increment),
    }
}

/// The article behind an offer refusal under a rule set, for the player's message.
pub fn offer_article(ruleset: RulesetId, refusal: OfferRefusal) -> &'static str {
    match (ruleset, refusal) {
        (RulesetId::Fide, OfferRefusal::TooEarly { .. }) => "FIDE 9.1.1",
        (RulesetId::Fide, _) => "FIDE 9.1.2",
        (_, OfferRefusal::NotEndgame) | (RulesetId::Frisian, _) => "FRI 21.2",
        (RulesetId::RussianUa, _) => "UA rule 1",
        (_, OfferRefusal::TooManyPieces { .. }) => "IDF s.2 22.5",
        (RulesetId::International, _) => "IDF s.2 9.2, as damka applies it to International",
        (RulesetId::Italian, _) => "IDF s.2 9.2, as damka applies it to Italian",
        _ => "IDF s.2 9.2",
    }
}

/// The article behind a claim refusal under a rule set, for the player's message
/// (`None` when the refusal's own text names it).
pub fn claim_article(ruleset: RulesetId, refusal: ClaimRefusal) -> Option<&'static str> {
    Some(match (ruleset, refusal) {
        (_, ClaimRefusal::OnlyInClassical) => return None,
        (RulesetId::Fide, ClaimRefusal::NotOnTurn) => "FIDE 9.2",
        (RulesetId::Fide, _) => "FIDE 9.2-9.3",
        (_, ClaimRefusal::NotOnTurn) => "IDF 8.2.3",
        (RulesetId::RussianUa, _) => "UA rules 3-8",
        (RulesetId::Italian, _) => "IDF app. 5 8.2.3-8.2.4",
        (RulesetId::International, _) => "INT 3.5",
        (RulesetId::Frisian, _) => "FRI 18, 21",
        _ => "IDF 8.2, s.2 22.6",
    })
}

/// A law refusal as a game error; offer refusals name the article of `ruleset`.
fn refused_under(ruleset: RulesetId) -> impl Fn(LawError) -> GameError {
    move |e| match e {
        LawError::Offer(r) => {
            GameError::DrawOfferNotAllowed(format!("{r} ({})", offer_article(ruleset, r)))
        }
        e => refused(e),
    }
}

/// A law refusal as a game error.
fn refused(e: LawError) -> GameError {
    match e {
        LawError::GameOver => GameError::Over,
        LawError::NotYourTurn(_) => GameError::NotYourTurn,
        LawError::IllegalMove => GameError::IllegalMove("illegal move".into()),
        LawError::BadMove(e) => GameError::IllegalMove(e.to_string()),
        LawError::Offer(r) => GameError::DrawOfferNotAllowed(r.to_string()),
        LawError::NoOffer => GameError::NoOffer,
        LawError::TooLateToAbort => GameError::AbortNotAllowed,
        e @ LawError::WrongVariant { .. } => GameError::Law(e.to_string()),
    }
}

/// Is this draw rule a repetition rule?
fn is_repetition(rule: RuleId) -> bool {
    matches!(
        rule,
        RuleId::Idf8_2_3
            | RuleId::Ua3
            | RuleId::Italian8_2_3
            | RuleId::IntRepetition
            | RuleId::FriRepetition
            | RuleId::Fide9_2
            | RuleId::Fide9_6_1
    )
}

/// The law's outcome on the wire.
pub fn wire_outcome(outcome: &law::Outcome) -> Outcome {
    let winner = match outcome.result {
        Verdict::Win(c) => Some(c),
        Verdict::Draw | Verdict::Aborted => None,
    };
    let (reason, detail) = match outcome.reason {
        Reason::NoPieces => (OutcomeReason::NoPieces, None),
        Reason::NoLegalMove => (OutcomeReason::NoMoves, None),
        Reason::Checkmate => (OutcomeReason::Checkmate, None),
        Reason::Stalemate => (OutcomeReason::Stalemate, None),
        Reason::Resignation => (OutcomeReason::Resignation, None),
        Reason::TimeForfeit => (OutcomeReason::Timeout, None),
        Reason::TimeForfeitCannotWin => (
            OutcomeReason::Timeout,
            Some("the opponent cannot win (FIDE 6.9)".to_string()),
        ),
        Reason::BothFlags => (OutcomeReason::Timeout, Some("both flags fell".to_string())),
        Reason::Agreement => (OutcomeReason::Agreement, None),
        Reason::Aborted => (OutcomeReason::Aborted, None),
        Reason::Rule { rule, .. } => {
            let reason = if is_repetition(rule) {
                OutcomeReason::Repetition
            } else if rule == RuleId::FideDeadPosition {
                OutcomeReason::InsufficientMaterial
            } else if rule.is_standard() {
                OutcomeReason::RuleDraw
            } else {
                OutcomeReason::MoveRule
            };
            (reason, Some(rule.article().to_string()))
        }
    };
    Outcome {
        winner,
        reason,
        detail,
    }
}

impl Record {
    /// A game of `variant` from its start position.
    pub fn new(variant: Variant, settings: Settings) -> Record {
        Record {
            game: law::Game::standard(variant, settings),
            external: None,
            rewrites: 0,
            last: None,
        }
    }

    /// The law's game and the external ending, for a snapshot.
    pub fn parts(&self) -> (&law::Game, Option<&Outcome>) {
        (&self.game, self.external.as_ref())
    }

    /// A record from a snapshot's parts.
    pub fn from_parts(game: law::Game, external: Option<Outcome>) -> Record {
        Record {
            last: replay_last(&game),
            game,
            external,
            rewrites: 0,
        }
    }

    /// The record a new game of `spec` starts with: its start position, under the
    /// variant's default rule set with the law settings of its speed and increment.
    pub fn for_spec(spec: &super::GameSpec) -> Result<Record, GameError> {
        let increment = spec.time_control.has_increment();
        let settings = settings_for(
            super::clock::speed_of(spec.variant, spec.time_control),
            increment,
        );
        let ruleset = spec
            .ruleset
            .unwrap_or_else(|| law::RulesetId::default_for(spec.variant));
        let start = match &spec.start_fen {
            Some(fen) => Position::from_fen(spec.variant, fen)
                .map_err(|e| GameError::Law(format!("start position: {e}")))?,
            None => Position::start(spec.variant),
        };
        let game =
            law::Game::new(ruleset, start, settings).map_err(|e| GameError::Law(e.to_string()))?;
        Ok(Record {
            game,
            external: None,
            rewrites: 0,
            last: None,
        })
    }

    /// The rule set the game is played under.
    pub fn ruleset(&self) -> law::RulesetId {
        self.game.ruleset_id()
    }

    /// Moves `color` has made in this game.
    pub fn moves_made(&self, color: Color) -> u32 {
        self.game.moves_made(color)
    }

    /// Who moves first in this game (Black in some games from a position).
    pub fn first_to_move(&self) -> Color {
        self.game.start().side_to_move()
    }

    /// `by` plays a move typed by a client, with a draw offer if `offer`.
    pub fn play(&mut self, by: Color, text: &str, offer: bool) -> Result<PlayedMove, GameError> {
        if self.external.is_some() {
            return Err(GameError::Over);
        }
        let position = self.game.position();
        if position.side_to_move() != by && !self.game.is_over() {
            return Err(GameError::NotYourTurn);
        }
        let mv = position
            .parse_move(text)
            .map_err(|e| GameError::IllegalMove(e.to_string()))?;
        let info = position.move_info(&mv);
        let played = if offer {
            self.game.play_and_offer(by, &mv)
        } else {
            self.game.play(by, &mv)
        }
        .map_err(refused_under(self.ruleset()))?;
        self.last = Some(info.clone());
        Ok(PlayedMove {
            info,
            declined_offer: played.declined_offer,
            offered: offer && played.outcome.is_none(),
        })
    }

    /// Takes back the last `plies` moves by replaying everything before them: offers,
    /// declines and claims made earlier stand as they were.
    pub fn take_back(&mut self, plies: usize) -> Result<(), GameError> {
        self.game = self
            .game
            .without_last_moves(plies)
            .map_err(|e| GameError::Law(e.to_string()))?;
        self.rewrites += 1;
        self.last = replay_last(&self.game);
        Ok(())
    }

    /// How many takebacks rebuilt the law's record so far (see `Record::take_back`).
    pub fn rewrites(&self) -> u64 {
        self.rewrites
    }

    /// `by` offers a draw.
    pub fn offer_draw(&mut self, by: Color) -> Result<(), GameError> {
        self.game
            .offer_draw(by)
            .map_err(refused_under(self.ruleset()))
    }

    /// `by` accepts the opponent's offer.
    pub fn accept_draw(&mut self, by: Color) -> Result<Outcome, GameError> {
        self.game
            .accept_draw(by)
            .map(|o| wire_outcome(&o))
            .map_err(refused_under(self.ruleset()))
    }

    /// `by` declines the opponent's offer.
    pub fn decline_draw(&mut self, by: Color) -> Result<(), GameError> {
        self.game.decline_draw(by).map_err(refused)
    }

    /// `by` claims a draw by rule on the current position or, with `intended`, on the
    /// position that declared move makes. A refused claim with a move plays the move.
    pub fn claim_draw(
        &mut self,
        by: Color,
        intended: Option<&str>,
    ) -> Result<Result<Outcome, ClaimFailure>, GameError> {
        let ruleset = self.ruleset();
        let (mv, info) = match intended {
            Some(text) => {
                if self.external.is_some() || self.game.is_over() {
                    return Err(GameError::Over);
                }
                if self.game.side_to_move() != by {
                    return Err(GameError::NotYourTurn);
                }
                let position = self.game.position();
                let mv = position
                    .parse_move(text)
                    .map_err(|e| GameError::IllegalMove(e.to_string()))?;
                let info = position.move_info(&mv);
                (Some(mv), Some(info))
            }
            None => (None, None),
        };
        match self.game.claim_draw(by, mv.as_ref()).map_err(refused)? {
            Claim::Granted(o) => Ok(Ok(wire_outcome(&o))),
            Claim::Refused {
                refusal,
                offered,
                played,
            } => {
                if played.is_some() {
                    self.last.clone_from(&info);
                }
                let mut message = match claim_article(ruleset, refusal) {
                    Some(article) => format!("{refusal} ({article})"),
                    None => refusal.to_string(),
                };
                if let Some(p) = &played {
                    message.push_str(&format!(
                        "; the declared move {} stands as played (IDF s.2 13, FIDE 9.5)",
                        p.text
                    ));
                }
                Ok(Err(ClaimFailure {
                    message,
                    offered,
                    played: played.zip(info).map(|(p, info)| PlayedMove {
                        info,
                        declined_offer: p.declined_offer,
                        offered: false,
                    }),
                }))
            }
        }
    }

    /// `by` resigns.
    pub fn resign(&mut self, by: Color) -> Result<Outcome, GameError> {
        self.game
            .resign(by)
            .map(|o| wire_outcome(&o))
            .map_err(refused)
    }

    /// `by` aborts (only before both sides have moved).
    pub fn abort(&mut self, by: Color) -> Result<Outcome, GameError> {
        self.game
            .abort(by)
            .map(|o| wire_outcome(&o))
            .map_err(refused)
    }

    /// `loser`'s flag fell: a win for the opponent, or a draw if the opponent cannot win.
    pub fn flag(&mut self, loser: Color) -> Result<Outcome, GameError> {
        self.game
            .flag(loser)
            .map(|o| wire_outcome(&o))
            .map_err(refused)
    }

    /// Ends the game with a result the law does not know (abandonment).
    pub fn finish_external(&mut self, outcome: Outcome) {
        self.external = Some(outcome);
    }

    /// The result, once over.
    pub fn outcome(&self) -> Option<Outcome> {
        self.external
            .clone()
            .or_else(|| self.game.outcome().map(wire_outcome))
    }

    /// The side whose draw offer stands.
    pub fn pending_offer(&self) -> Option<Color> {
        self.game.pending_offer()
    }

    /// Why `by` may not offer a draw in his present turn, or `None` if he may (cheap:
    /// no search; see [`law::Game::offer_refusal`]).
    pub fn offer_refusal(&self, by: Color) -> Option<law::OfferRefusal> {
        self.game.offer_refusal(by)
    }

    /// Start position FEN.
    pub fn initial_fen(&self) -> String {
        self.game.start().fen()
    }

    /// Current FEN.
    pub fn fen(&self) -> String {
        self.game.position().fen()
    }

    /// Current position.
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// Every move so far.
    pub fn moves(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator {
        self.game.moves()
    }

    /// The last move described (`None` before the first).
    pub fn last_move(&self) -> Option<&MoveInfo> {
        self.last.as_ref()
    }

    /// Plies played.
    pub fn ply(&self) -> usize {
        self.game.ply()
    }

    /// Side to move.
    pub fn turn(&self) -> Color {
        self.game.side_to_move()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::rules::draughts::DraughtsVariant;

    #[test]
    fn law_outcomes_on_the_wire() {
        let mut r = Record::new(
            Variant::Draughts(DraughtsVariant::Russian),
            settings_for(Speed::Blitz, true),
        );
        r.play(Color::White, "c3-d4", false).unwrap();
        assert!(matches!(
            r.play(Color::White, "d4-e5", false),
            Err(GameError::NotYourTurn)
        ));
        assert!(matches!(
            r.play(Color::Black, "a1-b2", false),
            Err(GameError::IllegalMove(_))
        ));
        r.take_back(1).unwrap();
        assert_eq!(r.ply(), 0);
        let o = r.resign(Color::White).unwrap();
        assert_eq!(o.winner, Some(Color::Black));
        assert_eq!(o.reason, OutcomeReason::Resignation);
        assert_eq!(r.outcome(), Some(o));
        assert!(matches!(r.resign(Color::Black), Err(GameError::Over)));
    }

    /// The last move a late page marks: kept with each move, found again by replaying
    /// after a takeback and from a snapshot's parts, none before the first move.
    #[test]
    fn last_move_follows_moves_takebacks_and_restores() {
        let mut r = Record::new(
            Variant::Draughts(DraughtsVariant::Russian),
            settings_for(Speed::Blitz, true),
        );
        assert!(r.last_move().is_none());
        for (by, text) in [
            (Color::White, "c3-d4"),
            (Color::Black, "f6-e5"),
            (Color::White, "d4:f6"),
        ] {
            r.play(by, text, false).unwrap();
        }
        let last = r.last_move().cloned().unwrap();
        assert_eq!((last.text.as_str(), last.captures.len()), ("d4:f6", 1));
        let (game, external) = r.parts();
        let restored = Record::from_parts(game.clone(), external.cloned());
        assert_eq!(restored.last_move(), Some(&last));
        r.take_back(1).unwrap();
        assert_eq!(r.last_move().map(|m| m.text.as_str()), Some("f6-e5"));
        r.take_back(2).unwrap();
        assert!(r.last_move().is_none());
    }
}
