-- damka's store: players, ratings per perf, the game archive, settings.
-- Written in the SQL both PostgreSQL and SQLite accept: ids are text made by the
-- server, times are Unix milliseconds, JSON is text.

CREATE TABLE players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    created_ms BIGINT NOT NULL,
    seen_ms BIGINT NOT NULL
);

CREATE TABLE ratings (
    player_id TEXT NOT NULL REFERENCES players (id),
    perf TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    rd DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (player_id, perf)
);

CREATE INDEX ratings_by_perf ON ratings (perf, rating);

CREATE TABLE games (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    ruleset TEXT NOT NULL,
    perf TEXT NOT NULL,
    rated BIGINT NOT NULL,
    time_control TEXT NOT NULL,
    white_id TEXT NOT NULL,
    white_name TEXT NOT NULL,
    white_guest BIGINT NOT NULL,
    black_id TEXT NOT NULL,
    black_name TEXT NOT NULL,
    black_guest BIGINT NOT NULL,
    white_rating DOUBLE PRECISION,
    white_rating_after DOUBLE PRECISION,
    black_rating DOUBLE PRECISION,
    black_rating_after DOUBLE PRECISION,
    start_fen TEXT,
    moves TEXT NOT NULL,
    result TEXT NOT NULL,
    winner TEXT,
    reason TEXT NOT NULL,
    rule TEXT,
    started_ms BIGINT NOT NULL,
    ended_ms BIGINT NOT NULL,
    arena_id TEXT,
    tournament_id TEXT
);

CREATE TABLE player_games (
    player_id TEXT NOT NULL,
    game_id TEXT NOT NULL REFERENCES games (id),
    perf TEXT NOT NULL,
    ended_ms BIGINT NOT NULL,
    PRIMARY KEY (player_id, game_id)
);

CREATE INDEX player_games_newest ON player_games (player_id, ended_ms, game_id);
CREATE INDEX player_games_perf ON player_games (player_id, perf, ended_ms, game_id);

CREATE TABLE settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
