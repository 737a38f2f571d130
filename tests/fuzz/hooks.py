"""Schemathesis hooks for tests/fuzz/run.py (loaded as SCHEMATHESIS_HOOKS): one check,
`refused_only_across_fields`, in place of `positive_data_acceptance` for the operations whose
inputs the server checks beyond what a schema states (BEYOND_THE_SCHEMA in run.py).

A schema-valid request to one of them may be refused only for one of the reasons listed here:
a rule that ties two fields together (a rated table needs a clock), the table's state (whether
a card fits), the present moment (a vacation ends in the future), or a cursor the server did
not write. A refusal for anything else, a bound of one field the description could have stated
above all, fails the run, as `positive_data_acceptance` fails it for every other operation.
"""

import re

import schemathesis

# Integers written with a fraction (`2.0`): JSON Schema's `integer` takes them, serde's integers
# do not, and no schema keyword excludes them. A client that writes integers never sends one.
INTEGRAL_FLOAT = re.compile(r"invalid type: floating point `[^`]*`, expected [iu]\d+")

# Any refusal but one of the request's shape.
TABLE_STATE = "any code but a shape's"
SHAPE_CODES = {"invalid_body", "malformed_json", "invalid_text", "malformed_query"}

# Per operation: (code, the start of `detail`, a pattern it starts with, or None for any) of each
# refusal that no schema of the request alone can foresee.
ACROSS_FIELDS = {
    "POST /v1/matches": [
        # More than six seats need a second deck; `seats` and `rules.players` agree.
        ("invalid_rules", "players: must be 2 to"),
        ("invalid_rules", "seats: does not match rules.players"),
        # Options that rule each other out, or a deal the decks cannot cover.
        ("invalid_rules", "corner_build: corners start with a king"),
        ("invalid_rules", "ace_starter_takes_two: needs side piles"),
        ("invalid_rules", "draw_until_playable: applies to"),
        ("invalid_rules", "game_end: no one can ever reach a target"),
        ("invalid_rules", re.compile(r"hand_size(_5_plus)?: \d+ players × \d+ cards \+ 4 face up")),
        # A clock's companions.
        ("invalid_clock", "on_timeout needs a clock"),
        ("invalid_clock", "vacations stop correspondence clocks only"),
        # A rated table's needs (docs/ratings.md).
        ("rated_needs_clock", None),
        ("rated_needs_claim_or_forfeit", None),
        ("rated_needs_people", None),
        ("rated_without_hints", None),
        ("rated_needs_preset_rules", None),
        # Bots fill the seats after the creator's, so no more than seats - 1.
        ("too_many_bots", None),
    ],
    "GET /v1/matches": [
        # A cursor is opaque: only one the server wrote pages.
        ("invalid_query", "not a cursor of this listing"),
        # `turn=mine` lists matches being played, so it takes no `status`.
        ("invalid_query", "turn takes only `mine`"),
        # `followed=true` lists other players' matches: not with `mine` or `turn`.
        ("invalid_query", "followed lists other players' public matches"),
    ],
    "POST /v1/seeks": [
        # A preset's own number of decks bounds its seats.
        ("invalid_rules", "players: must be 2 to"),
        ("invalid_clock", "on_timeout needs a clock"),
        ("rated_needs_clock", None),
        ("rated_needs_claim_or_forfeit", None),
        ("invalid_seek", "a rated table seats people only"),
        ("invalid_seek", "min is above max"),
        ("invalid_seek", "bot_level goes with bots_after_seconds"),
    ],
    "POST /v1/me/vacation": [
        # The present moment and the account's days.
        ("invalid_vacation", None),
    ],
    "POST /v1/matches/{id}/moves": [
        # Whether an action is legal depends on the table: every engine refusal
        # (`not_your_turn`, `does_not_fit`, …; docs/rules.md §10), never the body's shape.
        (TABLE_STATE, None),
    ],
    "PUT /v1/me/alerts": [
        # The zone must be in the IANA database that jiff carries.
        ("invalid_alert_settings", "`"),
    ],
    "POST /v1/me/push-subscriptions": [
        # Where the endpoint's host resolves, and whether the browser's key is on the curve.
        ("invalid_push_subscription", None),
    ],
    "POST /v1/me/blocks/{username}": [
        ("cannot_block_yourself", None),
    ],
    "POST /v1/me/follows/{username}": [
        ("cannot_follow_yourself", None),
    ],
    "POST /v1/reports": [
        # `username`, `match_id` and `seq` go with `about`.
        ("invalid_report", "A report about"),
        # The account, the match or the talk at `seq` the reporter can see.
        ("nothing_to_report", None),
        ("cannot_report_yourself", None),
    ],
    "POST /v1/me/webhooks": [
        # What a URL parser takes, and the host, resolved, must be an address webhooks may
        # reach.
        ("invalid_webhook", None),
    ],
}


def _allowed(label, problem):
    code = problem.get("code")
    detail = problem.get("detail") or ""
    if code in ("invalid_body", "invalid_rules") and INTEGRAL_FLOAT.search(detail):
        return True
    for allowed_code, start in ACROSS_FIELDS[label]:
        matches_code = code == allowed_code or (
            allowed_code == TABLE_STATE and code not in SHAPE_CODES
        )
        if matches_code and (
            start is None
            or (start.match(detail) if isinstance(start, re.Pattern) else detail.startswith(start))
        ):
            return True
    return False


@schemathesis.check
def refused_only_across_fields(ctx, response, case):
    """A schema-valid request to an operation of ACROSS_FIELDS is refused (400 or 422) only
    for one of its listed reasons."""
    label = case.operation.label
    meta = case.meta
    if label not in ACROSS_FIELDS or meta is None or not meta.generation.mode.is_positive:
        return None
    if response.status_code not in (400, 422):
        return None
    try:
        problem = response.json()
    except ValueError:
        problem = {}
    if not _allowed(label, problem):
        raise AssertionError(
            f"a schema-valid request was refused for a reason the description could state: "
            f"{response.status_code} {problem.get('code')}: {problem.get('detail')}"
        )
    return None
