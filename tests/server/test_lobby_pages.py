"""Players start their own games in the browser (issue 30): the new-game form, a forming game's page with its
creator's and members' forms, invitations by address answered from their mail's link, the shareable link, the lobby
(page and JSON), and the game starting when its last seat is taken. Real pages through the Flask test client, on
both setups; mails read from the outbox."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from flask.testing import FlaskClient

from server.models import Game, MailKind, Outbox, Player, Proposal, Seat
from server.services.links import game_invite_token, signin_token
from tests.conftest import Stack
from tests.support import add_player, all_rows, post_form, rows_of_kind

ANN = "ann@example.org"


def sign_in(stack: Stack, address: str, name: str | None = None) -> FlaskClient:
    """A new browser signed in as the player of ``address`` (made with ``name`` if new), from the sign-in mail's
    link."""
    with stack.db.session() as session:
        if session.execute(sa.select(Player).where(Player.email == address)).scalar_one_or_none() is None:
            session.add(Player(email=address, display_name=name or address.split("@", maxsplit=1)[0]))
    client = stack.app.test_client()
    assert post_form(client, stack.app, "/signin", {"address": address}).status_code == 200
    row = rows_of_kind(stack.db, MailKind.SIGNIN)[-1]
    token = signin_token(stack.settings.secret_key, row.payload["link"])
    assert post_form(client, stack.app, f"/signin/{token}").status_code == 303
    return client


def player_id(stack: Stack, address: str) -> int:
    with stack.db.session() as session:
        found = session.execute(sa.select(Player.id).where(Player.email == address)).scalar_one()
        return int(found)


GOOD = {"seats": "4", "title": "Friday night", "language": "en", "timezone": "Europe/Rome", "fill_days": "7"}


def create_game(stack: Stack, client: FlaskClient, **fields: str) -> int:
    reply = post_form(client, stack.app, "/games/new", {**GOOD, **fields})
    assert reply.status_code == 303, reply.text
    found = re.search(r"/games/(\d+)\?done=created$", reply.headers["Location"])
    assert found, reply.headers["Location"]
    return int(found[1])


def invitation_links(stack: Stack, address: str) -> list[str]:
    """The invitation mails' links of ``address`` (built from their rows, as the mail's composer does)."""
    pid = player_id(stack, address)
    return [
        f"/invited/{game_invite_token(stack.settings.secret_key, row.payload['invitation'])}"
        for row in rows_of_kind(stack.db, MailKind.GAME_INVITE)
        if row.player_id == pid
    ]


def mail_kinds(stack: Stack, address: str) -> list[str]:
    pid = player_id(stack, address)
    with stack.db.session() as session:
        return list(
            session.execute(sa.select(Outbox.kind).where(Outbox.player_id == pid).order_by(Outbox.id)).scalars()
        )


def forming_page(client: FlaskClient, proposal_id: int) -> Any:
    return client.get(f"/games/{proposal_id}")


def proposals_count(stack: Stack) -> int:
    with stack.db.session() as session:
        return int(session.execute(sa.select(sa.func.count(Proposal.id))).scalar_one())


# --- creating -----------------------------------------------------------------------------------------------------


def test_signed_out_the_pages_send_to_signin(stack: Stack) -> None:
    ann = sign_in(stack, ANN, "Ann")
    game = create_game(stack, ann)
    stranger = stack.app.test_client()
    for reply in (
        stranger.get("/games/new"),
        post_form(stranger, stack.app, "/games/new", GOOD),
        stranger.get(f"/games/{game}"),
        post_form(stranger, stack.app, f"/games/{game}/join"),
        post_form(stranger, stack.app, f"/games/{game}/cancel"),
    ):
        assert reply.status_code == 303 and reply.headers["Location"].endswith("/signin")
    assert proposals_count(stack) == 1


HOSTILE = [
    ({"title": "Friday\x00night"}, "cannot be stored"),
    ({"title": "Friday\nnight"}, "one line of plain text"),
    ({"title": "evil\u202egnirts"}, "one line of plain text"),
    ({"title": "isolated\u2067text"}, "one line of plain text"),
    ({"title": "x" * 10_000}, "too long"),
    ({"webhook_url": "https://hooks.example.org/" + "x" * 10_000}, "webhook"),
    ({"webhook_url": "javascript:alert(1)"}, "webhook"),
    ({"seats": "2"}, "3 to 6 players"),
    ({"seats": "7"}, "3 to 6 players"),
    ({"seats": "x"}, "3 to 6 players"),
    ({"option_turn_order": "sideways"}, "is not a choice of turn_order"),
    ({"timezone": "Mars/Olympus"}, "Mars/Olympus"),
    ({"preset": "lightning"}, "not a tempo preset"),
    ({"language": "de"}, "language is one of en, it, pl"),
    ({"fill_days": "0"}, "within 1 to 30 days"),
    ({"fill_days": "31"}, "within 1 to 30 days"),
]


def test_bad_values_are_refused_with_the_form_kept_and_nothing_stored(stack: Stack) -> None:
    ann = sign_in(stack, ANN, "Ann")
    before = all_rows(stack.db)
    for fields, said in HOSTILE:
        reply = post_form(ann, stack.app, "/games/new", {**GOOD, "title": "Kept title", **fields})
        assert reply.status_code == 400, (fields, reply.status_code)
        assert said in reply.text, (fields, reply.text[-2000:])
        if "title" not in fields and "\x00" not in str(fields):
            assert 'value="Kept title"' in reply.text  # the form comes back as it was sent
            zone = fields.get("timezone", "Europe/Rome")
            assert f'value="{zone}" selected' in reply.text
    assert all_rows(stack.db) == before


def test_a_game_is_created_with_its_settings_and_its_creator_seated(stack: Stack) -> None:
    ann = sign_in(stack, ANN, "Ann")
    form = ann.get("/games/new")
    assert form.status_code == 200
    for label in ("Players, you included", "Title (optional)", "The table's language", "Tempo preset", "Turn order"):
        assert label in form.text
    game = create_game(
        stack, ann, seats="3", preset="week", option_turn_order="strict", listed="1", language="it", fill_days="3"
    )
    page = ann.get(f"/games/{game}?done=created")
    assert page.status_code == 200
    for text in ("Friday night", "1 of 3 seats taken: Ann", "A week by e-mail", "Italiano", "Europe/Rome"):
        assert text in page.text
    assert "Turn order: strict" in page.text and "Your game is ready" in page.text
    with stack.db.session() as session:
        proposal = session.get(Proposal, game)
        assert proposal is not None
        assert (proposal.seats, proposal.preset, proposal.language, proposal.listed) == (3, "week", "it", True)
        assert proposal.options == {"turn_order": "strict"}


# --- invitations --------------------------------------------------------------------------------------------------


def test_invitations_one_mail_each_and_nothing_else_until_accepted(stack: Stack) -> None:
    ann = sign_in(stack, ANN, "Ann")
    game = create_game(stack, ann)
    before = all_rows(stack.db)
    for text, said in (
        ("bob@example.org, not-an-address", "not an e-mail address"),
        (", ".join(f"p{i}@example.org" for i in range(11)), "at most 10 addresses at once"),
        ("", "Give one or more e-mail addresses"),
    ):
        reply = post_form(ann, stack.app, f"/games/{game}/invite", {"addresses": text})
        assert reply.status_code == 400 and said in reply.text, reply.text[-1500:]
        assert text in reply.text  # the textarea keeps what was written
    assert all_rows(stack.db) == before

    reply = post_form(
        ann, stack.app, f"/games/{game}/invite", {"addresses": "bob@example.org\ncy@example.org, ann@example.org"}
    )
    assert reply.status_code == 303 and reply.headers["Location"].endswith("done=invited")
    page = ann.get(reply.headers["Location"])
    assert "2 invitations sent." in page.text
    assert "ann@example.org: already has a seat" in page.text
    assert page.text.count("waiting for an answer") == 2
    again = post_form(ann, stack.app, f"/games/{game}/invite", {"addresses": "bob@example.org"})
    assert "bob@example.org: already invited" in ann.get(again.headers["Location"]).text
    for address in ("bob@example.org", "cy@example.org"):
        assert mail_kinds(stack, address) == [MailKind.GAME_INVITE]
        assert len(invitation_links(stack, address)) == 1

    # the invitation's page: opening it changes nothing
    link = invitation_links(stack, "bob@example.org")[0]
    before = all_rows(stack.db)
    opened = stack.app.test_client().get(link)
    assert opened.status_code == 200
    assert "Friday night" in opened.text and "Your name, as the other players will see it" in opened.text
    assert all_rows(stack.db) == before
    # accepting needs a name for a new address
    bob = stack.app.test_client()
    refused = post_form(bob, stack.app, link, {"answer": "accept", "name": ""})
    assert refused.status_code == 400 and "Give the name" in refused.text
    accepted = post_form(bob, stack.app, link, {"answer": "accept", "name": "Bob"})
    assert accepted.status_code == 200 and "You have a seat" in accepted.text
    hub = re.search(r'href="(/p/[^"]+)"', accepted.text)
    assert hub is not None and bob.get(hub[1]).status_code == 200
    # the link never expires: accepting again changes nothing and opens no hub (a forwarded mail gives nothing)
    again = post_form(stack.app.test_client(), stack.app, link, {"answer": "accept"})
    assert again.status_code == 200 and "/p/" not in again.text and "/signin" in again.text
    assert "2 of 4 seats taken: Ann, Bob" in ann.get(f"/games/{game}").text
    assert mail_kinds(stack, "bob@example.org") == [MailKind.GAME_INVITE]  # (its game has not started)

    # decline, then never: later invitations to that address are skipped
    cy = invitation_links(stack, "cy@example.org")[0]
    declined = post_form(stack.app.test_client(), stack.app, cy, {"answer": "decline"})
    assert declined.status_code == 200 and "Invitation declined" in declined.text
    assert "already" in stack.app.test_client().get(cy).text
    post_form(ann, stack.app, f"/games/{game}/invite", {"addresses": "dee@example.org"})
    dee = invitation_links(stack, "dee@example.org")[0]
    never = post_form(stack.app.test_client(), stack.app, dee, {"answer": "never"})
    assert never.status_code == 200 and "No more invitations" in never.text
    other = create_game(stack, ann, title="Another")
    reply = post_form(ann, stack.app, f"/games/{other}/invite", {"addresses": "dee@example.org"})
    page = ann.get(reply.headers["Location"])
    assert "No invitation sent." in page.text and "dee@example.org: takes no invitation now" in page.text
    assert mail_kinds(stack, "dee@example.org") == [MailKind.GAME_INVITE]


def test_a_flood_of_invitations_is_refused_past_the_days_limit(stack: Stack) -> None:
    ann = sign_in(stack, ANN, "Ann")
    game = create_game(stack, ann, seats="6")
    for batch in range(3):
        text = "\n".join(f"p{batch}x{i}@example.org" for i in range(10))
        assert post_form(ann, stack.app, f"/games/{game}/invite", {"addresses": text}).status_code == 303
    before = all_rows(stack.db)
    refused = post_form(ann, stack.app, f"/games/{game}/invite", {"addresses": "late@example.org"})
    assert refused.status_code == 400
    assert "You may send 30 invitations a day and 0 are left today: nothing was sent." in refused.text
    assert all_rows(stack.db) == before
    assert len(rows_of_kind(stack.db, MailKind.GAME_INVITE)) == 30


def test_another_players_unlisted_game_is_not_found(stack: Stack) -> None:
    ann = sign_in(stack, ANN, "Ann")
    game = create_game(stack, ann)
    bob = sign_in(stack, "bob@example.org", "Bob")
    missing = proposals_count(stack) + 7
    for path in (f"/games/{game}", f"/games/{missing}"):
        reply = bob.get(path)
        assert reply.status_code == 404 and "Friday night" not in reply.text
    for action in ("join", "invite", "link", "start", "cancel", "leave"):
        for target in (game, missing):
            reply = post_form(bob, stack.app, f"/games/{target}/{action}", {"addresses": "x@example.org"})
            assert reply.status_code == 404, (action, target, reply.status_code)
    assert "1 of 4 seats taken" in ann.get(f"/games/{game}").text


# --- the lobby and joining ----------------------------------------------------------------------------------------


def test_the_lobby_lists_filters_and_joins(stack: Stack) -> None:
    ann = sign_in(stack, ANN, "Ann")
    listed = create_game(stack, ann, seats="3", listed="1", preset="week", title="Listed one")
    create_game(stack, ann, seats="5", listed="1", language="pl", timezone="America/New_York", title="Far one")
    hidden = create_game(stack, ann, title="Hidden one")
    bob = sign_in(stack, "bob@example.org", "Bob")

    page = bob.get("/lobby")
    assert page.status_code == 200
    assert "Listed one" in page.text and "Far one" in page.text and "Hidden one" not in page.text
    assert "1 of 3 seats taken" in page.text and f'href="/games/{listed}"' in page.text
    assert stack.app.test_client().get("/lobby").status_code == 200  # open to anyone
    for query, shows, hides in (
        ("seats=3", "Listed one", "Far one"),
        ("preset=week", "Listed one", "Far one"),
        ("language=pl", "Far one", "Listed one"),
        ("zone=Europe/Berlin&hours=2", "Listed one", "Far one"),
        ("zone=America/Chicago&hours=1", "Far one", "Listed one"),
    ):
        found = bob.get(f"/lobby?{query}")
        assert found.status_code == 200 and shows in found.text and hides not in found.text, query
    for query in ("seats=9", "preset=fast", "language=xx", "zone=Nowhere/Land", "hours=99", "hours=x"):
        assert bob.get(f"/lobby?{query}").status_code == 400, query
        refused = bob.get(f"/api/lobby?{query}")
        assert refused.status_code == 400 and refused.json["ok"] is False, query

    data = stack.app.test_client().get("/api/lobby?seats=3").json
    (item,) = data["games"]
    assert item["id"] == listed and item["title"] == "Listed one" and (item["seats"], item["taken"]) == (3, 1)
    assert item["preset"] == "week" and item["language"] == "en" and item["timezone"] == "Europe/Rome"
    assert item["url"] == f"http://deadmail.test/games/{listed}" and "T" in item["fill_by"]
    assert set(item["estimate"]) == {"days_median", "days_p90"}
    assert "email" not in str(data) and ANN not in str(data)
    assert stack.app.test_client().get("/api/lobby/nothing").json["ok"] is False

    # join a listed game from its page; not listed: 404
    game_page = bob.get(f"/games/{listed}")
    assert game_page.status_code == 200 and ">Join<" in game_page.text
    assert bob.get(f"/games/{hidden}").status_code == 404
    assert post_form(bob, stack.app, f"/games/{hidden}/join").status_code == 404
    joined = post_form(bob, stack.app, f"/games/{listed}/join")
    assert joined.status_code == 303 and joined.headers["Location"].endswith("done=joined")
    page = bob.get(joined.headers["Location"])
    assert "2 of 3 seats taken: Ann, Bob" in page.text and "Give my seat back" in page.text
    # give it back, and join again
    assert post_form(bob, stack.app, f"/games/{listed}/leave").status_code == 303
    assert "1 of 3 seats taken" in bob.get(f"/games/{listed}").text
    assert post_form(bob, stack.app, f"/games/{listed}/join").status_code == 303
    # the creator cannot leave
    refused = post_form(ann, stack.app, f"/games/{listed}/leave")
    assert refused.status_code == 400 and "cancel it instead" in refused.text


def test_the_last_seat_taken_starts_the_game(stack: Stack) -> None:
    """Seats for each member, its creator recorded, TURN mails to seated players only; the hub shows it running."""
    ann = sign_in(stack, ANN, "Ann")
    listed = create_game(stack, ann, seats="3", listed="1")
    bob = sign_in(stack, "bob@example.org", "Bob")
    assert post_form(bob, stack.app, f"/games/{listed}/join").status_code == 303
    cy = sign_in(stack, "cy@example.org", "Cy")
    last = post_form(cy, stack.app, f"/games/{listed}/join")
    assert last.status_code == 303 and last.headers["Location"].endswith("done=started")
    started = cy.get(last.headers["Location"])
    assert "This game has started" in started.text and 'href="/me"' in started.text
    dee = sign_in(stack, "dee@example.org", "Dee")
    full = post_form(dee, stack.app, f"/games/{listed}/join")
    assert full.status_code == 409 and "no longer taking players" in full.text
    members = {player_id(stack, a) for a in (ANN, "bob@example.org", "cy@example.org")}
    creator = player_id(stack, ANN)
    with stack.db.session() as session:
        proposal = session.get(Proposal, listed)
        assert proposal is not None and proposal.game_id is not None
        game = session.get(Game, proposal.game_id)
        assert game is not None and game.creator_id == creator
        seated = {seat.player_id for seat in session.execute(sa.select(Seat).where(Seat.game_id == game.id)).scalars()}
        turns = session.execute(sa.select(Outbox.player_id).where(Outbox.kind == MailKind.TURN)).scalars().all()
    assert seated == members
    assert turns and set(turns) <= members
    # the hub lists it running, with "Manage" for its creator only
    ann_hub = ann.get("/me", follow_redirects=True).text
    assert "Running" in ann_hub and f"/o/games/{game.id}" in ann_hub
    bob_hub = bob.get("/me", follow_redirects=True).text
    assert "Running" in bob_hub and f"/o/games/{game.id}" not in bob_hub


def test_a_full_game_is_a_clear_refusal(stack: Stack) -> None:
    """Between the page and the button the last seat went: the page says so (409)."""
    ann = sign_in(stack, ANN, "Ann")
    game = create_game(stack, ann, seats="3")
    link = shared_link(stack, ann, game)
    bob, cy = sign_in(stack, "bob@example.org"), sign_in(stack, "cy@example.org")
    assert bob.get(link).status_code == 200 and cy.get(link).status_code == 200
    assert post_form(bob, stack.app, link).status_code == 303
    assert post_form(cy, stack.app, link).status_code == 303  # the last seat: it starts
    dee = sign_in(stack, "dee@example.org")
    late = post_form(dee, stack.app, link)
    assert late.status_code == 409 and "no longer taking players" in late.text


def shared_link(stack: Stack, client: FlaskClient, proposal_id: int) -> str:
    page = client.get(f"/games/{proposal_id}").text
    found = re.search(r'value="http://deadmail\.test(/g/[^"]+)"', page)
    assert found is not None
    return found[1]


def test_the_shareable_link(stack: Stack) -> None:
    ann = sign_in(stack, ANN, "Ann")
    game = create_game(stack, ann)
    link = shared_link(stack, ann, game)
    # signed out: the game and an address form; the same answer whatever the address
    stranger = stack.app.test_client()
    page = stranger.get(link)
    assert page.status_code == 200 and "Friday night" in page.text and "Mail me the invitation" in page.text
    add_player(stack.db, "never@example.org", no_invitations=True)
    answers = [
        post_form(stack.app.test_client(), stack.app, f"{link}/ask", {"address": address})
        for address in ("new@example.org", "never@example.org", "new@example.org", ANN)
    ]
    assert {a.status_code for a in answers} == {200}
    assert len({a.text.replace(csrf_in(a.text), "") for a in answers}) == 1
    assert mail_kinds(stack, "new@example.org") == [MailKind.GAME_INVITE]
    assert mail_kinds(stack, "never@example.org") == []
    bad = post_form(stranger, stack.app, f"{link}/ask", {"address": "nope"})
    assert bad.status_code == 400 and "not an e-mail address" in bad.text
    # the invitation asked for is accepted from its mail like any other
    accepted = post_form(
        stranger, stack.app, invitation_links(stack, "new@example.org")[0], {"answer": "accept", "name": "Newt"}
    )
    assert accepted.status_code == 200 and "You have a seat" in accepted.text

    # signed in: Join
    bob = sign_in(stack, "bob@example.org", "Bob")
    assert ">Join<" in bob.get(link).text
    joined = post_form(bob, stack.app, link)
    assert joined.status_code == 303 and joined.headers["Location"].endswith(f"/games/{game}?done=joined")
    assert "3 of 4 seats taken: Ann, Newt, Bob" in bob.get(f"/games/{game}").text
    mine = bob.get(link).text
    assert "You have a seat in this game." in mine and ">Join<" not in mine

    # a new link: the old one opens nothing
    assert post_form(ann, stack.app, f"/games/{game}/link").status_code == 303
    fresh = shared_link(stack, ann, game)
    assert fresh != link
    cy = sign_in(stack, "cy@example.org", "Cy")
    assert cy.get(link).status_code == 403
    assert post_form(cy, stack.app, link).status_code == 403
    assert post_form(stack.app.test_client(), stack.app, f"{link}/ask", {"address": "z@example.org"}).status_code == 403
    assert cy.get(fresh).status_code == 200
    assert post_form(cy, stack.app, fresh).headers["Location"].endswith("done=started")  # the last seat
    assert stack.app.test_client().get(f"/g/{'x' * 40}").status_code == 403


def csrf_in(text: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]*)"', text)
    return found[1] if found else "\x00"


def test_start_with_bots_and_cancel(stack: Stack) -> None:
    ann = sign_in(stack, ANN, "Ann")
    game = create_game(stack, ann, seats="4")
    bob = sign_in(stack, "bob@example.org", "Bob")
    post_form(ann, stack.app, f"/games/{game}/invite", {"addresses": "bob@example.org"})
    post_form(stack.app.test_client(), stack.app, invitation_links(stack, "bob@example.org")[0], {"answer": "accept"})
    assert post_form(bob, stack.app, f"/games/{game}/start").status_code == 404  # only its creator starts it
    started = post_form(ann, stack.app, f"/games/{game}/start")
    assert started.status_code == 303 and started.headers["Location"].endswith("done=started")
    with stack.db.session() as session:
        proposal = session.get(Proposal, game)
        assert proposal is not None and proposal.game_id is not None
        seats = list(session.execute(sa.select(Seat).where(Seat.game_id == proposal.game_id)).scalars())
    assert len(seats) == 4 and sum(seat.player_id is None for seat in seats) == 2
    again = post_form(ann, stack.app, f"/games/{game}/start")
    assert again.status_code == 409 and "no longer taking players" in again.text

    other = create_game(stack, ann, title="To cancel", listed="1")
    cy = sign_in(stack, "cy@example.org", "Cy")
    assert post_form(cy, stack.app, f"/games/{other}/join").status_code == 303
    page = ann.get(f"/games/{other}").text
    assert "Cancel the game" in page and "Yes, cancel the game" in page
    cancelled = post_form(ann, stack.app, f"/games/{other}/cancel")
    assert cancelled.status_code == 303 and cancelled.headers["Location"].endswith("done=cancelled")
    assert "This game was cancelled" in ann.get(cancelled.headers["Location"]).text
    assert mail_kinds(stack, "cy@example.org")[-1] == MailKind.GAME_CANCELLED
    assert MailKind.GAME_CANCELLED not in mail_kinds(stack, ANN)
    assert "To cancel" not in stack.app.test_client().get("/lobby").text


def test_the_hub_and_the_home_page_lead_to_the_lobby(stack: Stack) -> None:
    ann = sign_in(stack, ANN, "Ann")
    hub = ann.get("/me", follow_redirects=True).text
    assert "My games" in hub and 'href="/games/new"' in hub and 'href="/lobby"' in hub
    game = create_game(stack, ann, title="Mine")
    hub = ann.get("/me", follow_redirects=True).text
    assert "Waiting for players" in hub and f'href="/games/{game}"' in hub and "1 of 4 seats taken" in hub
    assert 'href="/lobby"' in stack.app.test_client().get("/").text
