//! Wave pairing: the players waiting at one moment, in standings order, are paired with
//! the nearest-ranked waiting player they did not just play.
//!
//! - **No immediate rematch**: two players are never paired if either one's last game
//!   was against the other, unless they are the only two active (not paused, not
//!   withdrawn) players of the arena. A player whose only possible opponents are such
//!   rematches waits for the next wave.
//! - **Colours**: White goes to the player with the lower colour balance (games with
//!   White minus games with Black in this arena; not the fewer whites); on a tie, to the
//!   one whose last game was with Black; then to the higher-ranked one.
//! - **Closing**: no game starts when less than [`estimated_game_ms`] of the arena is
//!   left ([`pairing_open`]).

use crate::clock::spec::TimeControl;

/// A player waiting for a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    /// The player.
    pub user: String,
    /// The last opponent, if any.
    pub last_opponent: Option<String>,
    /// Games with White minus games with Black.
    pub color_balance: i32,
    /// The colour of the last game: `Some(true)` for White.
    pub last_white: Option<bool>,
}

/// Two players to start a game; `white` plays White.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// White's player.
    pub white: String,
    /// Black's player.
    pub black: String,
}

/// How long a game of this time control is expected to last: the initial time plus 40
/// increments (the estimate lichess uses: both sides spending half of a 40-move game's
/// clock).
pub fn estimated_game_ms(tc: TimeControl) -> u64 {
    tc.initial_ms() + 40 * tc.first().increment_ms
}

/// May a game still start with `remaining_ms` of the arena left?
pub fn pairing_open(remaining_ms: u64, tc: TimeControl) -> bool {
    remaining_ms >= estimated_game_ms(tc)
}

fn rematch(a: &Waiting, b: &Waiting) -> bool {
    a.last_opponent.as_deref() == Some(b.user.as_str())
        || b.last_opponent.as_deref() == Some(a.user.as_str())
}

fn colours(a: &Waiting, b: &Waiting) -> Pair {
    // `a` is the higher-ranked one.
    let a_white = match a.color_balance.cmp(&b.color_balance) {
        std::cmp::Ordering::Less => true,
        std::cmp::Ordering::Greater => false,
        std::cmp::Ordering::Equal => match (a.last_white, b.last_white) {
            (Some(true), Some(false)) | (Some(true), None) => false,
            (Some(false), Some(true)) | (None, Some(true)) => true,
            _ => true,
        },
    };
    let (w, bl) = if a_white { (a, b) } else { (b, a) };
    Pair {
        white: w.user.clone(),
        black: bl.user.clone(),
    }
}

/// Pairs one wave. `waiting` is in standings order (best first) and holds each player
/// once; `active` is how many players of the arena are neither paused nor withdrawn.
/// Players left out wait for the next wave.
pub fn pair_wave(waiting: &[Waiting], active: usize) -> Vec<Pair> {
    let allow_rematch = active <= 2;
    let n = waiting.len();
    let mut taken = vec![false; n];
    let mut pairs: Vec<(usize, usize)> = Vec::with_capacity(n / 2);
    for i in 0..n {
        if taken[i] {
            continue;
        }
        let partner = (i + 1..n)
            .find(|&j| !taken[j] && (allow_rematch || !rematch(&waiting[i], &waiting[j])));
        if let Some(j) = partner {
            taken[i] = true;
            taken[j] = true;
            pairs.push((i, j));
        }
    }
    // Two players left over (rematches of each other) may still play by swapping into
    // an earlier pair (x, y): (x, z1) + (y, z2) or (x, z2) + (y, z1).
    let mut left: Vec<usize> = (0..n).filter(|&i| !taken[i]).collect();
    let mut k = 0;
    while k + 1 < left.len() {
        let (z1, z2) = (left[k], left[k + 1]);
        let swap = pairs.iter().enumerate().find_map(|(p, &(x, y))| {
            let ok = |a: usize, b: usize| !rematch(&waiting[a], &waiting[b]);
            if ok(x, z1) && ok(y, z2) {
                Some((p, (x, z1), (y, z2)))
            } else if ok(x, z2) && ok(y, z1) {
                Some((p, (x, z2), (y, z1)))
            } else {
                None
            }
        });
        match swap {
            Some((p, first, second)) => {
                pairs[p] = first;
                pairs.push(second);
                left.drain(k..k + 2);
            }
            None => k += 1,
        }
    }
    pairs
        .into_iter()
        .map(|(a, b)| {
            let (hi, lo) = if a < b { (a, b) } else { (b, a) };
            colours(&waiting[hi], &waiting[lo])
        })
        .collect()
}
