"""A whole 2-player match played through the client openapi-python-client generates from
openapi/openapi.json, every answer parsed into its generated type (run by run.py, which puts the
generated package `kings_corner_client` on the path):

    python play_match.py http://127.0.0.1:8080

Each seat reads its private view, checks `turn` against `your_seat`, and sends one of
`legal_actions` with the view's `version`, as docs/rules.md tells client authors to.
"""

import secrets
import sys
from uuid import UUID

from kings_corner_client import AuthenticatedClient, Client
from kings_corner_client.api.accounts import me, register
from kings_corner_client.api.auth import login
from kings_corner_client.api.matches import (
    create_match,
    export_match,
    get_events,
    get_match,
    get_player,
    get_replay,
    get_view,
    join_match,
    list_matches,
    post_move,
)
from kings_corner_client.api.notifications import get_notifications
from kings_corner_client.api.rules import rules_catalog
from kings_corner_client.models import (
    AccountView,
    CreateMatch,
    DrawAction,
    EndTurnAction,
    EventsPage,
    HandDealtEvent,
    JoinMatch,
    Login,
    MatchExport,
    MatchFinishedNotification,
    MatchPage,
    MatchSummary,
    MatchView,
    MoveAction,
    MoveRequest,
    NewAccount,
    NotificationPage,
    PlayAction,
    PlayerPage,
    RulesCatalog,
    RulesRequest,
    RulesRequestPreset,
    Status,
    TokenPair,
    Visibility,
)
from kings_corner_client.types import Response

PASSWORD = "correct horse battery"
MOST_MOVES = 20_000


def parsed(response: Response, kind: type):
    """The answer's body, which must have parsed into `kind` (never a raw fallback)."""
    if not isinstance(response.parsed, kind):
        raise SystemExit(
            f"FAILED: wanted a {kind.__name__}, got {response.status_code}: {response.content!r}"
        )
    return response.parsed


def player(server: str, name: str) -> AuthenticatedClient:
    anonymous = Client(base_url=server)
    account = parsed(
        register.sync_detailed(client=anonymous, body=NewAccount(username=name, password=PASSWORD)),
        AccountView,
    )
    assert account.username == name
    tokens = parsed(
        login.sync_detailed(client=anonymous, body=Login(username=name, password=PASSWORD)),
        TokenPair,
    )
    return AuthenticatedClient(base_url=server, token=tokens.access_token)


def choose(view: MatchView):
    """Cards onto the table first, then a draw, then the end of the turn."""
    for kind in (PlayAction, MoveAction, DrawAction, EndTurnAction):
        for action in view.legal_actions:
            if isinstance(action, kind):
                return action
    raise SystemExit(f"FAILED: nothing to send among {view.legal_actions}")


def main() -> None:
    server = sys.argv[1]
    suffix = secrets.token_hex(3)
    names = [f"gen_a_{suffix}", f"gen_b_{suffix}"]
    alice, bob = (player(server, name) for name in names)
    parsed(rules_catalog.sync_detailed(client=Client(base_url=server)), RulesCatalog)
    parsed(me.sync_detailed(client=alice), AccountView)

    created = parsed(
        create_match.sync_detailed(
            client=alice,
            body=CreateMatch(
                rules=RulesRequest(preset=RulesRequestPreset.STANDARD),
                seats=2,
                visibility=Visibility.PUBLIC,
            ),
        ),
        MatchSummary,
    )
    match_id = UUID(str(created.id))
    parsed(join_match.sync_detailed(match_id, client=bob, body=JoinMatch()), MatchSummary)

    seats = [alice, bob]
    moves = 0
    while True:
        views = [parsed(get_view.sync_detailed(match_id, client=seat), MatchView) for seat in seats]
        if views[0].status != Status.PLAYING:
            break
        for seat, view in zip(seats, views):
            if view.turn == view.your_seat and view.legal_actions:
                answer = post_move.sync_detailed(
                    match_id,
                    client=seat,
                    body=MoveRequest(action=choose(view), expected_version=view.version),
                )
                parsed(answer, MatchView)
                moves += 1
                break
        else:
            raise SystemExit(f"FAILED: nobody may move at version {views[0].version}")
        if moves > MOST_MOVES:
            raise SystemExit("FAILED: the match did not end")

    final = views[0]
    assert final.status == Status.FINISHED, final.status
    assert final.winners, "a finished match has winners"
    summary = parsed(get_match.sync_detailed(match_id, client=bob), MatchSummary)
    assert summary.result is not None

    events = parsed(get_events.sync_detailed(match_id, client=alice), EventsPage)
    assert any(isinstance(item.event, HandDealtEvent) for item in events.events)
    parsed(get_replay.sync_detailed(match_id, client=alice, at=1), MatchView)
    export = parsed(export_match.sync_detailed(match_id, client=alice), MatchExport)
    assert export.events, "the export holds the log"
    page = parsed(list_matches.sync_detailed(client=alice, mine=True), MatchPage)
    assert any(str(item.id) == str(match_id) for item in page.matches)
    told = []
    while True:
        after = told[-1].seq if told else 0
        page = parsed(
            get_notifications.sync_detailed(client=bob, after=after, limit=500), NotificationPage
        )
        if not page.notifications:
            break
        told += page.notifications
    assert any(isinstance(item, MatchFinishedNotification) for item in told), "match_finished"
    parsed(get_player.sync_detailed(names[0], client=alice), PlayerPage)
    print(f"the generated Python client played a whole match: {moves} moves, {len(events.events)} events")


if __name__ == "__main__":
    main()
