-- PostgreSQL: every append of a batch in one statement (data-modifying CTEs are atomic). The
-- rows come as three JSON arrays, so the statement is fixed and prepared once per connection
-- whatever the batch holds. A match's row is updated only if it is still at the version its
-- move was decided at; its log row (the move's events, store/log_rows.rs), kept response and
-- notifications (numbered in their accounts' streams as they are written) are written only
-- with its row. Returns the matches whose appends were written, and the accounts' counters.
--
-- The rows of `matches` are found through its primary key (`id = ANY (ARRAY(...))`): joined
-- to `moves` alone, which PostgreSQL takes for 100 rows whatever the batch holds, the planner
-- chose to hash the batch and scan every match ever played up to a few thousand matches
-- (tests/api/scale.rs), and between the two near that size.
WITH moves AS (
    SELECT * FROM json_to_recordset($1::json) AS m (id TEXT, expected BIGINT, version BIGINT,
        status TEXT, turn_seat BIGINT, turn_changed BOOLEAN, bot_turn BOOLEAN, winners TEXT, now BIGINT,
        deadline BIGINT, remind_at BIGINT, outcome TEXT, final_totals TEXT,
        event TEXT, hash TEXT, earlier TEXT)
), updated AS (
    UPDATE matches SET version = moves.version, status = moves.status,
        turn_seat = moves.turn_seat,
        turn_since = CASE WHEN moves.turn_changed THEN moves.now ELSE matches.turn_since END,
        winners = moves.winners, updated_at = moves.now, deadline = moves.deadline,
        remind_at = moves.remind_at, outcome = moves.outcome, final_totals = moves.final_totals,
        bot_turn_since = CASE WHEN moves.bot_turn
            THEN COALESCE(matches.bot_turn_since, moves.now) ELSE NULL END
    FROM moves WHERE matches.id = ANY (ARRAY(SELECT id FROM moves))
        AND matches.id = moves.id AND matches.version = moves.expected
    RETURNING matches.id, moves.now, moves.version, moves.event, moves.hash, moves.earlier
), inserted AS (
    -- The log row is keyed by the match's version after the append: its last event's.
    INSERT INTO match_events (match_id, seq, event, hash, earlier, created_at)
    SELECT id, version, event, hash, earlier, now FROM updated WHERE event IS NOT NULL
), kept AS (
    INSERT INTO idempotency_keys (account_id, match_id, key, request_hash, response, created_at)
    SELECT k.account_id, k.match_id, k.key, k.request_hash, k.response, updated.now
    FROM json_to_recordset($2::json) AS k (account_id TEXT, match_id TEXT, key TEXT,
        request_hash TEXT, response TEXT)
    JOIN updated ON updated.id = k.match_id
), tells AS (
    -- The notifications of the matches written, each with its place among its account's in
    -- the batch and how many its account is told. (Reading `updated` whole before any
    -- counter is taken: matches are locked before accounts, as in every other write.)
    SELECT n.*, updated.now,
        row_number() OVER (PARTITION BY n.account_id ORDER BY n.ord) AS place,
        count(*) OVER (PARTITION BY n.account_id) AS told
    FROM json_to_recordset($3::json) AS n (match_id TEXT, ord BIGINT, message_id TEXT,
        account_id TEXT, kind TEXT, data TEXT)
    JOIN updated ON updated.id = n.match_id
), counters AS (
    -- Each account's counter moved on by its notifications, taken in the order of the
    -- accounts' ids (store/notifications.rs: two writers telling the same accounts do not
    -- deadlock).
    UPDATE accounts SET notification_seq = accounts.notification_seq + t.told
    FROM (SELECT DISTINCT account_id, told FROM tells ORDER BY account_id) AS t
    WHERE accounts.id = t.account_id
    RETURNING accounts.id, accounts.notification_seq
), noticed AS (
    -- Numbered as they are written. A notification for an account with no row has no counter:
    -- the cast of its message fails the whole statement (in place of the foreign key that
    -- migration 0023 dropped).
    INSERT INTO notifications (message_id, account_id, kind, data, created_at, seq)
    SELECT t.message_id, t.account_id, t.kind, t.data, t.now,
        CASE WHEN counters.id IS NOT NULL THEN counters.notification_seq - t.told + t.place
            ELSE CAST('no account ' || t.account_id AS BIGINT) END
    FROM tells t LEFT JOIN counters ON counters.id = t.account_id
    ORDER BY t.ord
    RETURNING id, account_id
), queued AS (
    -- What the relay must fan out: notifications of accounts with an enabled webhook or
    -- alert settings (TAKE_PLACES in store/notifications.rs).
    INSERT INTO notification_fanout (notification_id)
    SELECT n.id FROM noticed n
    WHERE EXISTS (SELECT 1 FROM webhooks w WHERE w.account_id = n.account_id AND w.disabled_at IS NULL)
        OR EXISTS (SELECT 1 FROM alert_settings s WHERE s.account_id = n.account_id)
    RETURNING notification_id
)
-- What was written: the matches, and for the relay (store/told.rs) each account's counter
-- after the statement and whether anything was queued for the fan-out, so that it announces
-- the accounts' new notifications without reading them again.
SELECT 'match' AS written, id, CAST(NULL AS BIGINT) AS seq FROM updated
UNION ALL SELECT 'account', id, notification_seq FROM counters
UNION ALL (SELECT 'fan_out', '', CAST(NULL AS BIGINT) FROM queued LIMIT 1)
