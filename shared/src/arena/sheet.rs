//! A player's arena sheet: one [`Entry`] per finished game, scored as lichess players
//! know it, with the rules fixed here:
//!
//! - a win scores 2, a draw 1, a loss 0;
//! - **streak**: after two wins in a row the player is *on fire*: a win scores 4 and a
//!   draw 2 until a game is not won (that game still counts double if it is a draw);
//! - **berserk**: a won berserk game scores 1 more (not doubled) if the player made at
//!   least [`BERSERK_MIN_MOVES`] moves in it;
//! - **draw runs**: a draw directly after a draw on the same sheet scores 0 unless the
//!   game lasted at least [`LONG_DRAW_PLIES`] plies (30 moves of each side, as lichess
//!   counts 30 moves); the first draw of a run always scores;
//! - **ties** are broken by performance rating: the mean rating of the opponents met
//!   plus 500 × (wins − losses) / games, then by the player's rating, then by id.

use serde::{Deserialize, Serialize};

/// A won berserk game scores its extra point only with this many own moves.
pub const BERSERK_MIN_MOVES: u32 = 7;
/// A draw after a draw scores only if the game had at least this many plies.
pub const LONG_DRAW_PLIES: u32 = 60;

/// How one arena game ended for the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ArenaResult {
    /// Won.
    Win,
    /// Drawn.
    Draw,
    /// Lost.
    Loss,
}

/// Why an entry scored what it did beyond the plain 2/1/0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    /// Plain score.
    Normal,
    /// Counted double: the player was on a streak.
    Double,
    /// A short draw right after a draw: no points.
    NullDraw,
}

/// One finished game on a sheet, with its score and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The game.
    pub game_id: String,
    /// The opponent's user id.
    pub opponent: String,
    /// The opponent's rating when the game started.
    pub opponent_rating: u32,
    /// The result for this player.
    pub result: ArenaResult,
    /// This player went berserk.
    pub berserk: bool,
    /// Moves this player made.
    pub own_moves: u32,
    /// Plies in the game.
    pub plies: u32,
    /// Points it scored in total.
    pub points: u32,
    /// Doubled or nulled.
    pub flag: Flag,
    /// It scored the berserk point.
    pub berserk_point: bool,
}

/// What is known of a finished game for one of its players, before scoring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameFor {
    /// The game.
    pub game_id: String,
    /// The opponent's user id.
    pub opponent: String,
    /// The opponent's rating.
    pub opponent_rating: u32,
    /// The result for the player.
    pub result: ArenaResult,
    /// The player went berserk.
    pub berserk: bool,
    /// Moves the player made.
    pub own_moves: u32,
    /// Plies in the game.
    pub plies: u32,
}

/// Every game of one player in one arena, in the order they ended.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sheet {
    /// The games, oldest first.
    pub entries: Vec<Entry>,
}

impl Sheet {
    /// Is the player on fire (the last two games won)?
    pub fn on_fire(&self) -> bool {
        let n = self.entries.len();
        n >= 2
            && self.entries[n - 2..]
                .iter()
                .all(|e| e.result == ArenaResult::Win)
    }

    /// Scores a finished game and adds it; returns the entry added.
    pub fn add(&mut self, game: GameFor) -> &Entry {
        let fire = self.on_fire();
        let after_draw = self
            .entries
            .last()
            .is_some_and(|e| e.result == ArenaResult::Draw);
        let (base, flag) = match game.result {
            ArenaResult::Win if fire => (4, Flag::Double),
            ArenaResult::Win => (2, Flag::Normal),
            ArenaResult::Draw if after_draw && game.plies < LONG_DRAW_PLIES => (0, Flag::NullDraw),
            ArenaResult::Draw if fire => (2, Flag::Double),
            ArenaResult::Draw => (1, Flag::Normal),
            ArenaResult::Loss => (0, Flag::Normal),
        };
        let berserk_point =
            game.berserk && game.result == ArenaResult::Win && game.own_moves >= BERSERK_MIN_MOVES;
        self.entries.push(Entry {
            game_id: game.game_id,
            opponent: game.opponent,
            opponent_rating: game.opponent_rating,
            result: game.result,
            berserk: game.berserk,
            own_moves: game.own_moves,
            plies: game.plies,
            points: base + u32::from(berserk_point),
            flag,
            berserk_point,
        });
        // Just pushed.
        &self.entries[self.entries.len() - 1]
    }

    /// Total points.
    pub fn score(&self) -> u32 {
        self.entries.iter().map(|e| e.points).sum()
    }

    /// Games, wins, draws, losses.
    pub fn counts(&self) -> (u32, u32, u32, u32) {
        let count = |r| self.entries.iter().filter(|e| e.result == r).count() as u32;
        (
            self.entries.len() as u32,
            count(ArenaResult::Win),
            count(ArenaResult::Draw),
            count(ArenaResult::Loss),
        )
    }

    /// The opponent of the last game, if any.
    pub fn last_opponent(&self) -> Option<&str> {
        self.entries.last().map(|e| e.opponent.as_str())
    }

    /// Performance rating: mean opponent rating + 500 × (wins − losses) / games;
    /// `None` before the first game.
    pub fn performance(&self) -> Option<i64> {
        let (games, wins, _, losses) = self.counts();
        if games == 0 {
            return None;
        }
        let sum: i64 = self
            .entries
            .iter()
            .map(|e| i64::from(e.opponent_rating))
            .sum();
        let n = i64::from(games);
        Some((sum + 500 * (i64::from(wins) - i64::from(losses))) / n)
    }
}

/// A player's line in the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// 1 for the leader.
    pub rank: u32,
    /// The player.
    pub user: String,
    /// Their display name.
    pub name: String,
    /// Their rating when they joined.
    pub rating: u32,
    /// Points.
    pub score: u32,
    /// Performance rating (0 before the first game).
    pub performance: i64,
    /// Games finished.
    pub games: u32,
    /// On a streak now.
    pub fire: bool,
    /// Points per game, oldest first, for a compact sheet.
    pub points: Vec<u32>,
}

/// The standings order: score, then performance, then rating (all descending), then
/// user id. `players` are (user, name, rating, sheet).
pub fn rank<'a>(
    players: impl IntoIterator<Item = (&'a str, &'a str, u32, &'a Sheet)>,
) -> Vec<Standing> {
    let mut lines: Vec<Standing> = players
        .into_iter()
        .map(|(user, name, rating, sheet)| Standing {
            rank: 0,
            user: user.to_string(),
            name: name.to_string(),
            rating,
            score: sheet.score(),
            performance: sheet.performance().unwrap_or(0),
            games: sheet.entries.len() as u32,
            fire: sheet.on_fire(),
            points: sheet.entries.iter().map(|e| e.points).collect(),
        })
        .collect();
    lines.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(b.performance.cmp(&a.performance))
            .then(b.rating.cmp(&a.rating))
            .then(a.user.cmp(&b.user))
    });
    for (i, line) in lines.iter_mut().enumerate() {
        line.rank = i as u32 + 1;
    }
    lines
}
