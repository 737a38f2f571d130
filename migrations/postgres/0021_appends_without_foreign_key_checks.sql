-- Issue 40: the batched append (store/append/append_batch.sql) writes its rows only joined to
-- rows the same statement has just updated, and holds those rows' locks until the commit, so
-- what these foreign keys checked holds by construction. Each check was a lookup and a row
-- lock per written row, run as a trigger after the statement (docs/benchmarks.md). Dropping a
-- constraint is a change of the catalogue only: instant on a database of any size.

-- An event row is written only with its match's row, updated at the version the events
-- follow. Started matches, the only ones with events, are never deleted, so nothing relied on
-- the cascade.
ALTER TABLE match_events DROP CONSTRAINT IF EXISTS match_events_match_id_fkey;

-- A notification is written only with its account's counter, moved on by the same statement
-- (or, outside the batch, by store/notifications.rs, which refuses an account without a row).
-- Accounts are never deleted: a deletion blanks the row and keeps it.
ALTER TABLE notifications DROP CONSTRAINT IF EXISTS notifications_account_id_fkey;
