-- Session tokens ended one at a time (POST /api/account/logout): the SHA-256 of the
-- token, until it would have expired anyway (rows past `expires_ms` may be deleted).
-- Ending every session of an account is `players.sessions_after_ms` (0007).
CREATE TABLE ended_sessions (
    token_hash TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players (id),
    expires_ms BIGINT NOT NULL
);
