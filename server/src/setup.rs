//! Setting up games, whichever door a player comes through (a WebSocket session or the
//! HTTP Bot and Board API): the checks every proposal passes, and challenges sent,
//! accepted, declined and cancelled. A refusal is a [`Refusal`] with a stable code,
//! which each door answers in its own form; a refused request changes nothing.

use std::sync::Arc;

use shared::law::RulesetId;
use shared::protocol::{
    ChallengeId, ChallengeInfo, DeclineReason, ErrorCode, GameId, ServerMessage, TimeControl,
    UserId, UserInfo,
};
use shared::rules::Variant;

use crate::app::App;
use crate::computer::{ComputerError, ComputerRequest, placement};
use crate::game::GameHandle;
use crate::game::clock::speed_of;
use crate::lobby::{LobbyError, Proposal};
use crate::rating::Perf;

/// Why a request was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The stable code.
    pub code: ErrorCode,
    /// What went wrong, for people.
    pub message: String,
}

impl Refusal {
    /// A refusal with `code`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

impl From<LobbyError> for Refusal {
    fn from(e: LobbyError) -> Refusal {
        Refusal::new(e.code(), e.to_string())
    }
}

impl From<ComputerError> for Refusal {
    fn from(e: ComputerError) -> Refusal {
        Refusal::new(e.code(), e.to_string())
    }
}

impl From<crate::game::GameError> for Refusal {
    fn from(e: crate::game::GameError) -> Refusal {
        Refusal::new(e.code(), e.to_string())
    }
}

/// `shutting_down` while the server drains.
pub fn not_draining(app: &App) -> Result<(), Refusal> {
    if app.draining.is_cancelled() {
        return Err(Refusal::new(
            ErrorCode::ShuttingDown,
            "the server is shutting down",
        ));
    }
    Ok(())
}

/// Bots are never paired by the pools or seeks, as on lichess: they play the games they
/// are challenged to and the challenges they send (`docs/bots.md`, "Bots").
pub fn may_be_paired(user: &UserInfo) -> Result<(), Refusal> {
    if user.bot {
        return Err(Refusal::new(
            ErrorCode::BotNotPaired,
            "bot accounts are not paired by pools or seeks: challenge, or be challenged",
        ));
    }
    Ok(())
}

/// Guests play casual games only.
pub fn may_play_rated(user: &UserInfo, rated: bool) -> Result<(), Refusal> {
    if rated && user.guest {
        return Err(Refusal::new(
            ErrorCode::RatedNeedsAccount,
            "rated games need an account: register or log in",
        ));
    }
    Ok(())
}

/// Does the rule set asked for govern the variant?
pub fn ruleset_fits(variant: Variant, ruleset: Option<RulesetId>) -> Result<(), Refusal> {
    match ruleset {
        Some(r) if !r.rules().variants.contains(&variant) => {
            let name = serde_json::to_value(r).unwrap_or_default();
            Err(Refusal::new(
                ErrorCode::InvalidMessage,
                format!("rule set {name} does not govern {variant}"),
            ))
        }
        _ => Ok(()),
    }
}

/// Can the variant be played on this control? Delay is a FIDE clock mode (FIDE 6.2)
/// that the draughts texts do not know.
pub fn time_control_fits(variant: Variant, tc: TimeControl) -> Result<(), Refusal> {
    tc.fits(variant).map_err(|unfit| {
        Refusal::new(
            ErrorCode::InvalidMessage,
            format!("bad time control `{tc}`: {unfit}"),
        )
    })
}

/// The checks every proposal passes: the server takes games, the rule set and the
/// control fit the variant.
pub fn proposal_fits(app: &App, p: &Proposal) -> Result<(), Refusal> {
    not_draining(app)?;
    ruleset_fits(p.variant, p.ruleset)?;
    time_control_fits(p.variant, p.time_control)
}

/// The user with their rating in the perf of `variant` at `time_control` (from the
/// database; the default rating for guests, or if the database is unreachable).
pub async fn rated_user(
    app: &App,
    user: &UserInfo,
    variant: Variant,
    time_control: TimeControl,
) -> UserInfo {
    let mut user = user.clone();
    user.rating = user.rating.or(Some(app.config.lobby.default_rating));
    if user.guest {
        return user;
    }
    let perf = Perf {
        variant,
        speed: speed_of(variant, time_control),
    };
    match app.db.rating(&user.id.0, perf).await {
        Ok(g) => user.rating = Some(g.rounded()),
        Err(e) => tracing::warn!(error = %e, "cannot read a rating; using the default"),
    }
    user
}

/// `human` plays the computer: on this node if its computer players have room, else
/// (with Redis) on the other node with the most room; `busy` when none has. The game
/// is announced to the human wherever it starts.
pub async fn computer_play(
    app: &Arc<App>,
    human: &UserInfo,
    req: ComputerRequest,
) -> Result<GameId, Refusal> {
    not_draining(app)?;
    time_control_fits(req.variant, req.time_control)?;
    let human = rated_user(app, human, req.variant, req.time_control).await;
    let here = computer_here(app, human.clone(), req.clone()).await;
    let placed = match (here, &app.cluster) {
        (Err(ComputerError::Busy), Some(cluster)) => {
            placement::place_elsewhere(cluster, human, req).await
        }
        (here, _) => here,
    };
    if matches!(placed, Err(ComputerError::Busy)) {
        app.computer.refused_busy();
    }
    Ok(placed?)
}

/// Starts a game of `human` against this node's computer, without looking elsewhere
/// (a node asked by another answers with this).
pub async fn computer_here(
    app: &Arc<App>,
    human: UserInfo,
    req: ComputerRequest,
) -> Result<GameId, ComputerError> {
    if app.draining.is_cancelled() {
        return Err(ComputerError::Busy);
    }
    app.computer.check_engine(req.variant).await?;
    let handle = app.computer.play(&app.games, human, req)?;
    Ok(handle.id().clone())
}

/// `me` challenges `to`: checked, stored in the lobby, and announced to `to`.
pub async fn challenge(
    app: &Arc<App>,
    me: &UserInfo,
    to: UserId,
    proposal: Proposal,
) -> Result<ChallengeInfo, Refusal> {
    proposal_fits(app, &proposal)?;
    let variant = proposal.variant;
    if let Some(fen) = &proposal.fen {
        if proposal.rated {
            return Err(Refusal::new(
                ErrorCode::InvalidPosition,
                "games from a position are casual",
            ));
        }
        if let Err(e) = shared::rules::Position::from_fen(variant, fen) {
            return Err(Refusal::new(
                ErrorCode::InvalidPosition,
                format!("{variant}: {e}"),
            ));
        }
    }
    may_play_rated(me, proposal.rated)?;
    // A blocked user's challenges never reach the blocker (a database that does not
    // answer lets the challenge through: the block cannot be read).
    if app.chat.blocks(&to, &me.id).await.unwrap_or(false) {
        return Err(Refusal::new(
            ErrorCode::Blocked,
            format!("{to} does not take challenges from you"),
        ));
    }
    if to != me.id && !app.presence.is_online(&to).await.unwrap_or(false) {
        return Err(Refusal::new(
            ErrorCode::UserOffline,
            format!("{to} is not online"),
        ));
    }
    let rated_me = rated_user(app, me, variant, proposal.time_control).await;
    let challenge = app.lobby.add_challenge(&rated_me, &to, proposal).await?;
    app.notify_user(
        &to,
        ServerMessage::ChallengeReceived {
            challenge: challenge.clone(),
        },
    );
    Ok(challenge)
}

/// `me` accepts a challenge sent to them: the game starts (announced to both).
pub async fn accept(
    app: &Arc<App>,
    me: &UserInfo,
    challenge_id: ChallengeId,
) -> Result<GameHandle, Refusal> {
    not_draining(app)?;
    let ch = app.lobby.take_challenge(&me.id, challenge_id).await?;
    let proposal = Proposal::from(&ch);
    start_as(app, me, ch.from, &proposal, ch.game_id).await
}

/// Starts the game `proposer` proposed, with `me` as the opponent.
pub async fn start_with(
    app: &Arc<App>,
    me: &UserInfo,
    proposer: UserInfo,
    proposal: &Proposal,
) -> Result<GameHandle, Refusal> {
    start_as(app, me, proposer, proposal, None).await
}

/// [`start_with`], under the game id chosen beforehand, if any.
async fn start_as(
    app: &Arc<App>,
    me: &UserInfo,
    proposer: UserInfo,
    proposal: &Proposal,
    id: Option<GameId>,
) -> Result<GameHandle, Refusal> {
    may_play_rated(me, proposal.rated)?;
    let rated_me = rated_user(app, me, proposal.variant, proposal.time_control).await;
    Ok(app.start_game_as(proposer, rated_me, proposal, id)?)
}

/// `me` declines a challenge sent to them, or cancels one they sent; both sides hear.
pub async fn withdraw(
    app: &Arc<App>,
    me: &UserId,
    challenge_id: ChallengeId,
) -> Result<ChallengeInfo, Refusal> {
    withdraw_with(app, me, challenge_id, None).await
}

/// [`withdraw`], saying why it is declined (both sides hear the reason).
pub async fn withdraw_with(
    app: &Arc<App>,
    me: &UserId,
    challenge_id: ChallengeId,
    reason: Option<DeclineReason>,
) -> Result<ChallengeInfo, Refusal> {
    let ch = app.lobby.remove_challenge(me, challenge_id).await?;
    for user in [&ch.from.id, &ch.to] {
        let removed = ServerMessage::ChallengeRemoved {
            challenge_id,
            reason,
        };
        app.notify_user(user, removed);
    }
    Ok(ch)
}

/// A user's last connection anywhere closed: their seeks, challenges and pool places
/// go, and whoever they challenged (or was challenging them) hears it.
pub async fn last_connection_closed(app: &App, user: &UserId) {
    match app.lobby.remove_user(user).await {
        Ok(dropped) => {
            for ch in dropped {
                let other = if ch.from.id == *user {
                    &ch.to
                } else {
                    &ch.from.id
                };
                app.notify_user(
                    other,
                    ServerMessage::ChallengeRemoved {
                        challenge_id: ch.challenge_id,
                        reason: None,
                    },
                );
            }
        }
        Err(e) => tracing::warn!(error = %e, "lobby cleanup failed"),
    }
}
