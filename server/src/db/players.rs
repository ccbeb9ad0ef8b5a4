//! Players: registered accounts (name and argon2id hash), players known from an
//! external issuer's tokens (a row on first sight), their ratings per perf, profiles
//! and leaderboards. Names are unique regardless of case (`name_key` is the lowercase
//! name).

use std::collections::BTreeMap;

use serde::Serialize;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};
use crate::rating::{Glicko, Perf};

/// A player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Player {
    /// The id tokens carry in `sub`.
    pub id: String,
    /// The name as registered.
    pub name: String,
    /// When the row was made (Unix ms).
    pub created_ms: i64,
}

/// A rating in one perf as the API shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerfRating {
    /// The rating, rounded to a tenth.
    pub rating: f64,
    /// Its deviation, aged to now.
    pub rd: f64,
    /// Rated games played in the perf.
    pub games: i64,
    /// Deviation still above the provisional threshold.
    pub provisional: bool,
}

/// Game counts on a profile.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Every archived game.
    pub all: i64,
    /// Rated ones.
    pub rated: i64,
    /// Won.
    pub win: i64,
    /// Lost.
    pub loss: i64,
    /// Drawn (aborted games are not counted as draws).
    pub draw: i64,
}

/// What `GET /api/users/{name}` shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Profile {
    /// The id.
    pub id: String,
    /// The name.
    pub name: String,
    /// When the account was made (Unix ms).
    pub created_at: i64,
    /// Ratings in the perfs played.
    pub perfs: BTreeMap<String, PerfRating>,
    /// Game counts.
    pub count: Counts,
    /// `BOT` for a bot account (lichess's title), absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'static str>,
}

/// One row of a leaderboard.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Leader {
    /// The player's id.
    pub id: String,
    /// The player's name.
    pub name: String,
    /// The rating.
    pub rating: f64,
    /// Its deviation.
    pub rd: f64,
    /// Rated games in the perf.
    pub games: i64,
}

pub(crate) fn now_ms() -> i64 {
    i64::try_from(crate::cluster::redis::wall_ms()).unwrap_or(i64::MAX)
}

fn player(row: &AnyRow) -> Result<Player, DbError> {
    Ok(Player {
        id: row.try_get("id")?,
        name: row.try_get("name")?,
        created_ms: row.try_get("created_ms")?,
    })
}

fn is_unique_violation(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(d) => {
            d.is_unique_violation()
                || d.code()
                    .is_some_and(|c| c == "23505" || c == "2067" || c == "1555")
        }
        _ => false,
    }
}

impl Db {
    /// Registers a new account. [`DbError::Taken`] if the name (in any case) or the
    /// id is in use.
    pub async fn register(&self, name: &str, password_hash: &str) -> Result<Player, DbError> {
        let now = now_ms();
        let key = name.to_lowercase();
        let inserted = sqlx::query(
            "INSERT INTO players (id, name, name_key, password_hash, created_ms, seen_ms) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&key)
        .bind(name)
        .bind(&key)
        .bind(password_hash)
        .bind(now)
        .bind(now)
        .execute(self.pool())
        .await;
        match inserted {
            Ok(_) => Ok(Player {
                id: key,
                name: name.to_string(),
                created_ms: now,
            }),
            Err(e) if is_unique_violation(&e) => Err(DbError::Taken),
            Err(e) => Err(e.into()),
        }
    }

    /// A registered player and their password hash, by name in any case.
    pub async fn credentials(&self, name: &str) -> Result<Option<(Player, String)>, DbError> {
        let row = sqlx::query(
            "SELECT id, name, created_ms, password_hash FROM players WHERE name_key = $1",
        )
        .bind(name.to_lowercase())
        .fetch_optional(self.pool())
        .await?;
        match row {
            None => Ok(None),
            Some(row) => {
                let hash: Option<String> = row.try_get("password_hash")?;
                match hash {
                    Some(h) => Ok(Some((player(&row)?, h))),
                    None => Ok(None),
                }
            }
        }
    }

    /// The player with this id, made on first sight (a token from the external
    /// issuer). Their name is the token's, with a suffix if another player has it.
    pub async fn ensure_player(&self, id: &str, name: &str) -> Result<Player, DbError> {
        if let Some(p) = self.player_by_id(id).await? {
            return Ok(p);
        }
        let now = now_ms();
        let suffix: String = id
            .bytes()
            .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)))
            .to_string();
        for candidate in [name.to_string(), format!("{name}-{suffix}"), id.to_string()] {
            let inserted = sqlx::query(
                "INSERT INTO players (id, name, name_key, password_hash, created_ms, seen_ms) \
                 VALUES ($1, $2, $3, NULL, $4, $5) ON CONFLICT (id) DO NOTHING",
            )
            .bind(id)
            .bind(&candidate)
            .bind(candidate.to_lowercase())
            .bind(now)
            .bind(now)
            .execute(self.pool())
            .await;
            match inserted {
                Ok(_) => break,
                Err(e) if is_unique_violation(&e) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        self.player_by_id(id)
            .await?
            .ok_or_else(|| DbError::Corrupt(format!("player {id} could not be made")))
    }

    /// A player by id.
    pub async fn player_by_id(&self, id: &str) -> Result<Option<Player>, DbError> {
        let row = sqlx::query("SELECT id, name, created_ms FROM players WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(player).transpose()
    }

    /// A player by name in any case.
    pub async fn player_by_name(&self, name: &str) -> Result<Option<Player>, DbError> {
        let row = sqlx::query("SELECT id, name, created_ms FROM players WHERE name_key = $1")
            .bind(name.to_lowercase())
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(player).transpose()
    }

    /// A player's rating in a perf now (the default for a perf never played), with
    /// the deviation aged by the time since their last rated game in it.
    pub async fn rating(&self, player_id: &str, perf: Perf) -> Result<Glicko, DbError> {
        let row = sqlx::query(
            "SELECT rating, rd, volatility, updated_ms FROM ratings WHERE player_id = $1 AND perf = $2",
        )
        .bind(player_id)
        .bind(perf.key())
        .fetch_optional(self.pool())
        .await?;
        Ok(match row {
            None => Glicko::default(),
            Some(row) => aged(&row)?,
        })
    }

    /// A player's ratings by perf key (`chess-blitz`), aged to now; none for a player
    /// who has played no rated game.
    pub async fn perf_ratings(
        &self,
        player_id: &str,
    ) -> Result<BTreeMap<String, PerfRating>, DbError> {
        let rows = sqlx::query(
            "SELECT perf, rating, rd, volatility, games, updated_ms FROM ratings WHERE player_id = $1",
        )
        .bind(player_id)
        .fetch_all(self.pool())
        .await?;
        let mut perfs = BTreeMap::new();
        for row in &rows {
            let g = aged(row)?;
            perfs.insert(
                row.try_get::<String, _>("perf")?,
                PerfRating {
                    rating: (g.rating * 10.0).round() / 10.0,
                    rd: (g.rd * 10.0).round() / 10.0,
                    games: row.try_get("games")?,
                    provisional: g.provisional(),
                },
            );
        }
        Ok(perfs)
    }

    /// A player's profile by name in any case.
    pub async fn profile(&self, name: &str) -> Result<Option<Profile>, DbError> {
        let Some(p) = self.player_by_name(name).await? else {
            return Ok(None);
        };
        let perfs = self.perf_ratings(&p.id).await?;
        let row = sqlx::query(
            "SELECT COUNT(*) AS all_games, \
               COALESCE(SUM(CASE WHEN g.rated = 1 THEN 1 ELSE 0 END), 0) AS rated, \
               COALESCE(SUM(CASE WHEN (g.winner = 'white' AND g.white_id = $1) OR (g.winner = 'black' AND g.black_id = $1) THEN 1 ELSE 0 END), 0) AS win, \
               COALESCE(SUM(CASE WHEN g.winner IS NOT NULL AND NOT ((g.winner = 'white' AND g.white_id = $1) OR (g.winner = 'black' AND g.black_id = $1)) THEN 1 ELSE 0 END), 0) AS loss, \
               COALESCE(SUM(CASE WHEN g.result = '1/2-1/2' THEN 1 ELSE 0 END), 0) AS draw \
             FROM player_games pg JOIN games g ON g.id = pg.game_id WHERE pg.player_id = $1",
        )
        .bind(&p.id)
        .fetch_one(self.pool())
        .await?;
        let count = Counts {
            all: row.try_get("all_games")?,
            rated: row.try_get("rated")?,
            win: row.try_get("win")?,
            loss: row.try_get("loss")?,
            draw: row.try_get("draw")?,
        };
        let bot = self.account_flags(&p.id).await?.bot;
        Ok(Some(Profile {
            id: p.id,
            name: p.name,
            created_at: p.created_ms,
            perfs,
            count,
            title: bot.then_some("BOT"),
        }))
    }

    /// The best established (not provisional) ratings of a perf, best first.
    pub async fn leaderboard(&self, perf: Perf, max: u32) -> Result<Vec<Leader>, DbError> {
        let rows = sqlx::query(
            "SELECT p.id, p.name, r.rating, r.rd, r.volatility, r.games, r.updated_ms \
             FROM ratings r JOIN players p ON p.id = r.player_id \
             WHERE r.perf = $1 AND r.rd <= $2 AND p.bot = 0 \
             ORDER BY r.rating DESC, p.id LIMIT $3",
        )
        .bind(perf.key())
        .bind(crate::rating::PROVISIONAL_RD)
        .bind(i64::from(max))
        .fetch_all(self.pool())
        .await?;
        let mut leaders = Vec::with_capacity(rows.len());
        for row in &rows {
            let g = aged(row)?;
            if g.provisional() {
                continue;
            }
            leaders.push(Leader {
                id: row.try_get("id")?,
                name: row.try_get("name")?,
                rating: (g.rating * 10.0).round() / 10.0,
                rd: (g.rd * 10.0).round() / 10.0,
                games: row.try_get("games")?,
            });
        }
        Ok(leaders)
    }
}

/// A ratings row, its deviation aged to now.
pub(crate) fn aged(row: &AnyRow) -> Result<Glicko, DbError> {
    let g = Glicko {
        rating: row.try_get("rating")?,
        rd: row.try_get("rd")?,
        volatility: row.try_get("volatility")?,
    };
    let updated: i64 = row.try_get("updated_ms")?;
    Ok(g.aged(u64::try_from(now_ms().saturating_sub(updated)).unwrap_or(0)))
}
