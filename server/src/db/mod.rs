//! The database: players, ratings per perf and the game archive, through sqlx's `Any`
//! driver over one of two real back ends: PostgreSQL (`database.url =
//! "postgres://…"`, for production and several nodes) or SQLite (a file, the embedded
//! default). The schema is written once in SQL both accept (`server/migrations`) and
//! applied at start.
//!
//! - [`players`]: accounts, external players, profiles, leaderboards.
//! - [`games`]: archiving a finished game with its rating changes in one transaction,
//!   reading games back, a player's games newest first as a stream.
//! - [`tournaments`]: tournament records (issue 11) as JSON rows.
//! - [`arenas`]: finished arenas with their final standings.
//! - [`live`]: live games of a node without Redis, written as they are played.
//! - [`chat`]: chat lines per room, blocks, reports and timeouts.
//! - [`preferences`]: a player's language and board settings, validated and stored.

pub mod analyses;
pub mod arenas;
pub mod chat;
pub mod games;
pub mod live;
mod live_group;
mod live_log;
mod live_sqlite;
pub mod players;
pub mod preferences;
pub mod tokens;
pub mod tournaments;

use std::borrow::Cow;
use std::path::Path;
use std::time::Duration;

use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::migrate::{Migration, MigrationSource, MigrationType, Migrator};
use sqlx::{AnyPool, Row};

use crate::config::DatabaseConfig;

pub use games::{ArchivedGame, ArchivedMove, ArchivedPlayer, GameFilter};
pub use players::{PerfRating, Player, Profile};

/// The migrations, compiled in.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "store", include_str!("../../migrations/0001_store.sql")),
    (
        2,
        "arenas",
        include_str!("../../migrations/0002_arenas.sql"),
    ),
    (
        3,
        "tournaments",
        include_str!("../../migrations/0003_tournaments.sql"),
    ),
    (
        4,
        "berserk",
        include_str!("../../migrations/0004_berserk.sql"),
    ),
    (
        5,
        "live_games",
        include_str!("../../migrations/0005_live_games.sql"),
    ),
    (
        6,
        "analyses",
        include_str!("../../migrations/0006_analyses.sql"),
    ),
    (
        7,
        "tokens",
        include_str!("../../migrations/0007_tokens.sql"),
    ),
    (8, "chat", include_str!("../../migrations/0008_chat.sql")),
    (
        9,
        "preferences",
        include_str!("../../migrations/0009_preferences.sql"),
    ),
    (
        10,
        "ended_sessions",
        include_str!("../../migrations/0010_ended_sessions.sql"),
    ),
    (
        11,
        "live_mirror",
        include_str!("../../migrations/0011_live_mirror.sql"),
    ),
    (
        12,
        "live_log",
        include_str!("../../migrations/0012_live_log.sql"),
    ),
    (
        13,
        "live_log_pair",
        include_str!("../../migrations/0013_live_log_pair.sql"),
    ),
];

/// The migrations compiled into the binary, as a source sqlx's migrator reads.
#[derive(Debug)]
struct Compiled;

impl MigrationSource<'static> for Compiled {
    fn resolve(
        self,
    ) -> futures_util::future::BoxFuture<'static, Result<Vec<Migration>, sqlx::error::BoxDynError>>
    {
        Box::pin(async {
            Ok(MIGRATIONS
                .iter()
                .map(|&(version, description, sql)| {
                    Migration::new(
                        version,
                        Cow::Borrowed(description),
                        MigrationType::Simple,
                        Cow::Borrowed(sql),
                        false,
                    )
                })
                .collect())
        })
    }
}

/// Why a database call failed.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The database could not be reached or answered with an error.
    #[error("database: {0}")]
    Sql(#[from] sqlx::Error),
    /// A migration failed.
    #[error("database migration: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The configuration names no usable database.
    #[error("database configuration: {0}")]
    Config(String),
    /// A stored value could not be read back.
    #[error("database holds an unreadable value: {0}")]
    Corrupt(String),
    /// A unique value (a username) is taken.
    #[error("already taken")]
    Taken,
    /// The live-game writer's own SQLite connection failed ([`live_sqlite`]).
    #[error("database: {0}")]
    Embedded(#[from] rusqlite::Error),
    /// A thread of the live-game writer's (its checkpointer) could not start.
    #[error("cannot start a database thread: {0}")]
    Thread(std::io::Error),
}

/// The file of a SQLite URL (`sqlite://path?…`), none for an in-memory database.
fn sqlite_file(url: &str) -> Option<&str> {
    let rest = url.strip_prefix("sqlite:")?;
    let rest = rest.strip_prefix("//").unwrap_or(rest);
    let path = rest.split('?').next().unwrap_or("");
    (!path.is_empty() && !path.contains(":memory:")).then_some(path)
}

/// Waits for the exclusive lock on the migrations of a SQLite file; held until the
/// file handle is dropped.
async fn migration_lock(url: &str) -> Result<Option<std::fs::File>, DbError> {
    let Some(file) = sqlite_file(url) else {
        return Ok(None);
    };
    let path = format!("{file}.migrate.lock");
    let locked = tokio::task::spawn_blocking(move || {
        let lock = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        lock.lock()?;
        Ok::<_, std::io::Error>(lock)
    })
    .await
    .map_err(|e| DbError::Config(format!("migration lock: {e}")))?
    .map_err(|e| DbError::Config(format!("migration lock: {e}")))?;
    Ok(Some(locked))
}

/// Which server the store talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// PostgreSQL.
    Postgres,
    /// SQLite.
    Sqlite,
}

/// The database: a connection pool with the schema applied.
#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    backend: Backend,
    /// SQLite: the database's file (none in memory), for the live-game writer's own
    /// connection.
    file: Option<std::sync::Arc<Path>>,
}

impl Db {
    /// Opens the configured database (an empty URL: `damka.sqlite` in
    /// `database.data_dir`, created if need be) and applies the migrations.
    pub async fn open(config: &DatabaseConfig) -> Result<Db, DbError> {
        let url = if config.url.trim().is_empty() {
            let dir = Path::new(&config.data_dir).to_path_buf();
            let made = dir.clone();
            tokio::task::spawn_blocking(move || std::fs::create_dir_all(made))
                .await
                .map_err(|e| DbError::Config(format!("cannot create {}: {e}", dir.display())))?
                .map_err(|e| DbError::Config(format!("cannot create {}: {e}", dir.display())))?;
            format!("sqlite://{}?mode=rwc", dir.join("damka.sqlite").display())
        } else {
            config.url.trim().to_string()
        };
        Self::connect(&url, config.max_connections, config.timeout()).await
    }

    /// Connects to `url` (`postgres://…` or `sqlite://…`) and applies the migrations.
    pub async fn connect(
        url: &str,
        max_connections: u32,
        timeout: Duration,
    ) -> Result<Db, DbError> {
        install_default_drivers();
        let backend = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            return Err(DbError::Config(
                "database.url must start with postgres:// or sqlite:".into(),
            ));
        };
        // SQLite allows one writer at a time: a small pool, and a busy timeout so
        // that writers queue instead of failing.
        let url = match backend {
            Backend::Sqlite if !url.contains("mode=") => {
                format!("{url}{}mode=rwc", if url.contains('?') { '&' } else { '?' })
            }
            _ => url.to_string(),
        };
        let max = match backend {
            Backend::Postgres => max_connections.max(1),
            Backend::Sqlite => max_connections.clamp(1, 4),
        };
        let pool = AnyPoolOptions::new()
            .max_connections(max)
            // A SQLite connection is a file, not a socket that can go stale: no ping
            // (a round trip to its thread) before each use.
            .test_before_acquire(backend == Backend::Postgres)
            .acquire_timeout(timeout)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        use sqlx::Executor;
                        // Wait first: nodes starting together on one file queue here.
                        conn.execute("PRAGMA busy_timeout = 5000").await?;
                        conn.execute("PRAGMA journal_mode = WAL").await?;
                        // FULL: a commit is on disk when it returns (live games are
                        // committed many at a time, so this costs one fsync a group).
                        conn.execute("PRAGMA synchronous = FULL").await?;
                        conn.execute("PRAGMA foreign_keys = ON").await?;
                    }
                    Ok(())
                })
            })
            .connect(&url)
            .await?;
        let file = sqlite_file(&url).map(|f| std::sync::Arc::from(Path::new(f)));
        let db = Db {
            pool,
            backend,
            file,
        };
        db.migrate(&url).await?;
        Ok(db)
    }

    /// Applies the migrations not applied yet. PostgreSQL's migrator takes an advisory
    /// lock; SQLite's takes none, so nodes starting at the same instant on one file
    /// would run the same migration twice ("table already exists"): there they run
    /// one node at a time, under an exclusive lock on `<file>.migrate.lock`.
    async fn migrate(&self, url: &str) -> Result<(), DbError> {
        let _lock = match self.backend {
            Backend::Sqlite => migration_lock(url).await?,
            Backend::Postgres => None,
        };
        Migrator::new(Compiled).await?.run(&self.pool).await?;
        Ok(())
    }

    /// The back end.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The pool, for the submodules.
    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Does the database answer?
    pub async fn ping(&self) -> bool {
        sqlx::query("SELECT 1").fetch_one(&self.pool).await.is_ok()
    }

    /// A setting, created with `make` if absent (the first node to write it wins, and
    /// every node reads the same value).
    pub async fn setting_or_init(
        &self,
        name: &str,
        make: impl FnOnce() -> String,
    ) -> Result<String, DbError> {
        sqlx::query(
            "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
        )
        .bind(name)
        .bind(make())
        .execute(&self.pool)
        .await?;
        let row = sqlx::query("SELECT value FROM settings WHERE name = $1")
            .bind(name)
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get::<String, _>(0)?)
    }

    /// Closes the pool.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}
