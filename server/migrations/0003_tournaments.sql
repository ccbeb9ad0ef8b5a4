-- Tournaments (issue 11): each tournament's whole record as JSON text, with the columns
-- a listing needs. `revision` grows with every save, so that a slower, older save never
-- overwrites a newer one; `fence` is the organiser lease's fence of the node that wrote
-- it, so that a node that lost the lease never overwrites its successor.

CREATE TABLE tournaments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    status TEXT NOT NULL,
    revision BIGINT NOT NULL,
    fence BIGINT NOT NULL,
    record TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL
);

CREATE INDEX tournaments_by_status ON tournaments (status);
