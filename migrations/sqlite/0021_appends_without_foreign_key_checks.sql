-- Issue 40: PostgreSQL drops the foreign keys of match_events and notifications here (see its
-- migration 0021). SQLite keeps them: dropping one means rebuilding its table, a copy of every
-- row, and each check is an in-process lookup of a page the append has just read. The
-- migration exists so that both databases carry the same migrations (`kings-corner copy`
-- compares them).
SELECT 1;
