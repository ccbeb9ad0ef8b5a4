-- A registered player's preferences (server/src/db/preferences.rs): the client's
-- language and board settings, one row per player and setting (its value as JSON), so
-- that changes of different settings sent at once never overwrite each other. A setting
-- without a row has its default.
CREATE TABLE preferences (
    player_id TEXT NOT NULL REFERENCES players (id),
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (player_id, name)
);
