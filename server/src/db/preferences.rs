//! A registered player's preferences: the browser client's language and board settings
//! (`GET`/`PUT /api/account/preferences`, `docs/api.md`). A change is a partial object
//! checked field by field ([`PreferencesChange::validate`]) before anything is written;
//! each setting is a row of its own, so that two changes of different settings sent at
//! the same moment both stay.

use serde::{Deserialize, Serialize};
use sqlx::Row;

use super::{Db, DbError};

/// The client's languages.
pub const LANGUAGES: &[&str] = &["en", "ru", "uk", "mk"];
/// The board colour themes.
pub const BOARDS: &[&str] = &["brown", "green", "blue", "grey"];
/// The piece sets.
pub const PIECES: &[&str] = &["flat", "classic"];

/// Everything a player sets, with the defaults of a new account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preferences {
    /// The client's language: one of [`LANGUAGES`].
    pub language: String,
    /// The board's colours: one of [`BOARDS`].
    pub board: String,
    /// The pieces' look: one of [`PIECES`].
    pub pieces: String,
    /// Square names or numbers at the board's edge.
    pub coordinates: bool,
    /// Sounds for moves, captures, low time, start and end.
    pub sound: bool,
    /// A move may be queued while the opponent thinks.
    pub premoves: bool,
    /// Resigning asks a second time.
    pub confirm_resign: bool,
}

impl Default for Preferences {
    fn default() -> Self {
        Preferences {
            language: "en".into(),
            board: "brown".into(),
            pieces: "flat".into(),
            coordinates: true,
            sound: true,
            premoves: true,
            confirm_resign: true,
        }
    }
}

/// The fields a `PUT` changes; those absent keep their value.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreferencesChange {
    language: Option<String>,
    board: Option<String>,
    pieces: Option<String>,
    coordinates: Option<bool>,
    sound: Option<bool>,
    premoves: Option<bool>,
    confirm_resign: Option<bool>,
}

/// Why a change is refused (nothing of it is applied).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PreferencesError {
    /// A field holds a value outside its list.
    #[error("{field} must be one of {allowed}, not {given:?}")]
    NotAllowed {
        /// The field.
        field: &'static str,
        /// Its values, comma-separated.
        allowed: String,
        /// What was sent (at most 40 characters of it).
        given: String,
    },
}

fn one_of(
    field: &'static str,
    allowed: &[&str],
    given: Option<String>,
) -> Result<Option<String>, PreferencesError> {
    match given {
        Some(v) if !allowed.contains(&v.as_str()) => Err(PreferencesError::NotAllowed {
            field,
            allowed: allowed.join(", "),
            given: v.chars().take(40).collect(),
        }),
        other => Ok(other),
    }
}

impl PreferencesChange {
    /// The settings this change writes, each with its value as JSON, or the first field
    /// refused (then nothing may be written).
    pub fn validate(self) -> Result<Vec<(&'static str, String)>, PreferencesError> {
        let mut out = Vec::new();
        let texts = [
            ("language", LANGUAGES, self.language),
            ("board", BOARDS, self.board),
            ("pieces", PIECES, self.pieces),
        ];
        for (field, allowed, given) in texts {
            if let Some(v) = one_of(field, allowed, given)? {
                out.push((field, serde_json::Value::String(v).to_string()));
            }
        }
        let switches = [
            ("coordinates", self.coordinates),
            ("sound", self.sound),
            ("premoves", self.premoves),
            ("confirm_resign", self.confirm_resign),
        ];
        for (field, given) in switches {
            if let Some(v) = given {
                out.push((field, v.to_string()));
            }
        }
        Ok(out)
    }
}

impl Db {
    /// A player's preferences: the stored settings over the defaults.
    pub async fn preferences(&self, player_id: &str) -> Result<Preferences, DbError> {
        let rows = sqlx::query("SELECT name, value FROM preferences WHERE player_id = $1")
            .bind(player_id)
            .fetch_all(self.pool())
            .await?;
        let corrupt = |e: serde_json::Error| DbError::Corrupt(format!("preferences: {e}"));
        let mut all = serde_json::to_value(Preferences::default()).map_err(corrupt)?;
        for row in rows {
            let name: String = row.try_get(0)?;
            let value: String = row.try_get(1)?;
            // A setting this version does not know (written by a newer one) is left alone.
            if let Some(slot) = all.get_mut(&name) {
                *slot = serde_json::from_str(&value).map_err(corrupt)?;
            }
        }
        serde_json::from_value(all).map_err(corrupt)
    }

    /// Writes validated settings (from [`PreferencesChange::validate`]), all or none.
    pub async fn set_preferences(
        &self,
        player_id: &str,
        settings: &[(&'static str, String)],
    ) -> Result<(), DbError> {
        let now = super::players::now_ms();
        let mut tx = self.pool().begin().await?;
        for (name, value) in settings {
            sqlx::query(
                "INSERT INTO preferences (player_id, name, value, updated_ms) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (player_id, name) \
                 DO UPDATE SET value = excluded.value, updated_ms = excluded.updated_ms",
            )
            .bind(player_id)
            .bind(*name)
            .bind(value)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_writes_only_what_it_names() {
        let change: PreferencesChange =
            serde_json::from_str(r#"{"language": "uk", "sound": false}"#).unwrap();
        let written = change.validate().unwrap();
        assert_eq!(
            written,
            vec![
                ("language", "\"uk\"".to_string()),
                ("sound", "false".into())
            ]
        );
    }

    #[test]
    fn a_value_outside_its_list_is_refused() {
        let change: PreferencesChange =
            serde_json::from_str(r#"{"language": "ru", "board": "pink"}"#).unwrap();
        let err = change.validate().unwrap_err();
        assert!(matches!(
            err,
            PreferencesError::NotAllowed { field: "board", .. }
        ));
    }
}
