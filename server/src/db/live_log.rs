//! The ordered log a SQLite node without Redis stores its live games in
//! (`server/migrations/0012`): each group commit appends its rows (a game's whole
//! snapshot, its tail, the law's actions, its events; the mark of a game forgotten) at
//! the end of one table, so that a commit writes the log's last pages and nothing else.
//! The tables of `0005` took a page per game in each of three tables and their indexes
//! (`docs/performance.md`, "The ordered log").
//!
//! A game's state is its rows folded in order ([`Fold`]). The log is two tables used in
//! turn (`0013`): the writer appends to one; once it has grown long against what the
//! live games need and the other is empty, it turns to the other, and the older table
//! is emptied whole once no live game's rows start in it ([`Heads`]): freeing a
//! table's pages writes none of them, where deleting rows from the log's head wrote
//! about as many pages as appending them had. A game that lives long would keep the
//! older table, so once the newer one is half as long again, the games still starting
//! in the older are folded off the writer's thread (a read of their rows, [`compact`])
//! and appended again, each copy keeping the place its row stood at (`at`), so that a
//! fold over old rows and copies comes out the same.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use rusqlite::{CachedStatement, Connection, Transaction, params};

use super::DbError;
use super::live_group::{LiveGroup, int};

/// What a row of the log is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A whole snapshot: the law's actions before it are dropped.
    Snapshot = 0,
    /// The latest small state.
    Tail = 1,
    /// A law's action, `n` its place after the snapshot.
    Act = 2,
    /// An event, `n` its version.
    Event = 3,
    /// The game was archived: none of its rows counts.
    Forget = 4,
}

impl Kind {
    fn from_i64(n: i64) -> Option<Kind> {
        Some(match n {
            0 => Kind::Snapshot,
            1 => Kind::Tail,
            2 => Kind::Act,
            3 => Kind::Event,
            4 => Kind::Forget,
            _ => return None,
        })
    }
}

/// One row as read back: its place in the log (`at` for a copy), what it is, its
/// number and text.
#[derive(Clone, Debug)]
pub(crate) struct LogRow {
    pub(crate) pos: i64,
    pub(crate) seq: i64,
    pub(crate) kind: Kind,
    pub(crate) n: u64,
    pub(crate) json: String,
}

/// A game's state folded from its rows, each part with the place of the row it came
/// from (so that a compaction's copies keep their order).
#[derive(Debug, Default)]
pub(crate) struct Fold {
    pub(crate) snapshot: Option<(i64, String)>,
    pub(crate) tail: Option<(i64, String)>,
    pub(crate) acts: BTreeMap<u64, (i64, String)>,
    pub(crate) events: BTreeMap<u64, (i64, String)>,
    pub(crate) forgotten: bool,
}

impl Fold {
    /// Applies one row; rows must come in the order of their places (a copy beside its
    /// original: applying a row twice changes nothing).
    fn apply(&mut self, row: LogRow) {
        let LogRow {
            pos, kind, n, json, ..
        } = row;
        match kind {
            Kind::Snapshot => {
                self.snapshot = Some((pos, json));
                self.acts.clear();
            }
            Kind::Tail => self.tail = Some((pos, json)),
            Kind::Act => {
                self.acts.insert(n, (pos, json));
            }
            Kind::Event => {
                self.events.entry(n).or_insert((pos, json));
            }
            Kind::Forget => self.forgotten = true,
        }
    }

    /// Folds `rows` (any order): sorted by place, a copy after its original.
    pub(crate) fn of(rows: Vec<LogRow>) -> Fold {
        Fold::default().with(rows)
    }

    /// This state with `rows` (any order) folded on top.
    pub(crate) fn with(mut self, mut rows: Vec<LogRow>) -> Fold {
        rows.sort_by_key(|r| (r.pos, r.seq));
        for row in rows {
            self.apply(row);
        }
        self
    }

    /// The rows that rebuild this state, in the order of their places: what a
    /// compaction appends again.
    fn rows(self) -> Vec<Copied> {
        let mut rows = Vec::with_capacity(2 + self.acts.len() + self.events.len());
        if let Some((pos, json)) = self.snapshot {
            rows.push((pos, Kind::Snapshot, 0, json));
        }
        if let Some((pos, json)) = self.tail {
            rows.push((pos, Kind::Tail, 0, json));
        }
        rows.extend(
            self.acts
                .into_iter()
                .map(|(n, (pos, json))| (pos, Kind::Act, n, json)),
        );
        rows.extend(
            self.events
                .into_iter()
                .map(|(n, (pos, json))| (pos, Kind::Event, n, json)),
        );
        rows.sort_by_key(|r| r.0);
        rows
    }
}

/// Rows the table written to holds, beyond twice what the live games need (their rows
/// but the tails each next one replaces), before the writer turns to the other table
/// (about 6 MiB of rows of a few hundred bytes).
pub const SLACK_ROWS: u64 = 20_000;
/// Games asked for in one compaction, at most.
const COMPACT_GAMES: usize = 64;
/// Copies appended in one commit, at most (but always a whole game's, the oldest
/// game's however many): the commit that carries them carries moves too; the rest of a
/// compaction's go in the next commits.
const COMPACT_ROWS: usize = 512;
/// The log's two tables; places run on across both.
const TABLES: [&str; 2] = ["live_log", "live_log_b"];

/// A live game in the log: where its rows start and how many it needs, its first row
/// in the newer table and how many of them it needs there, and the compaction asked
/// for it (the last row it covers).
#[derive(Debug, Default)]
struct Game {
    first: i64,
    rows: u64,
    newer_first: Option<i64>,
    newer_rows: u64,
    asked: Option<i64>,
}

/// What the writer knows of the log: each live game's first row, the table it appends
/// to and where that table's rows start, the older table's last row (while it holds
/// any), and the compaction in flight.
#[derive(Debug)]
struct Heads {
    games: HashMap<String, Game>,
    firsts: BTreeMap<i64, String>,
    live_rows: u64,
    /// The table appended to: an index into [`TABLES`].
    newer: usize,
    /// The first place in the newer table.
    newer_from: i64,
    /// The older table's last place, while it holds rows.
    older_last: Option<i64>,
    /// The next row's place.
    next: i64,
    asking: bool,
    slack: u64,
}

/// The games to fold and the last row their fold covers.
#[derive(Debug)]
pub(crate) struct CompactAsk {
    pub(crate) from: i64,
    pub(crate) upto: i64,
    pub(crate) games: HashSet<String>,
}

/// A row to append again: its first place, kind, number and text.
pub(crate) type Copied = (i64, Kind, u64, String);

/// A game's rows folded, to append again.
pub(crate) type Folded = (String, Vec<Copied>);

/// Each asked game's rows folded (the oldest game first), to append again, and the
/// last row the fold covers.
pub(crate) type Compacted = Result<(i64, Vec<Folded>), String>;

impl Heads {
    /// What the log at `conn` holds: each game not forgotten and its first row.
    fn read(conn: &Connection, slack: u64) -> Result<Heads, DbError> {
        let mut spans = [None; 2];
        for (span, table) in spans.iter_mut().zip(TABLES) {
            *span = conn.query_row(
                &format!("SELECT MIN(seq), MAX(seq) FROM {table}"),
                [],
                |row| Ok(row.get::<_, Option<i64>>(0)?.zip(row.get(1)?)),
            )?;
        }
        // The newer table holds the last place; the older one rows only below its first.
        let newer = usize::from(spans[1].map(|s| s.1) > spans[0].map(|s| s.1));
        let next = spans[newer].map_or(1, |(_, last)| last + 1);
        let mut heads = Heads {
            games: HashMap::new(),
            firsts: BTreeMap::new(),
            live_rows: 0,
            newer,
            newer_from: spans[newer].map_or(next, |(first, _)| first),
            older_last: spans[1 - newer].map(|(_, last)| last),
            next,
            asking: false,
            slack,
        };
        // One pass over both tables: the newer table's rows are those from its first place.
        let mut statement = conn.prepare(
            "SELECT game_id, MIN(seq), SUM(kind <> 1), MAX(kind = 4), \
             MIN(CASE WHEN seq >= ?1 THEN seq END), SUM(seq >= ?1 AND kind <> 1) \
             FROM live_log_both GROUP BY game_id",
        )?;
        let mut rows = statement.query([heads.newer_from])?;
        while let Some(row) = rows.next()? {
            let forgotten: bool = row.get(3)?;
            if forgotten {
                continue;
            }
            let id: String = row.get(0)?;
            let first: i64 = row.get(1)?;
            let needed = u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0);
            heads.live_rows += needed;
            heads.firsts.insert(first, id.clone());
            heads.games.insert(
                id,
                Game {
                    first,
                    rows: needed,
                    newer_first: row.get(4)?,
                    newer_rows: u64::try_from(row.get::<_, i64>(5)?).unwrap_or(0),
                    ..Game::default()
                },
            );
        }
        Ok(heads)
    }

    /// A row of `kind` of `id` is appended at `seq`. A tail replaces the one before:
    /// the rows a game needs are counted without them.
    fn wrote(&mut self, id: &str, seq: i64, kind: Kind) {
        let needed = u64::from(kind != Kind::Tail);
        self.live_rows += needed;
        let game = self.games.entry(id.to_string()).or_insert_with(|| {
            self.firsts.insert(seq, id.to_string());
            Game {
                first: seq,
                ..Game::default()
            }
        });
        game.rows += needed;
        game.newer_first.get_or_insert(seq);
        game.newer_rows += needed;
    }

    /// `id` is forgotten: its rows are needed no more.
    fn forgot(&mut self, id: &str) {
        if let Some(game) = self.games.remove(id) {
            self.firsts.remove(&game.first);
            self.live_rows -= game.rows.min(self.live_rows);
        }
    }

    /// Where the log must start: the oldest live game's first row.
    fn head(&self) -> i64 {
        self.firsts
            .first_key_value()
            .map_or(self.next, |(first, _)| *first)
    }

    /// `id`'s rows in the older table are copied, the first copy at `copied`: the game
    /// now starts at its first row in the newer table (the copies come after them).
    fn moved(&mut self, id: &str, copied: Option<i64>, copies: u64) {
        let Some(game) = self.games.get_mut(id) else {
            return;
        };
        let Some(new_first) = game.newer_first.or(copied) else {
            return;
        };
        self.firsts.remove(&game.first);
        self.firsts.insert(new_first, id.to_string());
        game.first = new_first;
        game.newer_first = Some(new_first);
        // The game's rows are now all in the newer table: its copies and its own.
        game.newer_rows += copies;
        self.live_rows -= game.rows.min(self.live_rows);
        game.rows = game.newer_rows;
        self.live_rows += game.rows;
        game.asked = None;
    }

    fn clear_asked(&mut self) {
        for game in self.games.values_mut() {
            game.asked = None;
        }
    }

    /// The rows the table written to may hold before the writer turns to the other.
    fn turn_at(&self) -> u64 {
        2 * self.live_rows + self.slack
    }

    /// Rows in the table written to.
    fn newer_rows(&self) -> u64 {
        u64::try_from(self.next - self.newer_from).unwrap_or(0)
    }

    /// Turns to the other table if the one written to is long and the other empty:
    /// the one written to becomes the older.
    fn turn(&mut self) {
        if self.older_last.is_none() && self.newer_rows() > self.turn_at() {
            self.older_last = Some(self.next - 1);
            self.newer = 1 - self.newer;
            self.newer_from = self.next;
            for game in self.games.values_mut() {
                game.newer_first = None;
                game.newer_rows = 0;
            }
        }
    }

    /// The older table, to empty whole, if no live game starts in it any more.
    fn emptied(&mut self) -> Option<&'static str> {
        let last = self.older_last?;
        if self.head() <= last {
            return None;
        }
        self.older_last = None;
        Some(TABLES[1 - self.newer])
    }

    /// The compaction to ask for, if none is in flight and games still start in the
    /// older table once the newer one holds half of what it may: those games, the
    /// oldest first, their rows in the older table (those in the newer stay).
    fn ask(&mut self) -> Option<CompactAsk> {
        let upto = self.older_last?;
        if self.asking || 2 * self.newer_rows() <= self.turn_at() {
            return None;
        }
        let mut games = HashSet::new();
        let mut from = upto;
        for (first, id) in self.firsts.range(..=upto).take(COMPACT_GAMES) {
            if let Some(game) = self.games.get_mut(id) {
                game.asked = Some(upto);
                from = from.min(*first);
                games.insert(id.clone());
            }
        }
        if games.is_empty() {
            return None;
        }
        self.asking = true;
        Some(CompactAsk { from, upto, games })
    }
}

/// The writer's side of the log: its rows appended in a group's transaction, the turn
/// from one table to the other and the older one emptied, compactions asked for and
/// their copies appended.
pub(crate) struct LogWriter {
    heads: Heads,
    /// A compaction's answer not yet appended, and the last row it covers.
    pending: Option<(i64, VecDeque<Folded>)>,
}

impl LogWriter {
    /// The writer of the log at `conn`, compacting it past `slack` rows beyond twice
    /// what its live games need.
    pub(crate) fn read(conn: &Connection, slack: u64) -> Result<LogWriter, DbError> {
        Ok(LogWriter {
            heads: Heads::read(conn, slack)?,
            pending: None,
        })
    }

    /// Appends `group` (each game's rows, then a mark per forgotten game) in `tx`, and
    /// the copies of a compaction that came back, to the newer table (turning to the
    /// other first if it is due); then empties the older table if no game needs it.
    pub(crate) fn append(
        &mut self,
        tx: &Transaction<'_>,
        group: &LiveGroup,
        compacted: Option<Compacted>,
    ) -> Result<(), DbError> {
        self.heads.turn();
        let mut log = Appender::new(tx, TABLES[self.heads.newer], self.heads.next)?;
        if let Some(compacted) = compacted {
            let (upto, games) = compacted.unwrap_or_else(|e| {
                tracing::warn!(error = %e, "cannot compact the live games' log");
                (0, Vec::new())
            });
            self.pending = Some((upto, games.into()));
        }
        self.copy(&mut log)?;
        for w in &group.writes {
            if let Some(snapshot) = &w.snapshot {
                let seq = log.put(&w.id, None, Kind::Snapshot, 0, snapshot)?;
                self.heads.wrote(&w.id, seq, Kind::Snapshot);
            }
            let seq = log.put(&w.id, None, Kind::Tail, 0, &w.tail)?;
            self.heads.wrote(&w.id, seq, Kind::Tail);
            for (n, json) in &w.acts {
                let seq = log.put(&w.id, None, Kind::Act, *n, json)?;
                self.heads.wrote(&w.id, seq, Kind::Act);
            }
            for (n, json) in &w.events {
                let seq = log.put(&w.id, None, Kind::Event, *n, json)?;
                self.heads.wrote(&w.id, seq, Kind::Event);
            }
        }
        for id in &group.forget {
            log.put(id, None, Kind::Forget, 0, "")?;
            self.heads.forgot(id);
        }
        self.heads.next = log.next;
        if let Some(older) = self.heads.emptied() {
            // No WHERE: SQLite frees the table's pages without writing them.
            tx.prepare_cached(&format!("DELETE FROM {older}"))?
                .execute([])?;
        }
        Ok(())
    }

    /// Appends the next copies of a compaction that came back (whole games, up to
    /// [`COMPACT_ROWS`] but at least one game's), for the games it was asked for and
    /// that still live; each now starts at its first row since it was asked for, or at
    /// its first copy. The last of them ends the compaction.
    fn copy(&mut self, log: &mut Appender<'_>) -> Result<(), DbError> {
        let Some((upto, games)) = &mut self.pending else {
            return Ok(());
        };
        let mut copies = 0;
        while let Some((id, rows)) = games.front() {
            if copies > 0 && copies + rows.len() > COMPACT_ROWS {
                return Ok(());
            }
            let asked = self.heads.games.get(id).and_then(|game| game.asked);
            if asked == Some(*upto) && !rows.is_empty() {
                let mut copied = None;
                for (at, kind, n, json) in rows {
                    let seq = log.put(id, Some(*at), *kind, *n, json)?;
                    copied.get_or_insert(seq);
                }
                self.heads.moved(id, copied, rows.len() as u64);
                copies += rows.len();
            }
            games.pop_front();
        }
        self.pending = None;
        self.heads.asking = false;
        self.heads.clear_asked();
        Ok(())
    }

    /// A compaction to ask for now, if any.
    pub(crate) fn ask(&mut self) -> Option<CompactAsk> {
        self.heads.ask()
    }

    /// The transaction that would have appended the last group failed: what it wrote
    /// is not there, so the log is read again. A compaction's answer not yet all
    /// appended is dropped (the next is asked for anew).
    pub(crate) fn reread(&mut self, conn: &Connection) -> Result<(), DbError> {
        let asking = self.heads.asking && self.pending.take().is_none();
        self.heads = Heads::read(conn, self.heads.slack)?;
        // A compaction still in flight comes back to games no longer marked: dropped.
        self.heads.asking = asking;
        Ok(())
    }
}

/// The insert into one of the log's tables, prepared once per connection, in one
/// transaction. Each row's place is given, not left to SQLite (which would number a
/// table's rows on from its own last row, or from 1 once it is emptied).
struct Appender<'a> {
    insert: CachedStatement<'a>,
    next: i64,
}

impl<'a> Appender<'a> {
    fn new(tx: &'a Transaction<'a>, table: &str, next: i64) -> Result<Appender<'a>, DbError> {
        Ok(Appender {
            insert: tx.prepare_cached(&format!(
                "INSERT INTO {table} (seq, game_id, at, kind, n, json) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
            ))?,
            next,
        })
    }

    /// Appends a row; returns its place.
    fn put(
        &mut self,
        id: &str,
        at: Option<i64>,
        kind: Kind,
        n: u64,
        json: &str,
    ) -> Result<i64, DbError> {
        let seq = self.next;
        self.insert
            .execute(params![seq, id, at, kind as i64, int(n), json])?;
        self.next += 1;
        Ok(seq)
    }
}

/// Reads the rows of `ask`'s games from `ask.from` to `ask.upto` on `conn` (a
/// connection of its own: the writer commits on meanwhile) and folds each game's.
pub(crate) fn compact(conn: &Connection, ask: &CompactAsk) -> Compacted {
    let read = || -> Result<Vec<Folded>, DbError> {
        let mut statement = conn.prepare(
            "SELECT game_id, seq, at, kind, n, json FROM live_log_both \
             WHERE seq >= ?1 AND seq <= ?2",
        )?;
        let mut rows = statement.query(params![ask.from, ask.upto])?;
        let mut by_game: HashMap<String, Vec<LogRow>> = HashMap::new();
        while let Some(row) = rows.next()? {
            let id: String = row.get(0)?;
            if !ask.games.contains(&id) {
                continue;
            }
            let read = LogRow::read(
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
                row.get(5)?,
            );
            if let Some(read) = read {
                by_game.entry(id).or_default().push(read);
            }
        }
        // The oldest games first: the writer appends them in that order.
        let mut games: Vec<(i64, String, Vec<LogRow>)> = by_game
            .into_iter()
            .map(|(id, rows)| (rows.iter().map(|r| r.seq).min().unwrap_or(0), id, rows))
            .collect();
        games.sort_by_key(|g| g.0);
        Ok(games
            .into_iter()
            .map(|(_, id, rows)| (id, Fold::of(rows).rows()))
            .collect())
    };
    read()
        .map(|games| (ask.upto, games))
        .map_err(|e| e.to_string())
}

impl LogRow {
    /// A row as read back (`at`: the place of the row it copies), if its kind is known.
    pub(crate) fn read(
        seq: i64,
        at: Option<i64>,
        kind: i64,
        n: i64,
        json: String,
    ) -> Option<LogRow> {
        Some(LogRow {
            pos: at.unwrap_or(seq),
            seq,
            kind: Kind::from_i64(kind)?,
            n: u64::try_from(n).unwrap_or(0),
            json,
        })
    }
}
