-- Computer analyses of archived games (server/src/computer/analysis.rs): one row a
-- game; `plies` holds the finished analysis as JSON.
CREATE TABLE analyses (
    game_id TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    requested_by TEXT NOT NULL,
    requested_at BIGINT NOT NULL,
    plies TEXT
);
