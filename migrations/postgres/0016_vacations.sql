-- Vacations for correspondence clocks (issue 21; README "Vacations"). An account holds
-- vacation days (10 to start, one more for each week it played a correspondence match, at most
-- 30) and spends them on a vacation: while it lasts, the clocks of its seats at tables that
-- allow vacations stop, and each such match's log records its start and an early end
-- (src/matches/vacations.rs).
ALTER TABLE accounts ADD COLUMN vacation_days BIGINT NOT NULL DEFAULT 10;
-- The first week (Unix seconds + 3 days, over 604800: weeks begin on Monday, UTC) whose play
-- has not been counted towards vacation days yet; NULL: the week the account was created.
ALTER TABLE accounts ADD COLUMN vacation_weeks_from BIGINT;
-- The account's current or latest vacation (Unix seconds): it is away while now < away_until.
-- Coming back early sets away_until to that moment.
ALTER TABLE accounts ADD COLUMN away_from BIGINT;
ALTER TABLE accounts ADD COLUMN away_until BIGINT;
-- 1: a vacation stops this match's clock for the seat away (a correspondence clock, and not
-- created with `vacations: false`). Matches with a correspondence clock from before vacations
-- allow them.
ALTER TABLE matches ADD COLUMN vacations BIGINT NOT NULL DEFAULT 0;
UPDATE matches SET vacations = 1 WHERE turn_seconds >= 86400;
-- Set when the log of this match may have to record a vacation (a seated account went away or
-- came back, or the match started): a counter, so that the round that brings the log up to
-- date clears it only if nothing set it again meanwhile. `vacation_lease` is the claim of the
-- process doing that (src/store/work.rs).
ALTER TABLE matches ADD COLUMN vacation_due BIGINT;
ALTER TABLE matches ADD COLUMN vacation_lease BIGINT;
CREATE INDEX matches_vacation_due ON matches (vacation_due) WHERE vacation_due IS NOT NULL;
