-- The ordered log's second table (`server/src/db/live_log.rs`): the writer appends to
-- one of `live_log` and `live_log_b` at a time, turns to the other once the one it
-- writes has grown long and the other is empty, and empties the older one whole
-- (`DELETE` without a `WHERE`: its pages freed, none written) once no live game needs
-- a row of it. Deleting the log's head row by row wrote about as many pages as
-- appending it had (`docs/performance.md`, "Two tables in turn"). Places (`seq`) run on
-- across both; `live_log_both` reads them as one.
CREATE TABLE live_log_b (
    seq INTEGER PRIMARY KEY,
    game_id TEXT NOT NULL,
    at BIGINT,
    kind INTEGER NOT NULL,
    n BIGINT NOT NULL,
    json TEXT NOT NULL
);

CREATE VIEW live_log_both AS
    SELECT seq, game_id, at, kind, n, json FROM live_log
    UNION ALL
    SELECT seq, game_id, at, kind, n, json FROM live_log_b;
