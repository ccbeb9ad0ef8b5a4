//! Personal API tokens (their hashes and scopes; `crate::tokens` makes and checks them),
//! the bot mark on accounts, the instant before which a player's session tokens are
//! refused, and the session tokens ended one at a time (by their hash).

use sqlx::Row;
use sqlx::any::AnyRow;

use super::{Db, DbError};

/// A personal API token as stored (never its secret).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredToken {
    /// Its id, shown in listings and used to revoke it.
    pub id: String,
    /// The owner's player id.
    pub player_id: String,
    /// The owner's name.
    pub player_name: String,
    /// Is the owner a bot account?
    pub bot: bool,
    /// What the owner wrote to recognise it.
    pub description: String,
    /// Its scopes, comma-separated.
    pub scopes: String,
    /// When it was made (Unix ms).
    pub created_ms: i64,
    /// When it was revoked, if it was.
    pub revoked_ms: Option<i64>,
}

/// A player's account flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccountFlags {
    /// Upgraded to a bot account.
    pub bot: bool,
    /// Session tokens issued before this instant (Unix ms) are refused.
    pub sessions_after_ms: i64,
    /// The session token asked about was ended by itself (logged out).
    pub session_ended: bool,
}

const TOKEN_COLUMNS: &str = "t.id, t.player_id, p.name, p.bot, t.description, t.scopes, \
     t.created_ms, t.revoked_ms FROM api_tokens t JOIN players p ON p.id = t.player_id";

fn token(row: &AnyRow) -> Result<StoredToken, DbError> {
    Ok(StoredToken {
        id: row.try_get(0)?,
        player_id: row.try_get(1)?,
        player_name: row.try_get(2)?,
        bot: row.try_get::<i64, _>(3)? != 0,
        description: row.try_get(4)?,
        scopes: row.try_get(5)?,
        created_ms: row.try_get(6)?,
        revoked_ms: row.try_get(7)?,
    })
}

impl Db {
    /// Stores a new token (its secret only as `secret_hash`).
    pub async fn insert_token(&self, t: &StoredToken, secret_hash: &str) -> Result<(), DbError> {
        sqlx::query(
            "INSERT INTO api_tokens (id, player_id, description, scopes, secret_hash, \
             created_ms) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&t.id)
        .bind(&t.player_id)
        .bind(&t.description)
        .bind(&t.scopes)
        .bind(secret_hash)
        .bind(t.created_ms)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// The token whose secret hashes to `secret_hash`, revoked or not.
    pub async fn token_by_hash(&self, secret_hash: &str) -> Result<Option<StoredToken>, DbError> {
        let sql = format!("SELECT {TOKEN_COLUMNS} WHERE t.secret_hash = $1");
        let row = sqlx::query(&sql)
            .bind(secret_hash)
            .fetch_optional(self.pool())
            .await?;
        row.as_ref().map(token).transpose()
    }

    /// A player's tokens, newest first.
    pub async fn tokens_of(&self, player_id: &str) -> Result<Vec<StoredToken>, DbError> {
        let sql =
            format!("SELECT {TOKEN_COLUMNS} WHERE t.player_id = $1 ORDER BY t.created_ms DESC");
        let rows = sqlx::query(&sql)
            .bind(player_id)
            .fetch_all(self.pool())
            .await?;
        rows.iter().map(token).collect()
    }

    /// Revokes a player's token; `false` if they have no live token with this id.
    pub async fn revoke_token(
        &self,
        player_id: &str,
        id: &str,
        now_ms: i64,
    ) -> Result<bool, DbError> {
        let done = sqlx::query(
            "UPDATE api_tokens SET revoked_ms = $1 \
             WHERE id = $2 AND player_id = $3 AND revoked_ms IS NULL",
        )
        .bind(now_ms)
        .bind(id)
        .bind(player_id)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Revokes every token of a player; how many were live.
    pub async fn revoke_all_tokens(&self, player_id: &str, now_ms: i64) -> Result<u64, DbError> {
        let done = sqlx::query(
            "UPDATE api_tokens SET revoked_ms = $1 WHERE player_id = $2 AND revoked_ms IS NULL",
        )
        .bind(now_ms)
        .bind(player_id)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected())
    }

    /// A player's flags; the defaults for a player without a row (a guest).
    pub async fn account_flags(&self, player_id: &str) -> Result<AccountFlags, DbError> {
        let row = sqlx::query("SELECT bot, sessions_after_ms FROM players WHERE id = $1")
            .bind(player_id)
            .fetch_optional(self.pool())
            .await?;
        match row {
            None => Ok(AccountFlags::default()),
            Some(r) => Ok(AccountFlags {
                bot: r.try_get::<i64, _>(0)? != 0,
                sessions_after_ms: r.try_get(1)?,
                session_ended: false,
            }),
        }
    }

    /// A player's flags, and whether the session token hashing to `token_hash` was
    /// ended, in one query; the defaults for a player without a row (a guest).
    pub async fn session_flags(
        &self,
        player_id: &str,
        token_hash: &str,
    ) -> Result<AccountFlags, DbError> {
        let row = sqlx::query(
            "SELECT bot, sessions_after_ms, \
             (SELECT COUNT(*) FROM ended_sessions WHERE token_hash = $2) \
             FROM players WHERE id = $1",
        )
        .bind(player_id)
        .bind(token_hash)
        .fetch_optional(self.pool())
        .await?;
        match row {
            None => Ok(AccountFlags::default()),
            Some(r) => Ok(AccountFlags {
                bot: r.try_get::<i64, _>(0)? != 0,
                sessions_after_ms: r.try_get(1)?,
                session_ended: r.try_get::<i64, _>(2)? != 0,
            }),
        }
    }

    /// Ends one session token (by its hash) until it expires; rows of tokens long
    /// expired are deleted on the way.
    pub async fn end_session(
        &self,
        player_id: &str,
        token_hash: &str,
        expires_ms: i64,
        now_ms: i64,
    ) -> Result<(), DbError> {
        sqlx::query("DELETE FROM ended_sessions WHERE expires_ms < $1")
            .bind(now_ms)
            .execute(self.pool())
            .await?;
        sqlx::query(
            "INSERT INTO ended_sessions (token_hash, player_id, expires_ms) VALUES ($1, $2, $3) \
             ON CONFLICT (token_hash) DO NOTHING",
        )
        .bind(token_hash)
        .bind(player_id)
        .bind(expires_ms)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Replaces a player's password hash and ends every session token issued before
    /// `sessions_after_ms`, in one statement.
    pub async fn change_password(
        &self,
        player_id: &str,
        password_hash: &str,
        sessions_after_ms: i64,
    ) -> Result<(), DbError> {
        sqlx::query("UPDATE players SET password_hash = $1, sessions_after_ms = $2 WHERE id = $3")
            .bind(password_hash)
            .bind(sessions_after_ms)
            .bind(player_id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Session tokens of the player issued before `now_ms` stop working.
    pub async fn end_sessions(&self, player_id: &str, now_ms: i64) -> Result<(), DbError> {
        sqlx::query("UPDATE players SET sessions_after_ms = $1 WHERE id = $2")
            .bind(now_ms)
            .bind(player_id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Marks the account a bot if it has played no game; `false` if it has.
    pub async fn upgrade_to_bot(&self, player_id: &str) -> Result<bool, DbError> {
        let done = sqlx::query(
            "UPDATE players SET bot = 1 WHERE id = $1 AND NOT EXISTS \
             (SELECT 1 FROM player_games WHERE player_id = $1)",
        )
        .bind(player_id)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// A player's name and whether the account is a bot, in one query; `None` for no
    /// such player (a guest).
    pub async fn name_and_bot(&self, player_id: &str) -> Result<Option<(String, bool)>, DbError> {
        let row = sqlx::query("SELECT name, bot FROM players WHERE id = $1")
            .bind(player_id)
            .fetch_optional(self.pool())
            .await?;
        row.map(|r| Ok((r.try_get(0)?, r.try_get::<i64, _>(1)? != 0)))
            .transpose()
    }

    /// The bot accounts among `ids`.
    pub async fn bots_among(&self, ids: &[String]) -> Result<Vec<String>, DbError> {
        let mut bots = Vec::new();
        for id in ids {
            if self.account_flags(id).await?.bot {
                bots.push(id.clone());
            }
        }
        Ok(bots)
    }
}

impl Db {
    /// Bot accounts `(id, name)`, by name, at most `max`.
    pub async fn bots(&self, max: i64) -> Result<Vec<(String, String)>, DbError> {
        let rows =
            sqlx::query("SELECT id, name FROM players WHERE bot = 1 ORDER BY name_key LIMIT $1")
                .bind(max)
                .fetch_all(self.pool())
                .await?;
        rows.iter()
            .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
            .collect()
    }
}
