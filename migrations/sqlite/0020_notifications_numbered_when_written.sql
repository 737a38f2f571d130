-- Issue 40: a notification is given its place in its account's stream (`seq`, from the
-- account's counter) by the transaction that writes it, instead of by a second write from the
-- relay. What the relay still does for a notification (webhook deliveries, alerts by email
-- and push) is queued here, and only for accounts that have an enabled webhook or alert
-- settings: most notifications cost the relay nothing.
--
-- Online: a server process from before this migration still writes notifications without a
-- `seq`; the relay of a newer one numbers those as before (`notifications_to_relay`), so
-- processes of both versions may run on one database during an upgrade.
CREATE TABLE notification_fanout (
    -- The notification (no foreign key: the row is written in the same statement as it, and
    -- the relay joins the two, dropping a row whose notification has expired meanwhile).
    notification_id INTEGER PRIMARY KEY
);
