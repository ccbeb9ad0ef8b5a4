-- Finished arenas: their description and final standings (with every player's sheet)
-- as JSON text, written once when the arena ends.
CREATE TABLE arenas (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    starts_at BIGINT NOT NULL,
    ended_at BIGINT NOT NULL,
    info TEXT NOT NULL,
    standings TEXT NOT NULL
);

CREATE INDEX arenas_by_end ON arenas (ended_at);
