-- A kept answer of an idempotent move is its body: a move is always answered 200, so the
-- status each row repeated says nothing (issue 37). Stop every older server process before
-- this migration runs: an older process still writes the column.
ALTER TABLE idempotency_keys DROP COLUMN status;
