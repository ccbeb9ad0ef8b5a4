-- Personal API tokens (server/src/tokens.rs): stored as the SHA-256 of the secret, with
-- their scopes; a revoked token keeps its row (revoked_ms) so that listing shows it.
-- Bot accounts: `bot` is 1 once the account was upgraded (POST /api/bot/account/upgrade).
-- `sessions_after_ms`: session tokens issued before it are refused (log out everywhere,
-- password change).
CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players (id),
    description TEXT NOT NULL,
    scopes TEXT NOT NULL,
    secret_hash TEXT NOT NULL UNIQUE,
    created_ms BIGINT NOT NULL,
    last_used_ms BIGINT,
    revoked_ms BIGINT
);

CREATE INDEX api_tokens_by_player ON api_tokens (player_id, created_ms);

ALTER TABLE players ADD COLUMN bot BIGINT NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN sessions_after_ms BIGINT NOT NULL DEFAULT 0;
