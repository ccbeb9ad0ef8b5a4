//! Random identifiers the server hands out: game ids (which a challenge draws before its
//! game exists, so the lobby needs them as well as the game registry). The lowest layer:
//! it uses nothing of the crate.

use shared::protocol::GameId;

/// A new random game id: 8 characters of base 62.
pub fn new_game_id() -> GameId {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut bytes = [0u8; 8];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: fall back to the clock, still unique enough per node.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        bytes = (nanos as u64).to_le_bytes();
    }
    GameId(
        bytes
            .iter()
            .map(|b| ALPHABET[usize::from(*b) % ALPHABET.len()] as char)
            .collect(),
    )
}
