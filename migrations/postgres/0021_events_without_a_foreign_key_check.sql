-- Issue 40: an event row is written only in the statement that has just updated its match's
-- row, at the version the events follow (store/append/append_batch.sql joins them to the
-- updated rows), and holds that row's lock until the commit: the match exists by
-- construction. The foreign key's check, a lookup of the match and a row lock per event, was a
-- quarter of PostgreSQL's CPU on a move (docs/benchmarks.md). Started matches, the only ones
-- with events, are never deleted, so nothing relied on its cascade. Dropping a constraint is a
-- change of the catalogue only: instant on a database of any size.
ALTER TABLE match_events DROP CONSTRAINT IF EXISTS match_events_match_id_fkey;
