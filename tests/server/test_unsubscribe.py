"""One-click unsubscribe (issue 31, RFC 8058): every mail that does not answer something the reader did carries
``List-Unsubscribe`` with an HTTPS address of its own and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``.
The provider's POST (another client: no cookie, no CSRF token) switches the reader to the digest, with a page to
undo it; a forged, too old or revoked address is a clear 4xx that changes nothing. On both setups."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from server.models import MailKind, Outbox, Player, Seat
from server.services import signin
from server.services.links import unsubscribe_token
from server.services.play import organise
from tests.conftest import Stack
from tests.support import (
    T0,
    add_player,
    all_rows,
    compose,
    create,
    forged,
    mail_settings,
    rows_of_kind,
    stop_signing_clock,
)

ONE_CLICK = {"List-Unsubscribe": "One-Click"}


def _first_turn(stack: Stack) -> tuple[int, str]:
    """A new game's first turn mail to one player: (their id, the mail's one-click unsubscribe path)."""
    created = create(stack.db, 3, seed=5)
    row = rows_of_kind(stack.db, MailKind.TURN)[0]
    message = compose(stack.db, row.id, mail_settings(stack.settings))
    assert message is not None
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = str(message["List-Unsubscribe"])
    assert url.startswith(f"<{stack.settings.base_url}/unsubscribe/") and url.endswith(">")
    assert created.game_id
    return row.player_id, url[1:-1].removeprefix(stack.settings.base_url)


def _mode(stack: Stack, player_id: int) -> str:
    with stack.db.session() as session:
        return session.execute(select(Player.mail_mode).where(Player.id == player_id)).scalar_one()


def test_a_providers_one_click_post_from_another_client_switches_the_reader_to_the_digest(stack: Stack) -> None:
    player_id, path = _first_turn(stack)
    provider = stack.app.test_client()  # no cookie, no CSRF token: the signed address is the proof
    opened = provider.get(path)  # a scanner or a reader opening it: nothing changes
    assert opened.status_code == 200 and _mode(stack, player_id) == "each"
    assert "A digest instead" in opened.text
    done = provider.post(path, data=ONE_CLICK)
    assert done.status_code == 200 and "Location" not in done.headers  # RFC 8058: never a redirect
    assert _mode(stack, player_id) == "digest" and "you get a digest" in done.text
    assert provider.post(path, data=ONE_CLICK).status_code == 200 and _mode(stack, player_id) == "digest"
    # the page undoes it (the player is still in their games: nothing else changed)
    undone = stack.app.test_client().post(path, data={"mode": "each"})
    assert undone.status_code == 200 and _mode(stack, player_id) == "each"
    assert "a mail for every event again" in undone.text
    with stack.db.session() as session:
        assert session.execute(select(Seat.player_id).where(Seat.player_id == player_id)).first() is not None


def test_mails_that_answer_the_readers_own_action_carry_no_unsubscribe(stack: Stack) -> None:
    add_player(stack.db, "ann@example.org")
    signin.ask(stack.db, "ann@example.org", T0)
    (row,) = rows_of_kind(stack.db, MailKind.SIGNIN)
    message = compose(stack.db, row.id, mail_settings(stack.settings), T0)
    assert message is not None
    assert message["List-Unsubscribe"] is None and message["List-Unsubscribe-Post"] is None


def test_a_forged_old_or_revoked_address_is_refused_and_changes_nothing(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    player_id, path = _first_turn(stack)
    token = path.rsplit("/", 1)[1]
    key = stack.settings.secret_key
    before = all_rows(stack.db)
    refused = [
        stack.client.post(f"/unsubscribe/{forged(token)}", data=ONE_CLICK),
        stack.client.post(f"/unsubscribe/{unsubscribe_token('another key', player_id, 1)}", data=ONE_CLICK),
        stack.client.post("/unsubscribe/" + "x" * 600, data=ONE_CLICK),
        stack.client.post(path, data={"mode": "never"}),  # not a mode: the page says so
    ]
    assert [r.status_code for r in refused] == [403, 403, 403, 400]
    assert all_rows(stack.db) == before and _mode(stack, player_id) == "each"

    # too old: a signature made more than 90 days ago
    stop_signing_clock(monkeypatch, T0 - timedelta(days=91))
    old = unsubscribe_token(key, player_id, 1)
    monkeypatch.undo()
    assert stack.client.post(f"/unsubscribe/{old}", data=ONE_CLICK).status_code == 403
    # revoked: the player's links revoked (a seat's links resent with revoke) end the address sent before
    with stack.db.session() as session:
        game_id, colour = session.execute(select(Seat.game_id, Seat.colour).where(Seat.player_id == player_id)).one()
    organise.resend_link(stack.db, game_id, colour, rotate=True)
    assert stack.client.post(path, data=ONE_CLICK).status_code == 403
    assert _mode(stack, player_id) == "each"
    with stack.db.session() as session:  # (the new mail's address works)
        generation = session.execute(select(Player.link_generation).where(Player.id == player_id)).scalar_one()
        assert session.execute(select(Outbox.id).where(Outbox.kind == MailKind.LINK)).first() is not None
    fresh = f"/unsubscribe/{unsubscribe_token(key, player_id, generation)}"
    assert stack.client.post(fresh, data=ONE_CLICK).status_code == 200 and _mode(stack, player_id) == "digest"
