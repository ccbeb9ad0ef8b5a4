//! The game archive: every finished game written once (idempotently by id), with both
//! players' rating changes in the same transaction; reading a game back; a player's
//! games newest first, a page at a time, so that no listing holds them all in memory.

use futures_util::stream::{self, Stream};
use serde::{Deserialize, Serialize};
use shared::law::GameResult;
use shared::protocol::{OutcomeReason, RatingChange, Ratings};
use shared::rules::Color;
use sqlx::Row;
use sqlx::any::AnyRow;

use super::players::{aged, now_ms};
use super::{Backend, Db, DbError};
use crate::rating::{self, Glicko, Perf};

/// A player of an archived game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArchivedPlayer {
    /// The id.
    pub id: String,
    /// The name shown.
    pub name: String,
    /// A guest (never rated).
    #[serde(default)]
    pub guest: bool,
    /// The rating before the game (rated games).
    #[serde(default)]
    pub rating_before: Option<f64>,
    /// The rating after it (rated games).
    #[serde(default)]
    pub rating_after: Option<f64>,
}

/// One move with the mover's clock after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchivedMove {
    /// The move in the variant's notation (full route for captures; SAN in chess).
    pub san: String,
    /// The mover's remaining time after the move, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ms: Option<u64>,
}

/// A finished game as archived.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArchivedGame {
    /// The game id.
    pub id: String,
    /// The variant (`russian`, `chess960`, …).
    pub variant: String,
    /// The rule set (`russian_idf`, …).
    pub rules: String,
    /// The rating pool (`russian-blitz`, …).
    pub perf: String,
    /// Rated or casual.
    pub rated: bool,
    /// The time control as written on the wire (`5+3`).
    pub clock: String,
    /// White.
    pub white: ArchivedPlayer,
    /// Black.
    pub black: ArchivedPlayer,
    /// The start position if not the usual one.
    pub start_fen: Option<String>,
    /// Every move.
    pub moves: Vec<ArchivedMove>,
    /// `1-0`, `0-1`, `1/2-1/2`, or `*` for an aborted game.
    pub result: String,
    /// The winner, if any.
    pub winner: Option<Color>,
    /// Why it ended.
    pub reason: OutcomeReason,
    /// The rule's name where one applies.
    pub rule: Option<String>,
    /// When the game started (Unix ms).
    pub started_at: i64,
    /// When it ended (Unix ms).
    pub ended_at: i64,
    /// The arena it belongs to.
    pub arena: Option<String>,
    /// The tournament it belongs to.
    pub tournament: Option<String>,
    /// Who went berserk (arena games).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub berserk: Vec<Color>,
}

/// Which of a player's games to list.
#[derive(Clone, Debug, Default)]
pub struct GameFilter {
    /// Only this perf.
    pub perf: Option<String>,
    /// Only games ended before this instant (Unix ms).
    pub before: Option<i64>,
    /// At most this many.
    pub max: u32,
}

/// Rows fetched per page while streaming a player's games.
const PAGE: u32 = 200;

fn text<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

fn parse<T: for<'de> Deserialize<'de>>(s: &str) -> Result<T, DbError> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|e| DbError::Corrupt(format!("`{s}`: {e}")))
}

const COLUMNS: &str = "id, variant, ruleset, perf, rated, time_control, white_id, white_name, \
    white_guest, black_id, black_name, black_guest, white_rating, white_rating_after, \
    black_rating, black_rating_after, start_fen, moves, result, winner, reason, rule, \
    started_ms, ended_ms, arena_id, tournament_id, berserk";

/// The `berserk` column: the colours, comma-separated; NULL for none.
fn berserk_text(colours: &[Color]) -> Option<String> {
    (!colours.is_empty()).then(|| colours.iter().map(text).collect::<Vec<_>>().join(","))
}

fn berserk_of(column: Option<String>) -> Result<Vec<Color>, DbError> {
    column
        .iter()
        .flat_map(|s| s.split(','))
        .filter(|s| !s.is_empty())
        .map(parse)
        .collect()
}

fn game(row: &AnyRow) -> Result<ArchivedGame, DbError> {
    let side = |p: &str| -> Result<ArchivedPlayer, DbError> {
        Ok(ArchivedPlayer {
            id: row.try_get(format!("{p}_id").as_str())?,
            name: row.try_get(format!("{p}_name").as_str())?,
            guest: row.try_get::<i64, _>(format!("{p}_guest").as_str())? != 0,
            rating_before: row.try_get(format!("{p}_rating").as_str())?,
            rating_after: row.try_get(format!("{p}_rating_after").as_str())?,
        })
    };
    let moves: String = row.try_get("moves")?;
    let winner: Option<String> = row.try_get("winner")?;
    let reason: String = row.try_get("reason")?;
    Ok(ArchivedGame {
        id: row.try_get("id")?,
        variant: row.try_get("variant")?,
        rules: row.try_get("ruleset")?,
        perf: row.try_get("perf")?,
        rated: row.try_get::<i64, _>("rated")? != 0,
        clock: row.try_get("time_control")?,
        white: side("white")?,
        black: side("black")?,
        start_fen: row.try_get("start_fen")?,
        moves: serde_json::from_str(&moves).map_err(|e| DbError::Corrupt(e.to_string()))?,
        result: row.try_get("result")?,
        winner: winner.as_deref().map(parse).transpose()?,
        reason: parse(&reason)?,
        rule: row.try_get("rule")?,
        started_at: row.try_get("started_ms")?,
        ended_at: row.try_get("ended_ms")?,
        arena: row.try_get("arena_id")?,
        tournament: row.try_get("tournament_id")?,
        berserk: berserk_of(row.try_get("berserk")?)?,
    })
}

impl Db {
    /// Archives a finished game exactly once: a second call with the same id changes
    /// nothing and answers what the first stored. In a rated game between two
    /// registered players, both ratings are updated in the same transaction.
    pub async fn archive(&self, g: &ArchivedGame) -> Result<Ratings, DbError> {
        let mut tx = self.pool().begin().await?;
        let moves = serde_json::to_string(&g.moves).map_err(|e| DbError::Corrupt(e.to_string()))?;
        let inserted = sqlx::query(&format!(
            "INSERT INTO games ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, \
             $11, $12, NULL, NULL, NULL, NULL, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23) \
             ON CONFLICT (id) DO NOTHING"
        ))
        .bind(&g.id)
        .bind(&g.variant)
        .bind(&g.rules)
        .bind(&g.perf)
        .bind(i64::from(g.rated))
        .bind(&g.clock)
        .bind(&g.white.id)
        .bind(&g.white.name)
        .bind(i64::from(g.white.guest))
        .bind(&g.black.id)
        .bind(&g.black.name)
        .bind(i64::from(g.black.guest))
        .bind(g.start_fen.as_deref())
        .bind(&moves)
        .bind(&g.result)
        .bind(g.winner.map(|c| text(&c)))
        .bind(text(&g.reason))
        .bind(g.rule.as_deref())
        .bind(g.started_at)
        .bind(g.ended_at)
        .bind(g.arena.as_deref())
        .bind(g.tournament.as_deref())
        .bind(berserk_text(&g.berserk))
        .execute(&mut *tx)
        .await?;
        if inserted.rows_affected() == 0 {
            tx.rollback().await?;
            let stored = self
                .game(&g.id)
                .await?
                .ok_or_else(|| DbError::Corrupt(format!("game {} vanished", g.id)))?;
            return Ok(changes_of(&stored));
        }
        for p in [&g.white, &g.black].into_iter().filter(|p| !p.guest) {
            sqlx::query(
                "INSERT INTO player_games (player_id, game_id, perf, ended_ms) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (player_id, game_id) DO NOTHING",
            )
            .bind(&p.id)
            .bind(&g.id)
            .bind(&g.perf)
            .bind(g.ended_at)
            .execute(&mut *tx)
            .await?;
        }
        let changes = match (self.rateable(g), g.perf.parse::<Perf>()) {
            (Some(result), Ok(perf)) => self.rate(&mut tx, g, perf, result).await?,
            _ => Ratings::default(),
        };
        tx.commit().await?;
        Ok(changes)
    }

    /// The result of a game that moves ratings: rated, two registered players, not
    /// aborted.
    fn rateable(&self, g: &ArchivedGame) -> Option<GameResult> {
        if !g.rated || g.white.guest || g.black.guest || g.reason == OutcomeReason::Aborted {
            return None;
        }
        Some(GameResult::from_winner(g.winner))
    }

    async fn rate(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        g: &ArchivedGame,
        perf: Perf,
        result: GameResult,
    ) -> Result<Ratings, DbError> {
        let lock = if self.backend() == Backend::Postgres {
            " FOR UPDATE"
        } else {
            ""
        };
        // Rows are read in id order so that two archivers never wait on each other.
        let mut ids = [g.white.id.as_str(), g.black.id.as_str()];
        ids.sort_unstable();
        let mut before = std::collections::HashMap::new();
        let fresh = Glicko::default();
        for id in ids {
            // A player whose row could not be made at connection time (the database
            // was down) gets one now, under a key no chosen name can take, so that
            // the rating has an owner and the archive never fails on it.
            sqlx::query(
                "INSERT INTO players (id, name, name_key, password_hash, created_ms, seen_ms) \
                 VALUES ($1, $1, $2, NULL, $3, $3) ON CONFLICT DO NOTHING",
            )
            .bind(id)
            .bind(format!("#{id}"))
            .bind(now_ms())
            .execute(&mut **tx)
            .await?;
            // The row must exist before it can be locked: two games of a new player
            // ending at once would otherwise both start from the default and one
            // update would be lost.
            sqlx::query(
                "INSERT INTO ratings (player_id, perf, rating, rd, volatility, games, updated_ms) \
                 VALUES ($1, $2, $3, $4, $5, 0, $6) ON CONFLICT (player_id, perf) DO NOTHING",
            )
            .bind(id)
            .bind(perf.key())
            .bind(fresh.rating)
            .bind(fresh.rd)
            .bind(fresh.volatility)
            .bind(now_ms())
            .execute(&mut **tx)
            .await?;
            let row = sqlx::query(&format!(
                "SELECT rating, rd, volatility, games, updated_ms FROM ratings \
                 WHERE player_id = $1 AND perf = $2{lock}"
            ))
            .bind(id)
            .bind(perf.key())
            .fetch_optional(&mut **tx)
            .await?;
            let entry = match row {
                Some(row) => (aged(&row)?, row.try_get::<i64, _>("games")?),
                None => (Glicko::default(), 0),
            };
            before.insert(id, entry);
        }
        let (w0, wn) = before[g.white.id.as_str()];
        let (b0, bn) = before[g.black.id.as_str()];
        let (w1, b1) = rating::update(w0, b0, result);
        let now = now_ms();
        for (id, after, games) in [(&g.white.id, w1, wn + 1), (&g.black.id, b1, bn + 1)] {
            sqlx::query(
                "INSERT INTO ratings (player_id, perf, rating, rd, volatility, games, updated_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (player_id, perf) DO UPDATE SET \
                 rating = excluded.rating, rd = excluded.rd, volatility = excluded.volatility, \
                 games = excluded.games, updated_ms = excluded.updated_ms",
            )
            .bind(id)
            .bind(perf.key())
            .bind(after.rating)
            .bind(after.rd)
            .bind(after.volatility)
            .bind(games)
            .bind(now)
            .execute(&mut **tx)
            .await?;
        }
        sqlx::query(
            "UPDATE games SET white_rating = $1, white_rating_after = $2, black_rating = $3, \
             black_rating_after = $4 WHERE id = $5",
        )
        .bind(w0.rating)
        .bind(w1.rating)
        .bind(b0.rating)
        .bind(b1.rating)
        .bind(&g.id)
        .execute(&mut **tx)
        .await?;
        Ok(Ratings {
            white: Some(change(w0.rating, w1.rating)),
            black: Some(change(b0.rating, b1.rating)),
        })
    }

    /// An archived game.
    pub async fn game(&self, id: &str) -> Result<Option<ArchivedGame>, DbError> {
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM games WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(game).transpose()
    }

    /// Is the game archived?
    pub async fn is_archived(&self, id: &str) -> Result<bool, DbError> {
        Ok(sqlx::query("SELECT 1 FROM games WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await?
            .is_some())
    }

    /// One page of a player's games, newest first, ended strictly before `before`
    /// (or strictly after the cursor's game id at the same instant).
    async fn page(
        &self,
        player_id: &str,
        perf: Option<&str>,
        cursor: Option<(i64, String)>,
        limit: u32,
    ) -> Result<Vec<ArchivedGame>, DbError> {
        let perf_clause = if perf.is_some() {
            " AND pg.perf = $4"
        } else {
            ""
        };
        let cols = COLUMNS
            .split(", ")
            .map(|c| format!("g.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let (before, last_id) = cursor.unwrap_or((i64::MAX, String::new()));
        let after_clause = if last_id.is_empty() {
            "pg.ended_ms < $2"
        } else {
            "(pg.ended_ms < $2 OR (pg.ended_ms = $2 AND pg.game_id < $5))"
        };
        let sql = format!(
            "SELECT {cols} FROM player_games pg JOIN games g ON g.id = pg.game_id \
             WHERE pg.player_id = $1 AND {after_clause}{perf_clause} \
             ORDER BY pg.ended_ms DESC, pg.game_id DESC LIMIT $3"
        );
        let mut q = sqlx::query(&sql)
            .bind(player_id)
            .bind(before)
            .bind(i64::from(limit));
        // Placeholders are numbered: bind $4 even when unused so $5 keeps its place.
        if perf.is_some() || !last_id.is_empty() {
            q = q.bind(perf.unwrap_or_default().to_string());
        }
        if !last_id.is_empty() {
            q = q.bind(last_id);
        }
        let rows = q.fetch_all(self.pool()).await?;
        rows.iter().map(game).collect()
    }

    /// A player's games, newest first, fetched a page at a time as the stream is read.
    pub fn games_of(
        &self,
        player_id: String,
        filter: GameFilter,
    ) -> impl Stream<Item = Result<ArchivedGame, DbError>> + Send + 'static {
        struct State {
            db: Db,
            player: String,
            perf: Option<String>,
            cursor: Option<(i64, String)>,
            left: u32,
            buffer: std::vec::IntoIter<ArchivedGame>,
            done: bool,
        }
        let start = State {
            db: self.clone(),
            player: player_id,
            perf: filter.perf,
            cursor: filter.before.map(|b| (b, String::new())),
            left: filter.max,
            buffer: Vec::new().into_iter(),
            done: false,
        };
        stream::unfold(start, |mut s| async move {
            loop {
                if s.left == 0 {
                    return None;
                }
                if let Some(g) = s.buffer.next() {
                    s.left -= 1;
                    s.cursor = Some((g.ended_at, g.id.clone()));
                    return Some((Ok(g), s));
                }
                if s.done {
                    return None;
                }
                let want = s.left.min(PAGE);
                match s
                    .db
                    .page(&s.player, s.perf.as_deref(), s.cursor.clone(), want)
                    .await
                {
                    Ok(page) => {
                        s.done = (page.len() as u32) < want;
                        s.buffer = page.into_iter();
                    }
                    Err(e) => {
                        s.done = true;
                        s.left = 0;
                        return Some((Err(e), s));
                    }
                }
            }
        })
    }

    /// A player's rating after each rated game of a perf, oldest first.
    pub async fn rating_history(
        &self,
        player_id: &str,
        perf: Perf,
    ) -> Result<Vec<(i64, f64)>, DbError> {
        let rows = sqlx::query(
            "SELECT g.ended_ms, CASE WHEN g.white_id = $1 THEN g.white_rating_after ELSE g.black_rating_after END AS after \
             FROM player_games pg JOIN games g ON g.id = pg.game_id \
             WHERE pg.player_id = $1 AND pg.perf = $2 AND g.rated = 1 \
             ORDER BY pg.ended_ms, pg.game_id",
        )
        .bind(player_id)
        .bind(perf.key())
        .fetch_all(self.pool())
        .await?;
        let mut points = Vec::with_capacity(rows.len());
        for row in &rows {
            if let Some(after) = row.try_get::<Option<f64>, _>("after")? {
                points.push((row.try_get("ended_ms")?, after));
            }
        }
        Ok(points)
    }
}

/// The rating changes recorded in an archived game.
pub fn changes_of(g: &ArchivedGame) -> Ratings {
    let change = |p: &ArchivedPlayer| match (p.rating_before, p.rating_after) {
        (Some(before), Some(after)) => Some(change(before, after)),
        _ => None,
    };
    Ratings {
        white: change(&g.white),
        black: change(&g.black),
    }
}

fn change(before: f64, after: f64) -> RatingChange {
    let round = |r: f64| r.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
    RatingChange {
        before: round(before),
        after: round(after),
    }
}
