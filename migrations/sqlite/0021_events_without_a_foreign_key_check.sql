-- Issue 40: PostgreSQL drops the foreign key of match_events here (see its migration 0021).
-- SQLite keeps it: dropping it means rebuilding the table, a copy of every event, and its check
-- is an in-process lookup of a page the append has just read. The migration exists so that
-- both databases carry the same migrations (`kings-corner copy` compares them).
SELECT 1;
