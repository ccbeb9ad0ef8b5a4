//! How a game's task talks back to the registry that started it: the [`GameExits`]
//! trait, which [`super::GameRegistry`] implements. A game's actor ([`super::actor`])
//! and the proxy of a game owned by another node ([`super::remote`]) hold it weakly
//! (a task that outlives the registry tells nobody) and never name the registry: the
//! registry makes and spawns them, they report their game's end, hand-over and exit,
//! and ask for rematches, through this trait alone.

use std::sync::Arc;

use shared::protocol::GameId;

use super::clock::GameClock;
use super::finished::FinishedGame;
use super::{GameError, GameHandle, GameMeta, GameSpec, StartFrame};

/// What a game's actor, or a remote game's proxy, tells the registry that runs it.
pub trait GameExits: Send + Sync {
    /// The actor's new game is stored and may be shown: its players' sessions on this
    /// node are told, each with its `game_start` (`None`: they join to get it).
    fn started(&self, id: &GameId, starts: Option<[StartFrame; 2]>);

    /// The actor's game has ended: its players no longer play it (presence).
    fn ended(&self, meta: &Arc<GameMeta>);

    /// The actor hands its finished game over and exits: every handle of the game
    /// sends its commands to `game` from now on, which the registry holds in the
    /// actor's place until it has lingered.
    fn handed_over(&self, game: Arc<FinishedGame>);

    /// The actor's task is ending without handing its game over (the game lingered,
    /// was lost to another node, or the node stops): the game is no longer here.
    fn exited(&self, meta: &GameMeta);

    /// The proxy of the game `id`, owned by another node, is ending.
    fn proxy_exited(&self, id: &GameId);

    /// Starts the rematch of a finished game: `spec` (colours swapped) and, for a
    /// drawn game on a match clock, the finished game's clock, whose times the new game
    /// carries (INT 3.6.4).
    fn rematch(
        self: Arc<Self>,
        spec: GameSpec,
        previous: Option<&GameClock>,
    ) -> Result<GameHandle, GameError>;
}
