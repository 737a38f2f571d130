-- `matches.seats` holds how many seats a table has, while "seats" everywhere else is the list of
-- who sits where: the column now says it is a count.
ALTER TABLE matches RENAME COLUMN seats TO seat_count;
