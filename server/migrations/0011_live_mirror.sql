-- The write-behind mirror of a clustered node's live games (`server/src/game/mirror.rs`):
-- the same rows as a node without Redis writes (0005), plus who wrote a game's row last
-- (`node`, whose last sign of life is the setting `live_alive_ms:<node>`) and under which
-- lease (`fence`, the game's fencing number in Redis): a write under a lower fence than
-- the row's (a node that lost the game's lease) leaves the row's state alone.
ALTER TABLE live_games ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;
ALTER TABLE live_games ADD COLUMN node TEXT NOT NULL DEFAULT '';
