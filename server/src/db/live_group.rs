//! What a node stores of its live games in one transaction: each game's write (its
//! new snapshot or tail, events and law's actions) and the games to forget, shared by
//! the PostgreSQL writer (`live.rs`) and SQLite's (`live_sqlite.rs`).

/// One game's write.
#[derive(Debug)]
pub struct LiveWrite {
    /// The game.
    pub id: String,
    /// A whole snapshot JSON: replaces the stored one and empties the actions list.
    pub snapshot: Option<String>,
    /// The latest tail JSON.
    pub tail: String,
    /// New events: version and JSON.
    pub events: Vec<(u64, String)>,
    /// New actions after the snapshot: their place in the list and JSON.
    pub acts: Vec<(u64, String)>,
}

/// One transaction's worth: several games' writes, then the games to forget
/// (archived: every row of theirs deleted).
#[derive(Debug, Default)]
pub struct LiveGroup {
    /// Games' writes, a game's in the order made.
    pub writes: Vec<LiveWrite>,
    /// Games whose rows go, after the writes.
    pub forget: Vec<String>,
}

impl LiveGroup {
    /// Empties it, keeping its buffers.
    pub fn clear(&mut self) {
        self.writes.clear();
        self.forget.clear();
    }
}

/// Deletes the actions of the games in a parenthesised list that follows.
pub(super) const DROP_ACTS: &str = "DELETE FROM live_acts WHERE game_id IN";

/// The statements forgetting games, each to be followed by a parenthesised list of
/// their ids.
pub(super) const FORGET: [&str; 3] = [
    "DELETE FROM live_events WHERE game_id IN",
    DROP_ACTS,
    "DELETE FROM live_games WHERE id IN",
];

/// A count as SQL's `BIGINT`.
pub(super) fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
