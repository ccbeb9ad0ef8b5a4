-- Who went berserk in an arena game (`white`, `black` or `white,black`; NULL for
-- nobody), so that arena scores can be recomputed from the archive.
ALTER TABLE games ADD COLUMN berserk TEXT;
