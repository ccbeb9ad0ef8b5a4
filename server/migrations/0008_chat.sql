-- Chat (server/src/chat): every line of every room, numbered per room from 1 (`seq`);
-- a deleted line keeps its row (deleted_ms, deleted_by) and is never shown again.
-- Blocks are one row per blocker and blocked user; reports are kept for the moderators;
-- a timeout forbids a user every chat until `until_ms` (the latest one counts).
CREATE TABLE chat_lines (
    room TEXT NOT NULL,
    seq BIGINT NOT NULL,
    user_id TEXT NOT NULL,
    user_name TEXT NOT NULL,
    text TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    deleted_ms BIGINT,
    deleted_by TEXT,
    PRIMARY KEY (room, seq)
);

CREATE INDEX chat_lines_by_user ON chat_lines (user_id, at_ms);

CREATE TABLE chat_blocks (
    blocker TEXT NOT NULL,
    blocked TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    PRIMARY KEY (blocker, blocked)
);

CREATE TABLE chat_reports (
    id TEXT PRIMARY KEY,
    room TEXT NOT NULL,
    seq BIGINT NOT NULL,
    reporter TEXT NOT NULL,
    reason TEXT NOT NULL,
    at_ms BIGINT NOT NULL
);

CREATE INDEX chat_reports_by_time ON chat_reports (at_ms);

CREATE TABLE chat_timeouts (
    user_id TEXT PRIMARY KEY,
    until_ms BIGINT NOT NULL,
    by_user TEXT NOT NULL,
    at_ms BIGINT NOT NULL
);
