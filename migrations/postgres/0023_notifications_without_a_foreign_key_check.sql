-- Issue 40: a notification is written only by a statement that has just moved its account's
-- counter on (store/append/append_batch.sql, which fails when an account has no row, and
-- store/notifications.rs, which refuses one before writing), and that holds the account's row
-- lock until the commit: the account exists by construction. Accounts are never deleted (a
-- deletion blanks the row and keeps it). The foreign key's check, a lookup and a row lock per
-- notification run as a trigger after the statement, was about 8 % of PostgreSQL's CPU on a
-- move in the profile of docs/benchmarks.md. Dropping a constraint is a change of the
-- catalogue only: instant on a database of any size.
ALTER TABLE notifications DROP CONSTRAINT IF EXISTS notifications_account_id_fkey;
