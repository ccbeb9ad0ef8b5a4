//! The tournament group of client messages: watching a tournament, withdrawing from
//! it. A request in the session's queue ([`super::request`]): tournaments read the
//! store.

use shared::protocol::{ClientMessage, ErrorCode, ServerMessage};

use super::Done;
use super::Session;
use super::request::Requester;

impl Session {
    /// Queues a tournament message.
    pub(super) fn on_tournament(&mut self, msg: ClientMessage) {
        let r = self.requester();
        self.hand_off(async move {
            r.tournament(msg).await;
            Done::Nothing
        });
    }
}

impl Requester {
    async fn tournament(self, msg: ClientMessage) {
        match msg {
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
            _ => {}
        }
    }

    fn tournament_error(&self, e: &crate::tournament::TournamentError) {
        use crate::tournament::TournamentError as E;
        let code = match e {
            E::NotFound(_) => ErrorCode::TournamentNotFound,
            E::NotInTournament => ErrorCode::NotInTournament,
            E::Spec(_) => ErrorCode::InvalidMessage,
            E::Store(_) => ErrorCode::Unavailable,
            E::NoRoundToStart(_) => ErrorCode::NoRoundToStart,
        };
        self.out.error(code, e.to_string(), None);
    }
}
