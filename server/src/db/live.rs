//! The live games of a node without Redis, as rows (`server/migrations/0005`): one row
//! per game with its last whole snapshot and latest tail, the law's actions appended
//! since that snapshot, and every event in version order. Many games' writes go in one
//! transaction ([`LiveWriter::write`]: one commit, one fsync for all of them). On
//! PostgreSQL that is a few multi-row statements per table ([`ROWS_PER_STATEMENT`] rows
//! each), not one per event, action and tail: the transaction's cost grows with its
//! rows' bytes, not with a round trip per row. On SQLite it is the writer's own
//! connection running prepared statements (`live_sqlite.rs`), on the caller's thread,
//! that append the same rows to one ordered log (`live_log.rs`, `server/migrations/0012`
//! and `0013`) instead of the tables; reading a game back folds its log rows onto its
//! tables' rows (those of a node that wrote before the log).
//! The node's last sign of life is a setting written with a transaction (the writer
//! says which: `game::store` every 50 ms at most while games write), so that a restart
//! knows when the node died.
//!
//! The same rows hold the write-behind mirror of a clustered node's games
//! ([`Db::mirror_write`], `server/migrations/0011`): each row also says which node
//! wrote it last and under which lease fence, a write under a lower fence leaves the
//! row's state alone, and each node's last sign of life is a setting of its own
//! (`live_alive_ms:<node>`), since several nodes write the same tables.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use sqlx::{AnyConnection, Row};

use super::live_group::{DROP_ACTS, FORGET, int};
pub use super::live_group::{LiveGroup, LiveWrite};
pub use super::live_log::SLACK_ROWS;
use super::live_log::{Fold, LogRow};
use super::live_sqlite::SqliteLive;
use super::{Backend, Db, DbError};

/// The setting holding the wall-clock ms of the node's last live-game transaction
/// (a node without Redis); a clustered node's is `live_alive_ms:<node>`.
const ALIVE: &str = "live_alive_ms";

/// The setting of `node`'s last sign of life ([`ALIVE`] for a node without Redis, whose
/// rows name no node).
fn alive_setting(node: &str) -> String {
    if node.is_empty() {
        ALIVE.to_string()
    } else {
        format!("{ALIVE}:{node}")
    }
}

/// A live game as stored.
#[derive(Debug)]
pub struct LiveRow {
    /// The game.
    pub id: String,
    /// The last whole snapshot JSON.
    pub snapshot: String,
    /// The latest tail JSON, if written since.
    pub tail: Option<String>,
    /// The actions appended after the snapshot (JSON), in order.
    pub acts: Vec<String>,
    /// Every event stored: version and JSON, in version order.
    pub events: Vec<(u64, String)>,
    /// The lease fence the row was last written under (0: a node without Redis).
    pub fence: u64,
    /// The node that wrote the row last (empty: a node without Redis).
    pub node: String,
}

fn uint(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// One game's write to the mirror: a [`LiveWrite`] under the game's lease fence.
#[derive(Debug)]
pub struct MirrorWrite {
    /// What is written.
    pub write: LiveWrite,
    /// The fencing number of the lease it was stored in Redis under.
    pub fence: u64,
}

/// Rows in one multi-row statement, at most: big enough that a busy transaction sends a
/// few statements per table, small enough to keep each statement's text modest and its
/// bind parameters (at most 5 a row, so 5,000) far under SQLite's 32,766 and
/// PostgreSQL's 65,535.
pub const ROWS_PER_STATEMENT: usize = 1000;

/// A value bound in a multi-row statement.
#[derive(Clone, Copy)]
enum Val<'a> {
    Text(&'a str),
    Int(i64),
}

/// Runs `sql(values)` once per [`ROWS_PER_STATEMENT`] rows, `values` being their
/// placeholders: `($1, $2), ($3, $4), …` on PostgreSQL, `(?, ?), (?, ?), …` on SQLite
/// (where binding each of a statement's numbered parameters looks its name up in a list
/// of all of them: 5,000 parameters made a write spend its time in those lookups), and returns
/// the first column of every row the statements return (`RETURNING id`). A statement of
/// a full chunk is prepared once per connection; a shorter one, whose text varies, is not
/// kept.
async fn per_rows<const N: usize>(
    conn: &mut AnyConnection,
    rows: &[[Val<'_>; N]],
    sql: impl Fn(&str) -> String,
) -> Result<Vec<String>, DbError> {
    let mut returned = Vec::new();
    let numbered = conn.backend_name() != "SQLite";
    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
        let values = placeholders(chunk.len(), N, numbered);
        let sql = sql(&values);
        let mut query = sqlx::query(&sql).persistent(chunk.len() == ROWS_PER_STATEMENT);
        for row in chunk {
            for val in row {
                query = match *val {
                    Val::Text(s) => query.bind(s),
                    Val::Int(n) => query.bind(n),
                };
            }
        }
        for row in query.fetch_all(&mut *conn).await? {
            returned.push(row.try_get::<String, _>(0)?);
        }
    }
    Ok(returned)
}

/// The placeholders of `rows` rows of `n` values: `($1, $2), ($3, $4), …` if
/// `numbered` (PostgreSQL), else `(?, ?), (?, ?), …`.
fn placeholders(rows: usize, n: usize, numbered: bool) -> String {
    let mut values = String::with_capacity(rows * n * 7);
    for i in 0..rows {
        values.push_str(if i > 0 { ", (" } else { "(" });
        for j in 0..n {
            if j > 0 {
                values.push_str(", ");
            }
            if numbered {
                let _ = write!(values, "${}", i * n + j + 1);
            } else {
                values.push('?');
            }
        }
        values.push(')');
    }
    values
}

/// The statements of one PostgreSQL transaction, made before any of them runs: each
/// statement and its bound values.
#[derive(Default)]
struct Script<'a> {
    statements: Vec<(String, Vec<Val<'a>>)>,
}

impl<'a> Script<'a> {
    /// `sql(values)` once per [`ROWS_PER_STATEMENT`] of `rows` (none if there are
    /// none), `values` being the rows' placeholders: `($1, $2), ($3, $4), …`.
    fn rows<const N: usize>(&mut self, rows: &[[Val<'a>; N]], sql: impl Fn(&str) -> String) {
        for chunk in rows.chunks(ROWS_PER_STATEMENT) {
            let values = placeholders(chunk.len(), N, true);
            let vals = chunk.iter().flat_map(|row| row.iter().copied()).collect();
            self.statements.push((sql(&values), vals));
        }
    }

    /// Records `node`'s sign of life `alive_ms` if given (the setting [`write_alive`]
    /// writes), then runs everything in one transaction on `conn`.
    async fn commit(
        mut self,
        conn: &mut AnyConnection,
        node: &str,
        alive_ms: Option<u64>,
    ) -> Result<(), DbError> {
        let setting = alive_setting(node);
        let ms = alive_ms.map(|ms| ms.to_string());
        if let Some(ms) = &ms {
            self.rows(&[[Val::Text(&setting), Val::Text(ms)]], |v| {
                format!(
                    "INSERT INTO settings (name, value) VALUES {v} \
                     ON CONFLICT (name) DO UPDATE SET value = excluded.value"
                )
            });
        }
        let mut tx = sqlx::Connection::begin(&mut *conn).await?;
        for (sql, vals) in &self.statements {
            let mut query = sqlx::query(sql);
            for val in vals {
                query = match *val {
                    Val::Text(s) => query.bind(s),
                    Val::Int(n) => query.bind(n),
                };
            }
            query.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

/// `items` split into rounds holding each game at most once, in order (a game's second
/// write in the second round...): a multi-row statement must not touch a row twice.
/// Writes of one transaction name each game once, so there is one round.
fn rounds<T>(items: &[T], id: impl Fn(&T) -> &str) -> Vec<Vec<&T>> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut rounds: Vec<Vec<&T>> = Vec::new();
    for item in items {
        let n = seen.entry(id(item)).or_insert(0);
        if rounds.len() <= *n {
            rounds.push(Vec::new());
        }
        rounds[*n].push(item);
        *n += 1;
    }
    rounds
}

/// `sql` (ending in `IN`) over the ids of the `[id]` rows whose placeholders are
/// `values`.
fn in_ids(sql: &str, values: &str) -> String {
    format!("{sql} (SELECT column1 FROM (VALUES {values}) AS v)")
}

/// `[id]` rows of `ids`.
fn id_rows<'a>(ids: impl Iterator<Item = &'a str>) -> Vec<[Val<'a>; 1]> {
    ids.map(|id| [Val::Text(id)]).collect()
}

/// Deletes the actions of the games `ids`.
async fn drop_acts(conn: &mut AnyConnection, ids: &[[Val<'_>; 1]]) -> Result<(), DbError> {
    per_rows(conn, ids, |v| in_ids(DROP_ACTS, v)).await?;
    Ok(())
}

/// Records `node`'s sign of life (`""`: a node without Redis).
async fn write_alive(conn: &mut AnyConnection, node: &str, alive_ms: u64) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO settings (name, value) VALUES ($1, $2) \
         ON CONFLICT (name) DO UPDATE SET value = excluded.value",
    )
    .bind(alive_setting(node))
    .bind(alive_ms.to_string())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// One round of a PostgreSQL [`LiveWriter::write`]: each game once, a few statements per
/// table.
fn live_round<'a>(script: &mut Script<'a>, writes: &[&'a LiveWrite]) {
    let snaps: Vec<[Val; 3]> = writes
        .iter()
        .filter_map(|w| {
            let s = w.snapshot.as_deref()?;
            Some([Val::Text(&w.id), Val::Text(s), Val::Text(&w.tail)])
        })
        .collect();
    script.rows(&snaps, |v| {
        format!(
            "INSERT INTO live_games (id, snapshot, tail) VALUES {v} ON CONFLICT (id) \
             DO UPDATE SET snapshot = excluded.snapshot, tail = excluded.tail"
        )
    });
    let snapshotted = writes.iter().filter(|w| w.snapshot.is_some());
    script.rows(&id_rows(snapshotted.map(|w| w.id.as_str())), |v| {
        in_ids(DROP_ACTS, v)
    });
    let tails: Vec<[Val; 2]> = writes
        .iter()
        .filter(|w| w.snapshot.is_none())
        .map(|w| [Val::Text(&w.id), Val::Text(&w.tail)])
        .collect();
    script.rows(&tails, |v| {
        format!(
            "UPDATE live_games SET tail = v.column2 FROM (VALUES {v}) AS v \
             WHERE live_games.id = v.column1"
        )
    });
    let acts: Vec<[Val; 3]> = writes
        .iter()
        .flat_map(|w| w.acts.iter().map(|(seq, json)| row3(&w.id, *seq, json)))
        .collect();
    script.rows(&acts, |v| {
        format!("INSERT INTO live_acts (game_id, seq, json) VALUES {v}")
    });
    let events: Vec<[Val; 3]> = writes
        .iter()
        .flat_map(|w| {
            w.events
                .iter()
                .map(|(version, json)| row3(&w.id, *version, json))
        })
        .collect();
    script.rows(&events, |v| {
        format!(
            "INSERT INTO live_events (game_id, version, json) VALUES {v} \
             ON CONFLICT (game_id, version) DO NOTHING"
        )
    });
}

/// A `(game, number, json)` row.
fn row3<'a>(id: &'a str, n: u64, json: &'a str) -> [Val<'a>; 3] {
    [Val::Text(id), Val::Int(int(n)), Val::Text(json)]
}

/// One round of [`Db::mirror_write`]: each game once, a few statements per table.
async fn mirror_round(
    conn: &mut AnyConnection,
    writes: &[&MirrorWrite],
    node: &str,
) -> Result<(), DbError> {
    let snaps: Vec<[Val; 5]> = writes
        .iter()
        .filter_map(|m| {
            let s = m.write.snapshot.as_deref()?;
            let w = &m.write;
            Some([
                Val::Text(&w.id),
                Val::Text(s),
                Val::Text(&w.tail),
                Val::Int(int(m.fence)),
                Val::Text(node),
            ])
        })
        .collect();
    // The games whose row this write is not older than (its fence at least the row's).
    let mut current: HashSet<String> = per_rows(conn, &snaps, |v| {
        format!(
            "INSERT INTO live_games (id, snapshot, tail, fence, node) VALUES {v} \
             ON CONFLICT (id) DO UPDATE SET snapshot = excluded.snapshot, \
             tail = excluded.tail, fence = excluded.fence, node = excluded.node \
             WHERE live_games.fence <= excluded.fence RETURNING id"
        )
    })
    .await?
    .into_iter()
    .collect();
    let snapshotted = writes
        .iter()
        .filter(|m| m.write.snapshot.is_some() && current.contains(&m.write.id));
    drop_acts(conn, &id_rows(snapshotted.map(|m| m.write.id.as_str()))).await?;
    let tails: Vec<[Val; 4]> = writes
        .iter()
        .filter(|m| m.write.snapshot.is_none())
        .map(|m| {
            let w = &m.write;
            [
                Val::Text(&w.id),
                Val::Text(&w.tail),
                Val::Int(int(m.fence)),
                Val::Text(node),
            ]
        })
        .collect();
    current.extend(
        per_rows(conn, &tails, |v| {
            format!(
                "UPDATE live_games SET tail = v.column2, fence = v.column3, node = v.column4 \
                 FROM (VALUES {v}) AS v \
                 WHERE live_games.id = v.column1 AND live_games.fence <= v.column3 RETURNING id"
            )
        })
        .await?,
    );
    let mut acts: Vec<[Val; 3]> = Vec::new();
    for m in writes.iter().filter(|m| current.contains(&m.write.id)) {
        // One row per place, the last given (a statement must not update a row twice).
        let mut last: HashMap<u64, &str> = HashMap::new();
        let mut order = Vec::new();
        for (seq, json) in &m.write.acts {
            if last.insert(*seq, json).is_none() {
                order.push(*seq);
            }
        }
        acts.extend(order.iter().filter_map(|seq| {
            let json = last.get(seq)?;
            Some(row3(&m.write.id, *seq, json))
        }));
    }
    per_rows(conn, &acts, |v| {
        format!(
            "INSERT INTO live_acts (game_id, seq, json) VALUES {v} \
             ON CONFLICT (game_id, seq) DO UPDATE SET json = excluded.json"
        )
    })
    .await?;
    let events: Vec<[Val; 3]> = writes
        .iter()
        .flat_map(|m| {
            let w = &m.write;
            w.events
                .iter()
                .map(|(version, json)| row3(&w.id, *version, json))
        })
        .collect();
    per_rows(conn, &events, |v| {
        format!(
            "INSERT INTO live_events (game_id, version, json) \
             SELECT v.column1, v.column2, v.column3 FROM (VALUES {v}) AS v \
             WHERE EXISTS (SELECT 1 FROM live_games WHERE live_games.id = v.column1) \
             ON CONFLICT (game_id, version) DO NOTHING"
        )
    })
    .await?;
    Ok(())
}

/// Deletes every row of the games `ids`.
async fn forget_rows(conn: &mut AnyConnection, ids: &[&str]) -> Result<(), DbError> {
    let rows = id_rows(ids.iter().copied());
    for sql in FORGET {
        per_rows(conn, &rows, |v| in_ids(sql, v)).await?;
    }
    Ok(())
}

/// The live-game writer's own connection, out of the pool: SQLite keeps a connection's
/// page cache only while no other connection wrote, so a writer that took whichever
/// pooled connection was free read its pages back from the file at almost every
/// commit. Made at first use, and again after a failed write (PostgreSQL).
///
/// On SQLite a write runs on the calling thread and blocks it until the commit is on
/// disk ([`LiveWriter::blocks`]): its owner runs it on a thread of its own.
#[derive(Debug)]
pub struct LiveWriter {
    db: Db,
    conn: Option<Own>,
    /// SQLite: the rows of its log past which, beyond twice what the live games need,
    /// the oldest games are compacted.
    slack: u64,
}

/// The writer's connection.
#[derive(Debug)]
enum Own {
    Postgres(AnyConnection),
    Sqlite(Box<SqliteLive>),
}

impl LiveWriter {
    /// Whether a write blocks the calling thread (SQLite) rather than awaiting a
    /// server (PostgreSQL).
    pub fn blocks(&self) -> bool {
        self.db.backend() == Backend::Sqlite
    }

    /// The connection, made if there is none.
    async fn own(&mut self) -> Result<&mut Own, DbError> {
        let own = match self.conn.take() {
            Some(own) => own,
            None => match (self.db.backend(), &self.db.file) {
                (Backend::Postgres, _) => Own::Postgres(self.db.pool().acquire().await?.detach()),
                (Backend::Sqlite, Some(file)) => Own::Sqlite(Box::new(SqliteLive::open(
                    file,
                    alive_setting(""),
                    self.slack,
                )?)),
                (Backend::Sqlite, None) => {
                    return Err(DbError::Config(
                        "live games need a SQLite file, not a database in memory".into(),
                    ));
                }
            },
        };
        Ok(self.conn.insert(own))
    }

    /// The node's last recorded sign of life (wall ms), if any: what
    /// [`Db::live_alive_ms`] reads, on the writer's own connection (SQLite's; the
    /// pool's on PostgreSQL). The store reads it before its first write.
    pub async fn alive_ms(&mut self) -> Result<Option<u64>, DbError> {
        match self.own().await? {
            Own::Sqlite(live) => live.alive_ms(),
            Own::Postgres(_) => self.db.live_alive_ms().await,
        }
    }

    /// Stores a group's writes, deletes the rows of the games it forgets, and records
    /// the node's sign of life `alive_ms` if given, in one transaction however many
    /// games; `group` is left empty (its buffers kept).
    pub async fn write(
        &mut self,
        group: &mut LiveGroup,
        alive_ms: Option<u64>,
    ) -> Result<(), DbError> {
        let result = match self.own().await {
            Err(e) => Err(e),
            Ok(Own::Sqlite(live)) => live.write(group, alive_ms),
            Ok(Own::Postgres(conn)) => {
                let mut script = Script::default();
                for round in rounds(&group.writes, |w| &w.id) {
                    live_round(&mut script, &round);
                }
                let forget = id_rows(group.forget.iter().map(String::as_str));
                for table in FORGET {
                    script.rows(&forget, |v| in_ids(table, v));
                }
                let result = script.commit(conn, "", alive_ms).await;
                if result.is_err() {
                    self.conn = None;
                }
                result
            }
        };
        group.clear();
        result
    }
}

impl Db {
    /// A writer of live games on a connection of its own.
    pub fn live_writer(&self) -> LiveWriter {
        self.live_writer_compacting_past(SLACK_ROWS)
    }

    /// A writer of live games whose SQLite log is compacted once it is longer than
    /// twice what its live games need plus `slack_rows` ([`SLACK_ROWS`] for
    /// [`Db::live_writer`]).
    pub fn live_writer_compacting_past(&self, slack_rows: u64) -> LiveWriter {
        LiveWriter {
            db: self.clone(),
            conn: None,
            slack: slack_rows,
        }
    }

    /// Writes several games' mirrored writes, deletes the rows of the games in `forget`
    /// (archived) and records `node`'s sign of life `alive_ms`, in one transaction of a
    /// few multi-row statements per table. A write under a lower fence than its row's
    /// (its node lost the game's lease since) leaves the row's snapshot, tail and
    /// actions alone; its events, the same in Redis whoever wrote them, are added if
    /// missing. Events of a game with no row are not.
    pub async fn mirror_write(
        &self,
        writes: &[MirrorWrite],
        forget: &[String],
        node: &str,
        alive_ms: u64,
    ) -> Result<(), DbError> {
        let mut tx = self.pool().begin().await?;
        for round in rounds(writes, |m| &m.write.id) {
            mirror_round(&mut tx, &round, node).await?;
        }
        let forget: Vec<&str> = forget.iter().map(String::as_str).collect();
        forget_rows(&mut tx, &forget).await?;
        write_alive(&mut tx, node, alive_ms).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Every node's last sign of life (wall ms) by node name (empty: a node without
    /// Redis).
    pub async fn live_alive_all(&self) -> Result<std::collections::HashMap<String, u64>, DbError> {
        let rows = sqlx::query("SELECT name, value FROM settings WHERE name LIKE 'live_alive_ms%'")
            .fetch_all(self.pool())
            .await?;
        let mut alive = std::collections::HashMap::new();
        for row in rows {
            let name: String = row.try_get(0)?;
            let value: String = row.try_get(1)?;
            let node = match name.strip_prefix(ALIVE) {
                Some("") => "",
                Some(rest) => match rest.strip_prefix(':') {
                    Some(node) => node,
                    None => continue,
                },
                None => continue,
            };
            if let Ok(ms) = value.parse() {
                alive.insert(node.to_string(), ms);
            }
        }
        Ok(alive)
    }

    /// Every stored live game: the rows of the tables, with what SQLite's ordered log
    /// holds on top (the log read once).
    pub async fn live_games(&self) -> Result<Vec<LiveRow>, DbError> {
        let mut logged = self.live_log(None).await?;
        let mut games = Vec::new();
        for id in self.live_ids().await? {
            let rows = logged.remove(&id).unwrap_or_default();
            let table = self.live_table_row(&id).await?;
            if let Some(game) = merged(&id, table, rows) {
                games.push(game);
            }
        }
        Ok(games)
    }

    /// The ids of every stored live game: in the tables or SQLite's log, not forgotten.
    pub async fn live_ids(&self) -> Result<Vec<String>, DbError> {
        let sql = match self.backend() {
            Backend::Sqlite => {
                "SELECT id FROM live_games UNION SELECT game_id FROM live_log_both \
                 EXCEPT SELECT game_id FROM live_log_both WHERE kind = 4 ORDER BY 1"
            }
            Backend::Postgres => "SELECT id FROM live_games ORDER BY id",
        };
        Ok(sqlx::query(sql)
            .fetch_all(self.pool())
            .await?
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<Vec<_>, _>>()?)
    }

    /// One stored live game, if it is there.
    pub async fn live_game(&self, id: &str) -> Result<Option<LiveRow>, DbError> {
        let rows = self
            .live_log(Some(id))
            .await?
            .remove(id)
            .unwrap_or_default();
        let table = self.live_table_row(id).await?;
        Ok(merged(id, table, rows))
    }

    /// The rows of SQLite's ordered log, by game, of one game or all (none on
    /// PostgreSQL, whose writer keeps to the tables).
    async fn live_log(&self, id: Option<&str>) -> Result<HashMap<String, Vec<LogRow>>, DbError> {
        let mut logged: HashMap<String, Vec<LogRow>> = HashMap::new();
        if self.backend() != Backend::Sqlite {
            return Ok(logged);
        }
        let query = match id {
            Some(id) => sqlx::query(
                "SELECT game_id, seq, at, kind, n, json FROM live_log_both WHERE game_id = $1",
            )
            .bind(id),
            None => sqlx::query("SELECT game_id, seq, at, kind, n, json FROM live_log_both"),
        };
        for row in query.fetch_all(self.pool()).await? {
            let read = LogRow::read(
                row.try_get(1)?,
                row.try_get(2)?,
                row.try_get(3)?,
                row.try_get(4)?,
                row.try_get(5)?,
            );
            if let Some(read) = read {
                logged.entry(row.try_get(0)?).or_default().push(read);
            }
        }
        Ok(logged)
    }

    /// A live game's row in the tables, if it has one.
    async fn live_table_row(&self, id: &str) -> Result<Option<LiveRow>, DbError> {
        let Some(row) =
            sqlx::query("SELECT snapshot, tail, fence, node FROM live_games WHERE id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?
        else {
            return Ok(None);
        };
        let acts = sqlx::query("SELECT json FROM live_acts WHERE game_id = $1 ORDER BY seq")
            .bind(id)
            .fetch_all(self.pool())
            .await?
            .iter()
            .map(|r| r.try_get::<String, _>(0))
            .collect::<Result<Vec<_>, _>>()?;
        let events = sqlx::query(
            "SELECT version, json FROM live_events WHERE game_id = $1 ORDER BY version",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?
        .iter()
        .map(|r| Ok((uint(r.try_get::<i64, _>(0)?), r.try_get::<String, _>(1)?)))
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
        Ok(Some(LiveRow {
            id: id.to_string(),
            snapshot: row.try_get(0)?,
            tail: row.try_get(1)?,
            fence: uint(row.try_get::<i64, _>(2)?),
            node: row.try_get(3)?,
            acts,
            events,
        }))
    }

    /// The wall-clock ms of the node's last live-game transaction, if any.
    pub async fn live_alive_ms(&self) -> Result<Option<u64>, DbError> {
        let row = sqlx::query("SELECT value FROM settings WHERE name = $1")
            .bind(ALIVE)
            .fetch_optional(self.pool())
            .await?;
        Ok(row
            .map(|r| r.try_get::<String, _>(0))
            .transpose()?
            .and_then(|v| v.parse().ok()))
    }
}

/// A game from its row in the tables (if any) with its rows of the log folded on top;
/// `None` if the log forgot it or nothing holds its snapshot.
fn merged(id: &str, table: Option<LiveRow>, rows: Vec<LogRow>) -> Option<LiveRow> {
    let (fence, node) = table
        .as_ref()
        .map_or((0, String::new()), |t| (t.fence, t.node.clone()));
    let mut base = Fold::default();
    if let Some(t) = table {
        base.snapshot = Some((0, t.snapshot));
        base.tail = t.tail.map(|tail| (0, tail));
        base.acts = (0..).zip(t.acts.into_iter().map(|a| (0, a))).collect();
        base.events = t.events.into_iter().map(|(v, e)| (v, (0, e))).collect();
    }
    let fold = base.with(rows);
    if fold.forgotten {
        return None;
    }
    Some(LiveRow {
        id: id.to_string(),
        snapshot: fold.snapshot?.1,
        tail: fold.tail.map(|(_, tail)| tail),
        acts: fold.acts.into_values().map(|(_, a)| a).collect(),
        events: fold.events.into_iter().map(|(v, (_, e))| (v, e)).collect(),
        fence,
        node,
    })
}
