//! TV: following the highest-rated live game of a variant. The TV's game is one of the
//! session's followed games with the `tv` flag, joined as a spectator; every [`CHECK`]
//! the session loop looks whether its end has been shown and, [`HOLD`] later, follows
//! the variant's next TV game (looking again every [`CHECK`] while none is live), so a
//! client that asked for TV once keeps getting a live game without asking again. A game
//! is over for its players before its `game_over` is shown (the end is stored and
//! archived first): the TV waits for the end itself, else a slow archive would leave
//! the spectator without the result. A game the session already follows itself
//! (through `watch`, `resume` or as a player) is not joined a second time: the TV
//! shows nothing until that game ends and another is the TV game. Looking for the game
//! and joining it wait on Redis or another node: they are requests
//! ([`super::request`]) whose results the loop applies, checking first that the TV
//! still wants them (each TV has a number; a new `tv` or an `unwatch` ends the last).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use shared::protocol::{ErrorCode, GameId};
use shared::rules::Variant;

use super::Session;
use super::request::{self, Stage};
use super::{Done, Pending};
use crate::game::GameHandle;

/// How often the loop checks whether the TV's game has ended (and, while none is
/// live, looks for one).
pub const CHECK: Duration = Duration::from_millis(500);

/// How long the TV keeps showing a game's result before it follows the next game.
pub const HOLD: Duration = Duration::from_secs(2);

/// Numbers the TVs of every session (a number is only compared within one).
static NUMBERS: AtomicU64 = AtomicU64::new(1);

/// A session's TV.
pub struct Tv {
    variant: Variant,
    number: u64,
    /// The game shown now, or being joined to be shown.
    shows: Option<GameId>,
    /// The game shown last, which has ended: not shown again.
    last: Option<GameId>,
    /// When the loop first saw the shown game's end.
    end_seen: Option<Instant>,
    /// A lookup or a join is under way.
    busy: bool,
}

impl Tv {
    fn new(variant: Variant) -> Tv {
        Tv {
            variant,
            number: NUMBERS.fetch_add(1, Ordering::Relaxed),
            shows: None,
            last: None,
            end_seen: None,
            busy: false,
        }
    }

    /// Does the TV show `id` now (or is it joining it)?
    pub(super) fn shows(&self, id: &GameId) -> bool {
        self.shows.as_ref() == Some(id)
    }
}

impl Session {
    /// `tv`: looks for the variant's TV game (`no_tv_game` if none is live; the TV
    /// followed so far then goes on).
    pub(super) fn on_tv(&mut self, variant: Variant) -> bool {
        let r = self.requester();
        self.hand_off(async move {
            let handle = r.app.games.tv_anywhere(variant).await;
            if handle.is_none() {
                let message = format!("no live {variant} game to show");
                r.out.error(ErrorCode::NoTvGame, message, None);
            }
            Done::TvFound {
                variant,
                handle,
                asked: true,
                number: 0,
            }
        })
    }

    /// Every [`CHECK`]: lets go of the TV's game [`HOLD`] after its end was shown (at
    /// once if it stopped without one), and looks for the next while it shows none.
    pub(super) fn tv_check(&mut self, now: Instant) {
        let user = self.identity.user.id.clone();
        let app = self.app.clone();
        let Some(tv) = self.tv.as_mut().filter(|tv| !tv.busy) else {
            return;
        };
        if let Some(id) = tv.shows.clone() {
            let following = self.games.get(&id).map(|s| &s.following);
            match following.filter(|f| f.is_active()).map(|f| f.end_shown()) {
                Some(false) => return,
                Some(true) if now < *tv.end_seen.get_or_insert(now) + HOLD => return,
                _ => {}
            }
            if let Some(sub) = self.games.remove(&id) {
                self.side.push(request::leave(user, sub));
            }
            tv.shows = None;
            tv.end_seen = None;
            tv.last = Some(id);
        }
        tv.busy = true;
        let (variant, number) = (tv.variant, tv.number);
        self.side.push(Box::pin(async move {
            let handle = app.games.tv_anywhere(variant).await;
            Done::TvFound {
                variant,
                handle,
                asked: false,
                number,
            }
        }));
    }

    /// The TV game found: for the client's `tv`, a new TV showing it (the last one
    /// stops); for the TV of `number`, the next game to show, unless it is the one
    /// shown last. The join is the returned stage.
    pub(super) fn tv_found(
        &mut self,
        variant: Variant,
        handle: Option<GameHandle>,
        asked: bool,
        number: u64,
    ) -> Option<Stage> {
        if asked {
            let handle = handle?;
            let old = self.stop_tv();
            self.tv = Some(Tv::new(variant));
            let join = self.tv_show(handle);
            return Some(Stage::whole(Box::pin(async move {
                if let Some(old) = old {
                    old.await;
                }
                match join {
                    Some(join) => join.await,
                    None => Done::Nothing,
                }
            })));
        }
        let tv = self.tv.as_mut().filter(|tv| tv.number == number)?;
        tv.busy = false;
        let handle = handle.filter(|h| tv.last.as_ref() != Some(h.id()))?;
        self.tv_show(handle).map(Stage::whole)
    }

    /// Joins `handle`'s game for the TV, unless the session follows it itself.
    fn tv_show(&mut self, handle: GameHandle) -> Option<Pending> {
        let r = self.requester();
        let id = handle.id();
        if self.games.contains_key(id) || self.joining.contains(id) {
            return None;
        }
        let tv = self.tv.as_mut()?;
        tv.shows = Some(id.clone());
        tv.end_seen = None;
        tv.busy = true;
        Some(Box::pin(r.join_for_tv(handle, tv.number)))
    }

    /// A join for the TV of `number` is done: the TV shows the game from now on, if it
    /// still wants it; else it is left.
    pub(super) fn tv_joined(&mut self, id: GameId, sub: Option<super::Subscription>, number: u64) {
        let user = self.identity.user.id.clone();
        let wanted = self
            .tv
            .as_mut()
            .filter(|tv| tv.number == number && tv.shows(&id));
        match (wanted, sub) {
            (Some(tv), Some(sub)) if !self.games.contains_key(&id) => {
                tv.busy = false;
                self.games.insert(id, sub);
            }
            (Some(tv), None) => {
                // Not joined (it ended meanwhile): the next check looks again.
                tv.busy = false;
                tv.shows = None;
            }
            (wanted, Some(sub)) => {
                if let Some(tv) = wanted {
                    tv.busy = false;
                    tv.shows = None;
                }
                self.side.push(request::leave(user, sub));
            }
            (None, None) => {}
        }
    }

    /// Stops the TV; leaving the game it shows is the returned request.
    pub(super) fn stop_tv(&mut self) -> Option<Pending> {
        let id = self.tv.take()?.shows?;
        match self.games.get(&id) {
            Some(sub) if sub.tv => {
                let sub = self.games.remove(&id)?;
                Some(request::leave(self.identity.user.id.clone(), sub))
            }
            _ => None,
        }
    }
}
