-- Clocks, deadlines and how matches end (issue 8), and times in the hash chain.

-- The clock chosen at creation: none (NULL), or so many seconds a turn plus a bank per seat.
ALTER TABLE matches ADD COLUMN turn_seconds BIGINT;
ALTER TABLE matches ADD COLUMN bank_seconds BIGINT;
-- What a passed deadline means: 'claim' (another seat may forfeit the late one) or 'forfeit'
-- (the server does it by itself).
ALTER TABLE matches ADD COLUMN on_timeout TEXT NOT NULL DEFAULT 'claim';
-- The read model of the clock, kept with the log: when the seat to move runs out of time, and
-- when it is due a reminder (a tenth of its time left; NULL once written).
ALTER TABLE matches ADD COLUMN deadline BIGINT;
ALTER TABLE matches ADD COLUMN remind_at BIGINT;
-- How the match ended ('finished', 'resigned', 'timeout', 'aborted'), and the final totals
-- (JSON), for the history listing.
ALTER TABLE matches ADD COLUMN outcome TEXT;
ALTER TABLE matches ADD COLUMN final_totals TEXT;
-- A server process's claim on a match's due clock work, so that several processes do not
-- all do it (Unix seconds until which the claim holds).
ALTER TABLE matches ADD COLUMN clock_lease BIGINT;
-- 1: an event's hash chains its canonical JSON; 2: its JSON and the time it was written.
-- Matches created before this migration keep format 1.
ALTER TABLE matches ADD COLUMN log_format BIGINT NOT NULL DEFAULT 1;

-- The inbox sorts by deadline; the sweeper finds due work by deadline and reminder.
CREATE INDEX matches_deadline ON matches (deadline) WHERE status = 'playing';
CREATE INDEX matches_remind_at ON matches (remind_at) WHERE status = 'playing';
