-- The operators' audit log (issue 39; docs/operations.md, "Moderation"): every action an
-- operator takes through `kings-corner admin` (resolving a report, and the actions to come),
-- with who took it, when and why. Rows are only ever added.
CREATE TABLE operator_actions (
    id       TEXT PRIMARY KEY,
    at       BIGINT NOT NULL,                    -- Unix seconds
    operator TEXT NOT NULL,                      -- the person, as they named themselves
    action   TEXT NOT NULL,                      -- resolve_report, …
    target   TEXT NOT NULL,                      -- what it acted on (a report's id, …)
    reason   TEXT NOT NULL
);
CREATE INDEX operator_actions_at ON operator_actions (at);
