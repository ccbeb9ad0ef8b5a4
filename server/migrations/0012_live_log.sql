-- The ordered log of a SQLite node's live games (`server/src/db/live_log.rs`): every
-- row a node without Redis stores of its games (a whole snapshot, a tail, a law's
-- action, an event, the mark of a game forgotten) appended at the log's end, so that a
-- group commit writes the last pages of one table instead of a page per game in three
-- tables and their indexes. `at`: where a row copied forward by the log's compaction
-- stood first (NULL: where it stands). Rows go from the log's head once no live game
-- needs them. PostgreSQL's writer keeps to the tables of 0005.
CREATE TABLE live_log (
    seq INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL,
    at BIGINT,
    kind INTEGER NOT NULL,
    n BIGINT NOT NULL,
    json TEXT NOT NULL
);
