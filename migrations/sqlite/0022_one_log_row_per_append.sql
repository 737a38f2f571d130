-- Issue 40: a move's events share one row of `match_events` (see PostgreSQL's migration 0022
-- for the layout). Adding a nullable column leaves every row where it is; rows written before
-- it hold one event each and read as before.
ALTER TABLE match_events ADD COLUMN earlier TEXT;
