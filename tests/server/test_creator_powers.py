"""A game's creator has the organiser's powers over that game only (issue 30): signed in as a player, its page,
extend, pause, resume, offer a seat to a substitute and abandon work on their own game; every other organiser route
of a game, and every route of another game (existing or not), is a 404 that changes nothing. The creator's page shows
no seat's link and nothing they may not use; a signed-out browser is still sent to the login form. On both setups."""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from flask.testing import FlaskClient
from werkzeug.routing import Rule

from server.db import Database
from server.models import Channel, Game, GameStatus, Invitation, Player, PlayerSession, Seat, utcnow
from server.services.channel import channels
from server.services.lobby import moderation, proposals
from server.services.play import games, organise
from server.web.access import CREATOR_ENDPOINTS, PLAYER_SESSION
from tests.conftest import Stack
from tests.support import add_player, all_rows, create_tagged, log_in_as_organiser, post_form

#: a game id no game has.
NOBODYS = 987654
#: fields every organiser form might read, so that a refusal is the route's, not a missing field's.
FIELDS = {
    "colour": "red",
    "hours": "6",
    "until": "2031-03-05T10:00",
    "by": "random",
    "rotate": "1",
    "confirm": "1",
    "email": "",
    "name": "",
}


def player_id(db: Database, email: str) -> int:
    with db.session() as session:
        return int(session.execute(sa.select(Player.id).where(Player.email == email)).scalar_one())


def sign_in(db: Database, client: FlaskClient, who: int) -> None:
    """The client's browser signed in as player ``who`` (a server-side session, as the mailed link makes)."""
    session_id = secrets.token_urlsafe(32)
    now = utcnow()
    with db.session() as session:
        session.add(PlayerSession(id=session_id, player_id=who, agent="test", created_at=now, seen_at=now))
    with client.session_transaction() as cookie:
        cookie[PLAYER_SESSION] = session_id


def deadline_of(db: Database, game_id: int) -> Any:
    window = organise.overview(db, game_id)["window"]
    assert window is not None
    return window["deadline"]


def created_by(db: Database, game_id: int, who: int) -> None:
    with db.session() as session:
        session.execute(sa.update(Game).where(Game.id == game_id).values(creator_id=who))


def game_routes(stack: Stack) -> list[Rule]:
    """Every rule of the organiser's blueprint with a game's id: a new one is covered without touching this file."""
    rules = [r for r in stack.app.url_map.iter_rules() if r.endpoint.startswith("organiser.")]
    found = sorted((r for r in rules if "game_id" in r.arguments), key=lambda r: (r.rule, r.endpoint))
    assert {r.endpoint for r in found} >= CREATOR_ENDPOINTS | {"organiser.replay", "organiser.replace"}
    return found


def call(stack: Stack, client: FlaskClient, rule: Rule, method: str, game_id: int) -> Any:
    built = rule.build({"game_id": game_id, **({"action": "remove"} if "action" in rule.arguments else {})})
    assert built is not None
    path = built[1]
    if method == "GET":
        return client.get(path, query_string={"colour": "red"})
    return post_form(client, stack.app, path, FIELDS)


def methods(rule: Rule) -> list[str]:
    return sorted((rule.methods or set()) - {"HEAD", "OPTIONS"})


class Table:
    """Two games: the creator's (ann, p0 of its three people) and another's; ann's browser is signed in."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.own = create_tagged(stack.db, 3, seed=7, now=utcnow()).game_id
        self.other = create_tagged(stack.db, 3, seed=8, now=utcnow()).game_id
        self.ann = player_id(stack.db, "p0.7@example.org")
        created_by(stack.db, self.own, self.ann)
        created_by(stack.db, self.other, player_id(stack.db, "p0.8@example.org"))
        self.client = stack.client
        sign_in(stack.db, self.client, self.ann)


@pytest.fixture
def table(stack: Stack) -> Table:
    return Table(stack)


def test_every_game_route_of_another_game_is_a_404_that_changes_nothing(table: Table) -> None:
    stack = table.stack
    before = all_rows(stack.db)
    for rule in game_routes(stack):
        for method in methods(rule):
            answers = [call(stack, table.client, rule, method, game) for game in (table.other, NOBODYS)]
            assert [a.status_code for a in answers] == [404, 404], (rule.rule, method)
            assert answers[0].text == answers[1].text  # nothing tells an existing game from none
            assert "/o/login" not in answers[0].headers.get("Location", "")
    after = all_rows(stack.db)
    assert after == before


def test_on_their_own_game_only_the_creators_powers(table: Table) -> None:
    stack, own = table.stack, table.own
    before = all_rows(stack.db)
    for rule in game_routes(stack):
        if rule.endpoint in CREATOR_ENDPOINTS:
            continue
        for method in methods(rule):
            assert call(stack, table.client, rule, method, own).status_code == 404, (rule.rule, method)
    assert all_rows(stack.db) == before


def test_the_creators_powers_work_on_their_game(table: Table) -> None:
    stack, own, client = table.stack, table.own, table.client
    deadline = deadline_of(stack.db, own)
    extended = post_form(client, stack.app, f"/o/games/{own}/extend", {"hours": "6"})
    assert extended.status_code == 303 and "done=extended" in extended.headers["Location"]
    assert deadline_of(stack.db, own) > deadline

    zone = ZoneInfo(str(organise.overview(stack.db, own)["timezone"]))
    until = (utcnow() + timedelta(days=1)).astimezone(zone).strftime("%Y-%m-%dT%H:%M")
    paused = post_form(client, stack.app, f"/o/games/{own}/pause", {"until": until})
    assert paused.status_code == 303 and organise.overview(stack.db, own)["paused_until"] is not None
    resumed = post_form(client, stack.app, f"/o/games/{own}/resume")
    assert resumed.status_code == 303 and organise.overview(stack.db, own)["paused_until"] is None

    # a seat whose player still plays is not the creator's to hand over (its hand and all): refused, nothing made
    for refused in (
        client.get(f"/o/games/{own}/offer", query_string={"colour": "blue"}),
        post_form(client, stack.app, f"/o/games/{own}/offer", {"colour": "blue"}),
    ):
        assert refused.status_code == 409 and "only once its player is on autopilot" in refused.text
    with stack.db.session() as session:
        assert session.execute(sa.select(sa.func.count(Invitation.id))).scalar_one() == 0
        session.execute(sa.update(Seat).where(Seat.game_id == own, Seat.colour == "blue").values(autopilot_at=utcnow()))
    form = client.get(f"/o/games/{own}/offer", query_string={"colour": "blue"})
    assert form.status_code == 200 and "Offer this seat to a substitute" in form.text
    offered = post_form(client, stack.app, f"/o/games/{own}/offer", {"colour": "blue"})
    assert offered.status_code == 201 and re.search(r"http://deadmail\.test/i/[\w-]+", offered.text)
    with stack.db.session() as session:
        assert session.execute(sa.select(sa.func.count(Invitation.id))).scalar_one() == 1

    asked = post_form(client, stack.app, f"/o/games/{own}/abandon")
    assert asked.status_code == 200 and "Abandon the game?" in asked.text
    assert organise.overview(stack.db, own)["status"] == "running"
    done = post_form(client, stack.app, f"/o/games/{own}/abandon", {"confirm": "1"})
    assert done.status_code == 303 and organise.overview(stack.db, own)["status"] == "abandoned"
    assert organise.overview(stack.db, table.other)["status"] == "running"


def test_the_creators_page_shows_no_seats_link(table: Table) -> None:
    stack, own = table.stack, table.own
    page = table.client.get(f"/o/games/{own}")
    assert page.status_code == 200
    links = games.seat_links(stack.db, own, stack.settings.secret_key, stack.settings.base_url)
    tokens = [str(seat["link"]).rsplit("/", 1)[-1] for seat in links if seat["link"]]
    assert len(tokens) == 3
    for token in tokens:
        assert token not in page.text
    assert "/s/" not in page.text and "Players and their links" not in page.text
    for hidden in ("/resend", "/replace", "/replay", "/created", "Organiser link"):
        assert hidden not in page.text
    for shown in ("/extend", "/pause", "/offer", "/abandon"):
        assert f"/o/games/{own}{shown}" in page.text
    # the menu leads back to the creator's own games, never to the server's organiser's pages
    assert 'href="/me"' in page.text
    for theirs in ('href="/o/"', 'href="/o/new"', 'href="/o/players"', 'href="/o/leagues'):
        assert theirs not in page.text
    confirm = post_form(table.client, stack.app, f"/o/games/{own}/abandon")
    assert 'href="/me"' in confirm.text and 'href="/o/new"' not in confirm.text


def test_the_organiser_keeps_every_power_and_a_visitor_the_login_form(table: Table) -> None:
    stack, own = table.stack, table.own
    visitor = stack.app.test_client()
    reply = visitor.get(f"/o/games/{own}")
    assert reply.status_code == 302 and "/o/login" in reply.headers["Location"]
    assert post_form(visitor, stack.app, f"/o/games/{own}/pause", FIELDS).status_code == 401
    # the pages without a game keep the login form for a signed-in player too
    for path in ("/o/", "/o/new", "/o/players"):
        refused = table.client.get(path)
        assert refused.status_code == 302 and "/o/login" in refused.headers["Location"]

    log_in_as_organiser(table.client)  # the same browser, also the server's organiser: everything, seat links too
    page = table.client.get(f"/o/games/{table.other}")
    assert page.status_code == 200 and "Players and their links" in page.text and "/s/" in page.text
    assert table.client.get(f"/o/games/{own}/created").status_code == 200


def test_a_player_who_did_not_create_the_game_gets_404(table: Table) -> None:
    stack = table.stack
    bob = stack.app.test_client()
    sign_in(stack.db, bob, player_id(stack.db, "p1.7@example.org"))  # a player of the game, not its creator
    assert bob.get(f"/o/games/{table.own}").status_code == 404
    assert post_form(bob, stack.app, f"/o/games/{table.own}/abandon", {"confirm": "1"}).status_code == 404
    assert organise.overview(stack.db, table.own)["status"] == "running"


def test_a_suspended_creator_has_no_powers(table: Table) -> None:
    stack = table.stack
    moderation.suspend(stack.db, "p0.7@example.org")
    assert table.client.get(f"/o/games/{table.own}").status_code == 404
    assert post_form(table.client, stack.app, f"/o/games/{table.own}/abandon", {"confirm": "1"}).status_code == 404
    moderation.lift(stack.db, "p0.7@example.org")
    assert table.client.get(f"/o/games/{table.own}").status_code == 200


def test_a_game_started_from_a_proposal_is_its_creators(stack: Stack) -> None:
    add_player(stack.db, "cleo@example.org")
    cleo = player_id(stack.db, "cleo@example.org")
    proposal = proposals.create(stack.db, cleo, proposals.NewGame(seats=3, title="Friday"))
    game_id = proposals.start(stack.db, proposal, cleo)
    assert proposals.created_games(stack.db, cleo, game_id) == {game_id}
    sign_in(stack.db, stack.client, cleo)
    page = stack.client.get(f"/o/games/{game_id}")
    assert page.status_code == 200 and "Friday" in page.text
    assert stack.client.get(f"/o/games/{game_id}/replay").status_code == 404
    done = post_form(stack.client, stack.app, f"/o/games/{game_id}/abandon", {"confirm": "1"})
    assert done.status_code == 303
    with stack.db.session() as session:
        assert session.get(Game, game_id).status == GameStatus.ABANDONED  # type: ignore[union-attr]


def test_the_creator_sets_removes_and_resumes_their_games_webhook_channel(table: Table) -> None:
    stack, own, client = table.stack, table.own, table.client
    page = client.get(f"/o/games/{own}")
    assert page.status_code == 200 and "Webhook address" in page.text
    # the server does not allow private addresses (the default): refused, nothing stored
    refused = post_form(client, stack.app, f"/o/games/{own}/channel/set", {"url": "http://10.0.0.1/hook"})
    assert refused.status_code == 400 and "Not done:" in refused.text
    refused = post_form(client, stack.app, f"/o/games/{own}/channel/set", {"url": "javascript:alert(1)"})
    assert refused.status_code == 400
    with stack.db.session() as session:
        assert session.execute(sa.select(sa.func.count(Channel.id))).scalar_one() == 0
    assert post_form(client, stack.app, f"/o/games/{own}/channel/resume").status_code == 409  # none to resume
    with stack.db.session() as session:  # (a public address: set as the service does once checked)
        channels.set_game_channel(session, own, "https://hooks.example.org/abc", allow_private=True, now=utcnow())
        session.execute(sa.update(Channel).values(paused_at=utcnow(), failures=5, last_error="HTTP 500"))
    page = client.get(f"/o/games/{own}")
    assert "https://hooks.example.org/abc" in page.text and "Paused since" in page.text and "HTTP 500" in page.text
    done = post_form(client, stack.app, f"/o/games/{own}/channel/resume")
    assert done.status_code == 303
    with stack.db.session() as session:
        assert session.execute(sa.select(Channel.paused_at, Channel.failures)).one() == (None, 0)
    assert post_form(client, stack.app, f"/o/games/{own}/channel/remove").status_code == 303
    with stack.db.session() as session:
        assert session.execute(sa.select(sa.func.count(Channel.id))).scalar_one() == 0
