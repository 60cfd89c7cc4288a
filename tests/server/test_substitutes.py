"""Substitutes (server/services/attendance/substitutes.py and /i/<key>): the organiser offers a seat of a
running game
by an invitation link, a substitute accepts it and becomes the seat's next tenure by the replace path; they see
exactly what the seat may know and nothing private of the former player; the former player is told; invitations
used twice or lapsed change nothing; the confirm pages change nothing; the organiser's autopilot mail offers the seat;
results are listed per tenure."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import pytest
import sqlalchemy as sa

import engine
from engine.bots import RandomBot
from engine.data import CHARACTERS
from server.db import Database
from server.mail.send import send_due
from server.models import Invitation, Outbox, Player, Seat
from server.services.attendance import substitutes
from server.services.links import LinkError, read_organiser_token, read_player_token, read_token, seat_token
from server.services.play import games, organise, turns
from tests.conftest import Stack
from tests.support import (
    AUTH,
    T0,
    Sink,
    all_rows,
    compose,
    engine_of,
    log_in_as_organiser,
    mail_settings,
    open_window,
    play_window,
    post_form,
    text_of,
)

HOUR = timedelta(hours=1)
NAMES = ("Annabel", "Bartholomew", "Cyrille")


def mid_game(db: Database, windows: int = 2, **spec: Any) -> int:
    """A game of three people (Annabel, Bartholomew, Cyrille) created at T0, ``windows`` windows played."""
    players = [games.PlayerSpec(name=n, email=f"{n.lower()}@example.org") for n in NAMES]
    created = games.create_game(db, games.GameSpec(players=players, seed=7, **spec), now=T0)
    for k in range(windows):
        play_window(db, created.game_id, 7, T0 + (k + 1) * HOUR)
    return created.game_id


def seat_named(db: Database, game_id: int, name: str) -> Seat:
    with db.session() as session:
        seat = session.execute(
            sa.select(Seat)
            .join(Player, Player.id == Seat.player_id)
            .where(Seat.game_id == game_id, Player.display_name == name)
        ).scalar_one()
        _ = seat.player
        session.expunge_all()
        return seat


def seat_by_colour(db: Database, game_id: int, colour: str) -> Seat:
    with db.session() as session:
        seat = session.execute(sa.select(Seat).where(Seat.game_id == game_id, Seat.colour == colour)).scalar_one()
        _ = seat.player
        session.expunge_all()
        return seat


def outbox_of(db: Database, **where: Any) -> list[Outbox]:
    with db.session() as session:
        query = sa.select(Outbox).order_by(Outbox.id)
        for key, value in where.items():
            query = query.where(getattr(Outbox, key) == value)
        rows = list(session.execute(query).scalars())
        session.expunge_all()
        return rows


def invitation_key(page: str) -> str:
    found = re.search(r"/i/([A-Za-z0-9_-]+)", page)
    assert found is not None, page
    return found.group(1)


def seat_links(stack: Stack, text: str) -> set[tuple[int, int]]:
    """(seat id, generation) of every seat link in a text."""
    found = re.findall(r"/s/([A-Za-z0-9_.-]+)", text)
    return {read_token(stack.settings.secret_key, t, stack.settings.link_max_age) for t in found}


def prefs_links(stack: Stack, text: str) -> set[tuple[int, int]]:
    """(player id, generation) of every preferences link in a text."""
    found = re.findall(r"/p/([A-Za-z0-9_.-]+)", text)
    return {read_player_token(stack.settings.secret_key, t, stack.settings.link_max_age) for t in found}


def page_text(reply: Any) -> str:
    return str(reply.get_data(as_text=True)).replace("&#39;", "'")


# --- a substitute takes a seat mid-game ----------------------------------------------------------------------------


def former_settings(stack: Stack, game_id: int, former: Seat) -> str:
    """The former player's own standing answers and order for this game, and their defaults for every game; returns
    the seat's link."""
    assert former.player is not None
    token = seat_token(stack.settings.secret_key, former.id, former.link_generation)
    victims = list(CHARACTERS)[:2]
    body = {"camera": "look", "vote": "against_leader", "victim": victims}
    reply = stack.client.put(f"/api/seat/{token}/standing", json=body)
    assert reply.status_code == 200, reply.get_json()
    with stack.db.session() as session:
        player = session.get(Player, former.player.id)
        assert player is not None
        player.standing = {"cards": "pass"}
    assert engine.view(engine_of(stack.db, game_id), former.colour)["standing_order"] == victims
    return token


def offer_and_take(stack: Stack, game_id: int, colour: str) -> tuple[str, str]:
    """The organiser offers the seat on the game page; the invitation page shows public facts only (its GET changes
    nothing); the substitute takes the seat. Returns the invitation's key and the seat's new token."""
    offered = post_form(stack.client, stack.app, f"/o/games/{game_id}/offer", {"colour": colour})
    assert offered.status_code == 201
    key = invitation_key(page_text(offered))
    before = all_rows(stack.db)
    shown = stack.client.get(f"/i/{key}")
    page = page_text(shown)
    assert shown.status_code == 200 and "Take the seat" in page and "Bartholomew" in page
    assert "/s/" not in page and "/p/" not in page and "@example.org" not in page
    assert all_rows(stack.db) == before
    taken = post_form(stack.client, stack.app, f"/i/{key}", {"name": "Dorothea", "email": "dorothea@example.org"})
    assert taken.status_code == 303, page_text(taken)
    return key, taken.headers["Location"].rsplit("/s/", 1)[1]


def check_seat_view(stack: Stack, game_id: int, colour: str, token: str, former: tuple[int, int]) -> None:
    """The seat's view is exactly what engine.view gives its colour (hand, its own private events), and nothing of
    the former tenure the seat may not know: their name, standing answers and order, preferences link."""
    state = stack.client.get(f"/api/seat/{token}").get_json()
    eng = engine_of(stack.db, game_id)
    expected = json.loads(json.dumps(engine.view(eng, colour)))
    assert {k: v for k, v in state["view"].items() if k != "waiting_for"} == {
        k: v for k, v in expected.items() if k != "waiting_for"
    }
    others = [json.loads(json.dumps(engine.view(eng, c)))["events"] for c in eng.players if c != colour]
    private = [e for e in state["view"]["events"] if all(e not in events for events in others)]
    assert private and state["view"]["hand"] == expected["hand"]
    assert state["seat"]["player"] == "Dorothea" and "Annabel" not in json.dumps(state)
    assert state["view"]["standing_order"] in ([], None)
    own = stack.client.get(f"/api/seat/{token}/standing").get_json()
    assert own["seat"] == {} and own["defaults"] == {} and own["answering"] == []
    page = page_text(stack.client.get(f"/s/{token}"))
    assert "Annabel" not in page and former not in prefs_links(stack, page)


def check_mails(stack: Stack, game_id: int, former: Seat, after: Seat) -> None:
    """The newcomer's mail tells the seat's whole story with their own links only; the outgoing player is told,
    without a link to the seat, and nothing more about it is to be sent to them."""
    assert former.player is not None and after.player is not None
    settings = mail_settings(stack.settings)
    (first,) = [r for r in outbox_of(stack.db, player_id=after.player.id) if r.kind in ("turn", "link")]
    message = compose(stack.db, first.id, settings, now=T0 + 3 * HOUR)
    assert message is not None and "dorothea@example.org" in message["To"]
    text = text_of(message)
    assert "What happened since your last mail" in text and "Annabel" not in text
    assert seat_links(stack, text) == {(after.id, after.link_generation)}
    assert prefs_links(stack, text) == {(after.player.id, after.player.link_generation)}
    (told,) = outbox_of(stack.db, player_id=former.player.id, kind="substituted")
    assert told.game_id == game_id and told.seat_id is None
    bye = compose(stack.db, told.id, settings, now=T0 + 3 * HOUR)
    assert bye is not None and "annabel@example.org" in bye["To"]
    assert "Dorothea took over your" in text_of(bye) and "Thank you" in text_of(bye) and "/s/" not in text_of(bye)
    unsent = [r for r in outbox_of(stack.db, player_id=former.player.id, seat_id=former.id) if r.status == "pending"]
    assert unsent == []


def test_a_substitute_takes_a_seat_mid_game_and_sees_only_what_the_seat_may_know(
    organiser: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack = organiser
    monkeypatch.setattr(substitutes, "utcnow", lambda: T0 + 3 * HOUR)  # the clock of the invitation's pages
    game_id = mid_game(stack.db)
    former = seat_named(stack.db, game_id, "Annabel")
    assert former.player is not None
    colour = former.colour
    old_token = former_settings(stack, game_id, former)
    # the mail so far is sent: the seat was told its events (``told_events``) and its table talk
    assert send_due(stack.db, Sink(), mail_settings(stack.settings), T0 + 3 * HOUR) >= 1
    assert seat_by_colour(stack.db, game_id, colour).told_events
    key, new_token = offer_and_take(stack, game_id, colour)
    assert seat_links(stack, f"/s/{new_token}") == {(former.id, former.link_generation + 1)}
    after = seat_by_colour(stack.db, game_id, colour)
    assert after.player is not None and after.player.display_name == "Dorothea"
    assert (after.standing, after.missed, after.autopilot_at, after.told_events) == (None, 0, None, None)
    check_seat_view(stack, game_id, colour, new_token, (former.player.id, former.player.link_generation))
    # the old links are refused
    assert stack.client.get(f"/s/{old_token}").status_code == 403
    assert stack.client.get(f"/api/seat/{old_token}").status_code == 403
    check_mails(stack, game_id, former, after)
    # the invitation is used, by the substitute
    with stack.db.session() as session:
        used = session.execute(sa.select(Invitation).where(Invitation.key == key)).scalar_one()
        assert used.used_by == after.player.id and used.used_at is not None
    # results per tenure: the API and the organiser's page
    status = stack.client.get(f"/api/games/{game_id}", headers=AUTH).get_json()
    first_tenure, second = status["tenures"][colour]
    assert (first_tenure["player"], second["player"], second["to"]) == ("Annabel", "Dorothea", None)
    assert first_tenure["to"] == second["from"] and first_tenure["requests"]["owed"] >= 1
    assert first_tenure["requests"]["answered"] == first_tenure["requests"]["owed"]
    assert second["requests"]["owed"] == 0 and second["result"] is None
    organiser_page = page_text(stack.client.get(f"/o/games/{game_id}"))
    assert "Who played each seat" in organiser_page and "Dorothea" in organiser_page


def test_an_invitation_used_twice_or_lapsed_changes_nothing(stack: Stack) -> None:
    game_id = mid_game(stack.db, windows=1)
    yellow = seat_by_colour(stack.db, game_id, "yellow")
    key = substitutes.offer(stack.db, game_id, "yellow", now=T0 + 2 * HOUR)
    taken = substitutes.accept(stack.db, key, "Dorothea", "dorothea@example.org", now=T0 + 2 * HOUR)
    assert taken.seat_id == yellow.id and taken.generation == yellow.link_generation + 1

    # used twice: refused with a clear message, nothing changed (by the service and by the page)
    before = all_rows(stack.db)
    with pytest.raises(substitutes.InvitationError) as refused:
        substitutes.accept(stack.db, key, "Eve", "eve@example.org", now=T0 + 3 * HOUR)
    assert refused.value.msgid == substitutes.USED
    reply = post_form(stack.client, stack.app, f"/i/{key}", {"name": "Eve", "email": "eve@example.org"})
    assert reply.status_code == 409 and "already used" in page_text(reply)
    assert stack.client.get(f"/i/{key}").status_code == 409
    assert all_rows(stack.db) == before

    # lapsed: the seat changed hands another way since the offer
    key = substitutes.offer(stack.db, game_id, "red", now=T0 + 3 * HOUR)
    organise.replace_seat(stack.db, game_id, "red", bot="sensible", now=T0 + 3 * HOUR)
    before = all_rows(stack.db)
    with pytest.raises(substitutes.InvitationError) as refused:
        substitutes.accept(stack.db, key, "Eve", "eve@example.org", now=T0 + 4 * HOUR)
    assert refused.value.msgid == substitutes.LAPSED
    reply = post_form(stack.client, stack.app, f"/i/{key}", {"name": "Eve", "email": "eve@example.org"})
    assert reply.status_code == 409 and "lapsed" in page_text(reply)
    assert all_rows(stack.db) == before

    # an address that already plays another seat of the game; a bad address; an unknown key
    key = substitutes.offer(stack.db, game_id, "red", now=T0 + 4 * HOUR)  # the bot's seat
    before = all_rows(stack.db)
    with pytest.raises(organise.OrganiseError):
        substitutes.accept(stack.db, key, "Dee", "dorothea@example.org", now=T0 + 4 * HOUR)
    reply = post_form(stack.client, stack.app, f"/i/{key}", {"name": "Dee", "email": "dorothea@example.org"})
    assert reply.status_code == 409 and "already plays the Yellow seat" in page_text(reply)
    reply = post_form(stack.client, stack.app, f"/i/{key}", {"name": "Eve", "email": "not an address"})
    assert reply.status_code == 400 and "Take the seat" in page_text(reply)
    with pytest.raises(LinkError):
        substitutes.accept(stack.db, "no-such-key", "Eve", "eve@example.org")
    for path in ("/i/no-such-key", "/i/" + "x" * 100):
        assert stack.client.get(path).status_code == 403
        assert post_form(stack.client, stack.app, path, {"name": "Eve", "email": "eve@example.org"}).status_code == 403
    assert all_rows(stack.db) == before

    # the game no longer running: every open invitation lapses
    organise.abandon(stack.db, game_id, now=T0 + 5 * HOUR)
    before = all_rows(stack.db)
    with pytest.raises(substitutes.InvitationError) as refused:
        substitutes.accept(stack.db, key, "Eve", "eve@example.org", now=T0 + 5 * HOUR)
    assert refused.value.msgid == substitutes.LAPSED
    assert stack.client.get(f"/i/{key}").status_code == 409
    assert all_rows(stack.db) == before


def test_a_bot_seat_taken_by_a_substitute_and_the_open_request_is_theirs(stack: Stack) -> None:
    game_id = mid_game(stack.db, windows=1)
    organise.replace_seat(stack.db, game_id, "blue", bot="random", now=T0 + 2 * HOUR)
    key = substitutes.offer(stack.db, game_id, "blue", now=T0 + 2 * HOUR)
    taken = substitutes.accept(stack.db, key, "Dorothea", "dorothea@example.org", now=T0 + 3 * HOUR)
    seat = seat_by_colour(stack.db, game_id, "blue")
    assert seat.bot is None and seat.player is not None and seat.player.display_name == "Dorothea"
    assert taken.generation == seat.link_generation
    # a bot's seat: nobody to tell
    assert outbox_of(stack.db, kind="substituted") == []


def test_the_open_request_counts_for_the_newcomer(stack: Stack) -> None:
    game_id = mid_game(stack.db, windows=1)
    with stack.db.session() as session:
        owing = session.execute(
            sa.text(
                "SELECT r.seat_id FROM requests r JOIN windows w ON w.id = r.window_id "
                "WHERE w.game_id = :g AND w.status = 'open' AND r.answered_at IS NULL ORDER BY r.position"
            ),
            {"g": game_id},
        ).scalars()
        seat_id = next(iter(owing))
        colour = session.execute(sa.select(Seat.colour).where(Seat.id == seat_id)).scalar_one()
    key = substitutes.offer(stack.db, game_id, colour, now=T0 + 2 * HOUR)
    taken = substitutes.accept(stack.db, key, "Dorothea", "dorothea@example.org", now=T0 + 2 * HOUR)
    with stack.db.session() as session:
        newcomer = session.execute(sa.select(Seat.player_id).where(Seat.id == seat_id)).scalar_one()
        owed_by = session.execute(
            sa.text(
                "SELECT r.player_id FROM requests r JOIN windows w ON w.id = r.window_id "
                "WHERE w.status = 'open' AND r.seat_id = :s"
            ),
            {"s": seat_id},
        ).scalar_one()
    assert owed_by == newcomer and taken.seat_id == seat_id
    # the newcomer's first mail is their turn
    (turn,) = [r for r in outbox_of(stack.db, player_id=newcomer) if r.kind == "turn"]
    message = compose(stack.db, turn.id, mail_settings(stack.settings), now=T0 + 2 * HOUR)
    assert message is not None and "Your decision" in text_of(message)


# --- the organiser's side --------------------------------------------------------------------------------------------


def test_the_offer_confirm_page_changes_nothing_and_an_offer_can_be_mailed(organiser: Stack) -> None:
    stack = organiser
    game_id = mid_game(stack.db, windows=1)
    before = all_rows(stack.db)
    form = stack.client.get(f"/o/games/{game_id}/offer?colour=red")
    page = page_text(form)
    assert form.status_code == 200 and f"/o/games/{game_id}/offer" in page and 'method="post"' in page
    assert stack.client.get(f"/o/games/{game_id}/offer?colour=purple").status_code == 409
    assert stack.client.get(f"/o/games/{game_id}/offer").status_code == 409
    assert stack.client.get(f"/o/games/{game_id + 99}/offer?colour=red").status_code == 404
    game = page_text(stack.client.get(f"/o/games/{game_id}"))
    assert f"/o/games/{game_id}/offer?colour=red" in game and "Offer this seat to a substitute" in game
    assert all_rows(stack.db) == before
    # refused offers: no CSRF token, no such seat, an address already seated
    path = f"/o/games/{game_id}/offer"
    assert post_form(stack.client, stack.app, path, {"colour": "red"}, csrf=False).status_code == 400
    assert post_form(stack.client, stack.app, path, {"colour": "purple"}).status_code == 409
    seated = {"colour": "red", "email": "cyrille@example.org"}
    assert post_form(stack.client, stack.app, path, seated).status_code == 409
    assert all_rows(stack.db) == before
    # offered by mail too: the invitation mail carries the link; the game page lists the open invitation
    by_mail = {"colour": "red", "name": "Dorothea", "email": "dorothea@example.org"}
    offered = post_form(stack.client, stack.app, f"/o/games/{game_id}/offer", by_mail)
    assert offered.status_code == 201 and "dorothea@example.org" in page_text(offered)
    key = invitation_key(page_text(offered))
    (row,) = outbox_of(stack.db, kind="invitation")
    assert row.game_id == game_id and row.seat_id is None
    message = compose(stack.db, row.id, mail_settings(stack.settings), now=T0 + 2 * HOUR)
    assert message is not None and "dorothea@example.org" in message["To"]
    assert f"/i/{key}" in text_of(message) and "Red seat" in text_of(message)
    assert f"/i/{key}" in page_text(stack.client.get(f"/o/games/{game_id}"))
    # once used, the invitation mail is not sent any more (nothing left to offer)
    substitutes.accept(stack.db, key, "Dorothea", "dorothea@example.org", now=T0 + 2 * HOUR)
    assert compose(stack.db, row.id, mail_settings(stack.settings), now=T0 + 2 * HOUR) is None
    assert f"/i/{key}" not in page_text(stack.client.get(f"/o/games/{game_id}"))


def test_the_organisers_autopilot_mail_offers_the_seat(stack: Stack) -> None:
    players = [games.PlayerSpec(name=n, email=f"{n.lower()}@example.org") for n in NAMES]
    spec = games.GameSpec(players=players, seed=7, organiser_email="olga@example.org", absences={"autopilot_after": 1})
    game_id = games.create_game(stack.db, spec, now=T0).game_id
    window = open_window(stack.db, game_id)
    assert window is not None
    eng = engine_of(stack.db, game_id)
    owing = [row for row in window.requests if row.answered_at is None]
    for owed in owing[1:]:  # all but the first one owing answer; the first misses the deadline
        request = next(r for r in eng.pending() if r.player == owed.seat.colour)
        value = RandomBot(1).decide(eng, request)
        turns.submit_answer(stack.db, owed.seat_id, owed.kind, value, window_number=window.number, now=T0 + HOUR)
    assert turns.sweep_windows(stack.db, now=window.deadline + HOUR) == 1
    (row,) = [r for r in outbox_of(stack.db, kind="organiser") if r.payload.get("about") == "autopilot"]
    colour = row.payload["colour"]
    assert colour == owing[0].seat.colour
    message = compose(stack.db, row.id, mail_settings(stack.settings), now=window.deadline + HOUR)
    assert message is not None and "olga@example.org" in message["To"]
    text = text_of(message)
    name = colour.capitalize()
    assert f"{name} missed 1 deadline in a row" in text and "is on autopilot" in text
    # the organiser's link, signed with the time the mail was made (so read from the mail, never signed again here)
    base = re.escape(stack.settings.base_url)
    found = re.search(rf"Offer the {name} seat to a substitute: {base}/o/link/(\S+)", text)
    assert found is not None, text
    token, query = found[1].split("?")
    assert read_organiser_token(stack.settings.secret_key, token, 3600) == game_id and query == f"offer={colour}"
    offer = f"{stack.settings.base_url}/o/link/{found[1]}"
    # the one-tap action: the organiser link opens the confirm page, whose GET changes nothing, whose form offers
    went = stack.client.get(offer.removeprefix(stack.settings.base_url))
    assert went.status_code == 303 and went.headers["Location"].endswith(f"/o/games/{game_id}/offer?colour={colour}")
    before = all_rows(stack.db)
    confirm = stack.client.get(went.headers["Location"])
    assert confirm.status_code == 200 and "It is on autopilot." in page_text(confirm)
    assert all_rows(stack.db) == before
    offered = post_form(stack.client, stack.app, f"/o/games/{game_id}/offer", {"colour": colour})
    assert offered.status_code == 201 and "/i/" in page_text(offered)


def test_results_per_tenure_at_game_over(stack: Stack) -> None:
    """The tenure current when the game ends carries the seat's result; earlier ones none."""
    game_id = mid_game(stack.db, windows=1)
    key = substitutes.offer(stack.db, game_id, "red", now=T0 + 2 * HOUR)
    substitutes.accept(stack.db, key, "Dorothea", "dorothea@example.org", now=T0 + 2 * HOUR)
    for k in range(400):
        if engine_of(stack.db, game_id).over:
            break
        play_window(stack.db, game_id, 7 + k, T0 + (3 + k) * HOUR)
    assert engine_of(stack.db, game_id).over
    log_in_as_organiser(stack.client)
    tenures = stack.client.get(f"/api/games/{game_id}", headers=AUTH).get_json()["tenures"]
    outcome = engine_of(stack.db, game_id).outcome
    assert outcome is not None
    first, second = tenures["red"]
    assert first["result"] is None and second["player"] == "Dorothea"
    assert second["result"] == {"score": outcome["scores"]["red"], "won": "red" in outcome["winners"]}
    assert second["requests"]["owed"] >= 1 and second["requests"]["answered"] == second["requests"]["owed"]
    assert [t["result"]["score"] for t in tenures["blue"]] == [outcome["scores"]["blue"]]
    page = page_text(stack.client.get(f"/o/games/{game_id}"))
    assert "Dorothea" in page and "points" in page


def test_guessing_invitation_keys_is_rate_limited_with_the_link_pages(embedded: Stack) -> None:
    stack = embedded
    stack.app.config["DEADMAIL_LINKS_PER_MINUTE"] = 3
    stack.app.config["DEADMAIL_ANSWERS_PER_MINUTE"] = 2
    for i in range(3):
        assert stack.client.get(f"/i/guess-{i}").status_code == 403
    refused = stack.client.get("/i/guess-3")
    assert refused.status_code == 429 and 0 < int(refused.headers["Retry-After"]) <= 60
    for i in range(2):
        form = {"name": "Eve", "email": "eve@example.org"}
        assert post_form(stack.client, stack.app, f"/i/guess-{i}", form).status_code == 403
    assert post_form(stack.client, stack.app, "/i/guess-9", {"email": "eve@example.org"}).status_code == 429
    assert stack.client.get("/i/guess-4", environ_base={"REMOTE_ADDR": "198.51.100.7"}).status_code == 403


def test_two_people_accepting_one_invitation_at_once_get_one_seat(stack: Stack) -> None:
    """The invitation, the seat and the open window are locked: of two acceptances at the same moment exactly one
    takes the seat, the other is told it was used, and the seat has one new tenure."""
    import threading

    game_id = mid_game(stack.db, windows=1)
    key = substitutes.offer(stack.db, game_id, "yellow", now=T0 + 2 * HOUR)
    start = threading.Barrier(2)
    results: dict[str, str] = {}

    def accept(name: str) -> None:
        start.wait()
        try:
            substitutes.accept(stack.db, key, name, f"{name.lower()}@example.org", now=T0 + 2 * HOUR)
            results[name] = "took"
        except substitutes.InvitationError as exc:
            results[name] = exc.msgid

    threads = [threading.Thread(target=accept, args=(name,)) for name in ("Dee", "Eve")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(results.values()) == sorted(["took", substitutes.USED])
    yellow = seat_by_colour(stack.db, game_id, "yellow")
    winner = next(name for name, said in results.items() if said == "took")
    with stack.db.session() as session:
        player = session.get(Player, yellow.player_id)
        assert player is not None and player.display_name == winner
        tenures = session.execute(sa.text("SELECT count(*) FROM seat_tenures WHERE seat_id = :s"), {"s": yellow.id})
        assert tenures.scalar_one() == 2  # the first player's, ended, and the winner's


def test_a_suspended_player_takes_no_seat_and_an_address_that_said_never_gets_no_offer(stack: Stack) -> None:
    """Issue 30: a suspension and "never invite me again" hold for substitutes' offers too (one answer for both)."""
    game_id = mid_game(stack.db, windows=1)
    with stack.db.session() as session:
        session.add(Player(email="sus@example.org", display_name="Sus", suspended_at=T0))
        session.add(Player(email="never@example.org", display_name="", no_invitations=True))
    key = substitutes.offer(stack.db, game_id, "yellow", now=T0 + HOUR)
    before = all_rows(stack.db)
    with pytest.raises(substitutes.InvitationError) as refused:
        substitutes.accept(stack.db, key, "Sus", "sus@example.org", now=T0 + HOUR)
    assert refused.value.msgid == substitutes.NOT_NOW
    for address in ("sus@example.org", "never@example.org"):
        with pytest.raises(organise.OrganiseError) as refused_offer:
            substitutes.offer(stack.db, game_id, "red", now=T0 + HOUR, to=games.person("X", address))
        assert refused_offer.value.msgid == substitutes.NOT_NOW
    assert all_rows(stack.db) == before
