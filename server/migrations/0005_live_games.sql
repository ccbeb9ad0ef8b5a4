-- Live games, for a node without Redis (the embedded default): every acknowledged
-- event is stored here before anyone sees it, so a node that crashed or stopped finds
-- its games at the next start. One row per game holds its last whole snapshot and the
-- latest small state (the tail: clock, offers, counts); the law's actions played since
-- the snapshot and every event are rows appended in order. Rows go when the finished
-- game is archived.
CREATE TABLE live_games (
    id TEXT PRIMARY KEY,
    snapshot TEXT NOT NULL,
    tail TEXT
);

CREATE TABLE live_events (
    game_id TEXT NOT NULL,
    version BIGINT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (game_id, version)
);

CREATE TABLE live_acts (
    game_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
