//! What a session does with each decoded client message: lobby requests go to the
//! lobby, game commands to the game's actor through its handle; every refusal is
//! answered with a typed `error`.

use shared::protocol::{
    ClientMessage, ErrorCode, GameId, PROTOCOL_VERSION, ServerMessage, TimeControl, UserInfo, close,
};

use shared::law::RulesetId;
use shared::rules::Variant;

use super::Session;
use super::tv::Tv;
use crate::game::clock::speed_of;
use crate::game::{GameHandle, Intent, Role};
use crate::lobby::{LobbyError, PoolEntry, Proposal};
use crate::rating::Perf;

impl Session {
    fn tournament_error(&self, e: &crate::tournament::TournamentError) {
        use crate::tournament::TournamentError as E;
        let code = match e {
            E::NotFound(_) => ErrorCode::TournamentNotFound,
            E::NotInTournament => ErrorCode::NotInTournament,
            E::Spec(_) => ErrorCode::InvalidMessage,
            E::Store(_) => ErrorCode::Unavailable,
            E::NoRoundToStart(_) => ErrorCode::NoRoundToStart,
        };
        self.error(code, e.to_string());
    }

    /// Handles one message (`auth` is handled by the session loop).
    pub(super) async fn on_message(&mut self, msg: ClientMessage) {
        if !self.hello_done {
            match msg {
                ClientMessage::Hello { protocol, .. } => self.hello(protocol),
                _ => self.error(ErrorCode::HelloRequired, "send `hello` first"),
            }
            return;
        }
        match msg {
            ClientMessage::Hello { protocol, .. } => self.hello(protocol),
            ClientMessage::Auth { .. } => {}
            ClientMessage::Ping { id } => {
                self.out.send(&ServerMessage::Pong {
                    id,
                    lag_ms: self.lag_ms,
                });
            }
            ClientMessage::ListSeeks => match self.app.lobby.seeks().await {
                Ok(seeks) => {
                    self.out.send(&ServerMessage::Seeks { seeks });
                }
                Err(e) => self.lobby_error(&e),
            },
            ClientMessage::Seek {
                variant,
                time_control,
                rated,
                color,
                ruleset,
            } => {
                if self.refuse_if_draining()
                    || !self.ruleset_fits(variant, ruleset)
                    || !self.time_control_fits(variant, time_control)
                    || !self.may_play_rated(rated)
                {
                    return;
                }
                let proposal = Proposal {
                    variant,
                    time_control,
                    rated,
                    color,
                    fen: None,
                    ruleset,
                };
                let me = self.me_for(variant, time_control).await;
                match self.app.lobby.add_seek(&me, proposal).await {
                    Ok(seek) => {
                        self.out.send(&ServerMessage::SeekCreated { seek });
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::CancelSeek { seek_id } => {
                match self
                    .app
                    .lobby
                    .cancel_seek(&self.identity.user.id, seek_id)
                    .await
                {
                    Ok(_) => {
                        self.out.send(&ServerMessage::SeekRemoved { seek_id });
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::AcceptSeek { seek_id } => {
                if self.refuse_if_draining() {
                    return;
                }
                match self
                    .app
                    .lobby
                    .take_seek(&self.identity.user.id, seek_id)
                    .await
                {
                    Ok(seek) => {
                        self.app
                            .notify_user(&seek.user.id, ServerMessage::SeekRemoved { seek_id });
                        let proposal = Proposal::from(&seek);
                        self.start_with(seek.user, &proposal).await;
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::Challenge {
                user,
                variant,
                time_control,
                rated,
                color,
                fen,
                ruleset,
            } => {
                if self.refuse_if_draining()
                    || !self.ruleset_fits(variant, ruleset)
                    || !self.time_control_fits(variant, time_control)
                {
                    return;
                }
                if let Some(fen) = &fen {
                    if rated {
                        self.error(
                            ErrorCode::InvalidPosition,
                            "games from a position are casual",
                        );
                        return;
                    }
                    if let Err(e) = shared::rules::Position::from_fen(variant, fen) {
                        self.error(ErrorCode::InvalidPosition, format!("{variant}: {e}"));
                        return;
                    }
                }
                if !self.may_play_rated(rated) {
                    return;
                }
                if user != self.identity.user.id
                    && !self.app.presence.is_online(&user).await.unwrap_or(false)
                {
                    self.error(ErrorCode::UserOffline, format!("{user} is not online"));
                    return;
                }
                let proposal = Proposal {
                    variant,
                    time_control,
                    rated,
                    color,
                    fen,
                    ruleset,
                };
                match self
                    .app
                    .lobby
                    .add_challenge(&self.me_for(variant, time_control).await, &user, proposal)
                    .await
                {
                    Ok(challenge) => {
                        self.app.notify_user(
                            &user,
                            ServerMessage::ChallengeReceived {
                                challenge: challenge.clone(),
                            },
                        );
                        self.out.send(&ServerMessage::ChallengeSent { challenge });
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::AcceptChallenge { challenge_id } => {
                if self.refuse_if_draining() {
                    return;
                }
                match self
                    .app
                    .lobby
                    .take_challenge(&self.identity.user.id, challenge_id)
                    .await
                {
                    Ok(ch) => {
                        let proposal = Proposal::from(&ch);
                        self.start_with(ch.from, &proposal).await;
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::DeclineChallenge { challenge_id }
            | ClientMessage::CancelChallenge { challenge_id } => {
                match self
                    .app
                    .lobby
                    .remove_challenge(&self.identity.user.id, challenge_id)
                    .await
                {
                    Ok(ch) => {
                        for user in [&ch.from.id, &ch.to] {
                            self.app.notify_user(
                                user,
                                ServerMessage::ChallengeRemoved { challenge_id },
                            );
                        }
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::PoolJoin {
                variant,
                time_control,
                rated,
            } => {
                if self.refuse_if_draining() || !self.may_play_rated(rated) {
                    return;
                }
                let entry = PoolEntry {
                    user: self.me_for(variant, time_control).await,
                    variant,
                    time_control,
                    rated,
                    since_ms: crate::cluster::redis::wall_ms(),
                };
                match self.app.lobby.join_pool(entry).await {
                    Ok(pairing) => {
                        self.out.send(&ServerMessage::PoolJoined {
                            variant,
                            time_control,
                            rated,
                        });
                        if let Some(pairing) = pairing {
                            self.app.start_pairing(pairing);
                        }
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::PoolLeave => {
                match self.app.lobby.leave_pools(&self.identity.user.id).await {
                    Ok(_) => {
                        self.out.send(&ServerMessage::PoolLeft);
                    }
                    Err(e) => self.lobby_error(&e),
                }
            }
            ClientMessage::Move {
                game_id,
                text,
                move_id,
                think_ms,
                offer_draw,
            } => {
                let intent = Intent::Move {
                    text,
                    lag_ms: self.lag_ms.unwrap_or(0),
                    think_ms,
                    offer: offer_draw,
                };
                if let Some(version) = self.act(&game_id, Some(move_id), intent).await {
                    self.out.send(&ServerMessage::MoveAck {
                        game_id,
                        move_id,
                        version,
                    });
                }
            }
            ClientMessage::DrawOffer { game_id } => {
                self.act_only(&game_id, Intent::DrawOffer).await
            }
            ClientMessage::DrawAccept { game_id } => {
                self.act_only(&game_id, Intent::DrawAccept).await;
            }
            ClientMessage::DrawDecline { game_id } => {
                self.act_only(&game_id, Intent::DrawDecline).await;
            }
            ClientMessage::DrawClaim { game_id, text } => {
                let intent = match text {
                    Some(text) => Intent::DrawClaimWithMove {
                        text,
                        lag_ms: self.lag_ms.unwrap_or(0),
                    },
                    None => Intent::DrawClaim,
                };
                self.act_only(&game_id, intent).await
            }
            ClientMessage::Resign { game_id } => self.act_only(&game_id, Intent::Resign).await,
            ClientMessage::Berserk { game_id } => self.act_only(&game_id, Intent::Berserk).await,
            ClientMessage::Abort { game_id } => self.act_only(&game_id, Intent::Abort).await,
            ClientMessage::TakebackOffer { game_id } => {
                self.act_only(&game_id, Intent::TakebackOffer).await;
            }
            ClientMessage::TakebackAccept { game_id } => {
                self.act_only(&game_id, Intent::TakebackAccept).await;
            }
            ClientMessage::TakebackDecline { game_id } => {
                self.act_only(&game_id, Intent::TakebackDecline).await;
            }
            ClientMessage::Rematch { game_id } => self.act_only(&game_id, Intent::Rematch).await,
            ClientMessage::RematchDecline { game_id } => {
                self.act_only(&game_id, Intent::RematchDecline).await;
            }
            ClientMessage::ClaimAbandoned { game_id, result } => {
                self.act_only(&game_id, Intent::ClaimAbandoned(result))
                    .await;
            }
            ClientMessage::Watch { game_id } => {
                let on_tv = self.tv.as_ref().and_then(|tv| tv.current()).as_ref() == Some(&game_id);
                if on_tv
                    || self
                        .games
                        .get(&game_id)
                        .is_some_and(|s| !s.forwarder.is_finished())
                {
                    self.game_error(
                        &game_id,
                        None,
                        ErrorCode::AlreadyWatching,
                        "you already follow this game".into(),
                    );
                    return;
                }
                match self.app.games.find(&game_id).await {
                    Some(handle) => self.watch(handle, None).await,
                    None => self.send_archived(&game_id).await,
                }
            }
            ClientMessage::Unwatch { game_id }
                if self.tv.as_ref().and_then(|tv| tv.current()).as_ref() == Some(&game_id) =>
            {
                if let Some(tv) = self.tv.take() {
                    tv.stop().await;
                }
                self.out.send(&ServerMessage::Unwatched { game_id });
            }
            ClientMessage::Unwatch { game_id } => match self.games.remove(&game_id) {
                Some(sub) if sub.role == Role::Spectator => {
                    self.sync_followed();
                    sub.forwarder.abort();
                    sub.handle
                        .leave(self.identity.user.id.clone(), Role::Spectator)
                        .await;
                    self.out.send(&ServerMessage::Unwatched { game_id });
                }
                Some(sub) => {
                    // Players do not unwatch their own game.
                    self.games.insert(game_id.clone(), sub);
                    self.game_error(
                        &game_id,
                        None,
                        ErrorCode::NotWatching,
                        "you play this game".into(),
                    );
                }
                None => self.game_error(
                    &game_id,
                    None,
                    ErrorCode::NotWatching,
                    "you do not watch this game".into(),
                ),
            },
            ClientMessage::Tv { variant } => {
                // A variant with no live game leaves the TV followed so far as it was.
                let user = self.identity.user.id.clone();
                let followed = self.followed.clone();
                if let Some(tv) =
                    Tv::start(&self.app, user, variant, self.out.clone(), followed).await
                    && let Some(old) = self.tv.replace(tv)
                {
                    old.stop().await;
                }
            }
            ClientMessage::TournamentWatch { tournament_id } => {
                match self
                    .app
                    .tournaments
                    .watch(&tournament_id, &self.me().id)
                    .await
                {
                    Ok(view) => {
                        self.out.send(&ServerMessage::Tournament {
                            tournament: Box::new(view),
                        });
                    }
                    Err(e) => self.tournament_error(&e),
                }
            }
            ClientMessage::TournamentUnwatch { tournament_id } => {
                self.app.tournaments.unwatch(&tournament_id, &self.me().id);
            }
            ClientMessage::TournamentWithdraw { tournament_id } => {
                let app = self.app.clone();
                if let Err(e) = app
                    .tournaments
                    .withdraw(&app, &tournament_id, &self.me().id)
                    .await
                {
                    self.tournament_error(&e);
                }
            }
            msg @ (ClientMessage::ArenaCreate { .. }
            | ClientMessage::ArenaJoin { .. }
            | ClientMessage::ArenaWithdraw { .. }
            | ClientMessage::ArenaPause { .. }
            | ClientMessage::ArenaWatch { .. }
            | ClientMessage::ArenaUnwatch { .. }) => self.on_arena(msg).await,
            ClientMessage::PresenceQuery { users } => {
                if users.len() > crate::presence::MAX_QUERY {
                    self.error(
                        ErrorCode::TooMany,
                        format!("at most {} users per query", crate::presence::MAX_QUERY),
                    );
                    return;
                }
                match self.app.presence.statuses(&users).await {
                    Ok(users) => {
                        self.out.send(&ServerMessage::Presence { users });
                    }
                    Err(e) => self.error(ErrorCode::Unavailable, e.to_string()),
                }
            }
            ClientMessage::Resume {
                game_id,
                last_version,
            } => match self.app.games.find(&game_id).await {
                Some(handle) => {
                    // A game shown on TV is taken over from the TV: the session
                    // follows it itself from now on, once.
                    if self.tv.as_ref().and_then(|tv| tv.current()).as_ref() == Some(&game_id)
                        && let Some(tv) = self.tv.take()
                    {
                        tv.stop().await;
                    }
                    self.watch(handle, Some(last_version)).await;
                }
                None => self.send_archived(&game_id).await,
            },
        }
    }

    /// Starts the game `proposer` proposed, with this session's user as the opponent;
    /// a refusal is answered with an error.
    async fn start_with(&mut self, proposer: UserInfo, proposal: &Proposal) {
        if !self.may_play_rated(proposal.rated) {
            return;
        }
        let me = self.me_for(proposal.variant, proposal.time_control).await;
        if let Err(e) = self.app.start_game(proposer, me, proposal) {
            self.error(e.code(), e.to_string());
        }
    }

    /// Guests play casual games only: answers `rated_needs_account` to a guest asking
    /// for a rated one.
    fn may_play_rated(&self, rated: bool) -> bool {
        if rated && self.identity.user.guest {
            self.error(
                ErrorCode::RatedNeedsAccount,
                "rated games need an account: register or log in",
            );
            return false;
        }
        true
    }

    /// The user with their rating in the perf of `variant` at `time_control` (from the
    /// database; the default rating for guests, or if the database is unreachable).
    pub(super) async fn me_for(&self, variant: Variant, time_control: TimeControl) -> UserInfo {
        let mut user = self.me();
        if user.guest {
            return user;
        }
        let perf = Perf {
            variant,
            speed: speed_of(variant, time_control),
        };
        match self.app.db.rating(&user.id.0, perf).await {
            Ok(g) => user.rating = Some(g.rounded()),
            Err(e) => tracing::warn!(error = %e, "cannot read a rating; using the default"),
        }
        user
    }

    /// Does the rule set asked for govern the variant? Answers `invalid_message` if not.
    fn ruleset_fits(&mut self, variant: Variant, ruleset: Option<RulesetId>) -> bool {
        match ruleset {
            Some(r) if !r.rules().variants.contains(&variant) => {
                let name = serde_json::to_value(r).unwrap_or_default();
                self.error(
                    ErrorCode::InvalidMessage,
                    format!("rule set {name} does not govern {variant}"),
                );
                false
            }
            _ => true,
        }
    }

    /// Can the variant be played on this control? Delay is a FIDE clock mode (FIDE
    /// 6.2) that the draughts texts do not know; answers `invalid_message` if so.
    fn time_control_fits(&mut self, variant: Variant, tc: TimeControl) -> bool {
        if variant.draughts().is_some() && tc.has_delay() {
            self.error(
                ErrorCode::InvalidMessage,
                format!(
                    "bad time control `{tc}`: delay is a chess clock mode (FIDE 6.2); the \
                     draughts texts (IDF s.2 art. 5, INT 3.6) know sudden death, Fischer and \
                     periods only"
                ),
            );
            return false;
        }
        true
    }

    fn hello(&mut self, protocol: u32) {
        if protocol != PROTOCOL_VERSION {
            self.error(
                ErrorCode::UnsupportedProtocol,
                format!("this server speaks protocol {PROTOCOL_VERSION}"),
            );
            self.out
                .close(close::UNSUPPORTED_PROTOCOL, "unsupported protocol");
            return;
        }
        self.hello_done = true;
        let ws = &self.app.config.ws;
        self.out.send(&ServerMessage::Welcome {
            protocol: PROTOCOL_VERSION,
            user: self.me(),
            ping_interval_ms: ws.ping_interval_ms,
            max_message_bytes: ws.max_message_bytes,
            token_expires_at: self.identity.expires_at,
        });
    }

    /// The user with the rating pairing uses.
    fn me(&self) -> UserInfo {
        let mut user = self.identity.user.clone();
        user.rating = user.rating.or(Some(self.app.config.lobby.default_rating));
        user
    }

    /// A game no longer live: its archived final state, else `game_not_found`.
    async fn send_archived(&mut self, game_id: &GameId) {
        let stored = match self.app.db.game(&game_id.0).await {
            Ok(stored) => stored,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the archive");
                None
            }
        };
        match stored
            .as_ref()
            .and_then(crate::game::archive::archived_state)
        {
            Some(game) => {
                self.out.send(&ServerMessage::GameState { game });
            }
            None => self.game_error(
                game_id,
                None,
                ErrorCode::GameNotFound,
                "no such game".into(),
            ),
        }
    }

    fn refuse_if_draining(&self) -> bool {
        let draining = self.app.draining.is_cancelled();
        if draining {
            self.error(ErrorCode::ShuttingDown, "the server is shutting down");
        }
        draining
    }

    fn lobby_error(&self, e: &LobbyError) {
        self.error(e.code(), e.to_string());
    }

    /// Follows a game: as its player if the user plays it, else as a spectator.
    async fn watch(&mut self, handle: GameHandle, since: Option<u64>) {
        let role = match handle.meta().color_of(&self.identity.user.id) {
            Some(_) => Role::Player,
            None => Role::Spectator,
        };
        let id = handle.id().clone();
        if let Err(e) = self.subscribe(handle, role, since, false).await {
            self.game_error(&id, None, e.code(), e.to_string());
        }
    }

    /// Sends a player's action to the game; answers a refusal with an error.
    async fn act(&mut self, game_id: &GameId, move_id: Option<u64>, intent: Intent) -> Option<u64> {
        let handle = match self.games.get(game_id) {
            Some(s) => Some(s.handle.clone()),
            None => self.app.games.find(game_id).await,
        };
        let Some(handle) = handle else {
            self.game_error(
                game_id,
                move_id,
                ErrorCode::GameNotFound,
                "no such game".into(),
            );
            return None;
        };
        match handle.act(self.identity.user.id.clone(), intent).await {
            Ok(version) => Some(version),
            Err(e) => {
                self.game_error(game_id, move_id, e.code(), e.to_string());
                None
            }
        }
    }

    async fn act_only(&mut self, game_id: &GameId, intent: Intent) {
        let _ = self.act(game_id, None, intent).await;
    }
}
