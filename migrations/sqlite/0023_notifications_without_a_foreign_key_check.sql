-- Issue 40: PostgreSQL drops the foreign key of notifications here (see its migration 0023).
-- SQLite keeps it: dropping it means rebuilding the table, and its check is an in-process
-- lookup of a page the counter's update has just read. The migration exists so that both
-- databases carry the same migrations (`kings-corner copy` compares them).
SELECT 1;
