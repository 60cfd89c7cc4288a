"""Games players start themselves (issue 30), the service: a proposal takes seats by invitation (one mail per
address, and nothing else until it accepts), by its shareable link or from the lobby; it starts when full or with
bots, and one not full by its date is cancelled with a mail to those who joined. The day's limits, "never invite me
again" and suspension refuse what they must. On both setups."""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from server.models import Game, GameStatus, MailKind, Outbox, Player, Proposal, ProposalStatus, Seat, utcnow
from server.services import channel, sweeps
from server.services.links import LinkError, game_link_token
from server.services.lobby import moderation, proposals
from server.services.lobby.proposals import LobbyError, NewGame, NotFound
from tests.conftest import Stack
from tests.support import T0, add_player, compose, counting, mail_settings, rows_of_kind, text_of

ANN, BOB, CAT, DAN = "ann@example.org", "bob@example.org", "cat@example.org", "dan@example.org"


def _id(stack: Stack, email: str) -> int:
    with stack.db.session() as session:
        return session.execute(select(Player.id).where(Player.email == email)).scalar_one()


def _people(stack: Stack, *emails: str) -> list[int]:
    for email in emails:
        add_player(stack.db, email)
    return [_id(stack, email) for email in emails]


def _new(stack: Stack, creator: int, seats: int = 4, **fields: Any) -> int:
    return proposals.create(stack.db, creator, NewGame(seats=seats, **fields), T0)


def _kinds(stack: Stack, email: str) -> list[str]:
    """The kinds of every mail written to ``email``."""
    with stack.db.session() as session:
        return list(
            session.execute(
                select(Outbox.kind).join(Player, Player.id == Outbox.player_id).where(Player.email == email)
            ).scalars()
        )


def _token(stack: Stack, email: str) -> str:
    """The invitation link's token of the latest invitation mail to ``email``, read from the mail as its reader
    sees it."""
    rows = [row for row in rows_of_kind(stack.db, MailKind.GAME_INVITE) if row.player_id == _id(stack, email)]
    message = compose(stack.db, rows[-1].id, mail_settings(stack.settings), T0)
    assert message is not None
    (token,) = re.findall(r"http://deadmail\.test/invited/([\w.-]+)", text_of(message))
    return token


def test_an_invited_address_gets_one_mail_and_nothing_else_until_it_accepts_and_the_full_game_starts(
    stack: Stack,
) -> None:
    ann, _bob = _people(stack, ANN, BOB)
    proposal_id = _new(stack, ann, seats=3, title="Friday mall", language="it", timezone="Europe/Rome")
    invited = proposals.invite(stack.db, proposal_id, ann, f"{BOB}, {CAT}\nnot-yet@example.org", T0)
    assert invited.sent == (BOB, CAT, "not-yet@example.org") and invited.skipped == ()
    assert _kinds(stack, BOB) == _kinds(stack, CAT) == [MailKind.GAME_INVITE]

    # the mail: in the table's language for an address nobody named yet, the reader's own for a known player
    with stack.db.session() as session:
        cat = session.execute(select(Player).where(Player.email == CAT)).scalar_one()
        assert cat.language == "it" and cat.display_name == ""
    (row,) = [r for r in rows_of_kind(stack.db, MailKind.GAME_INVITE) if r.player_id == _id(stack, CAT)]
    message = compose(stack.db, row.id, mail_settings(stack.settings), T0)
    assert message is not None
    text = text_of(message)
    assert "Friday mall" in text and "ann" in text and "/invited/" in text
    assert BOB not in text and ANN not in text  # no other address

    assert proposals.answer(stack.db, stack.settings.secret_key, _token(stack, BOB), "accept", now=T0).game_id is None
    with pytest.raises(LobbyError, match="name"):  # an address without a name gives one
        proposals.answer(stack.db, stack.settings.secret_key, _token(stack, CAT), "accept", "", T0)
    cat_token = _token(stack, CAT)
    done = proposals.answer(stack.db, stack.settings.secret_key, cat_token, "accept", "Cat", T0)
    assert done.game_id is not None
    # the same answer again changes nothing; another is refused
    assert proposals.answer(stack.db, stack.settings.secret_key, cat_token, "accept", "", T0) == replace(
        done, again=True
    )
    with pytest.raises(LobbyError, match="answered already"):
        proposals.answer(stack.db, stack.settings.secret_key, cat_token, "decline", now=T0)

    with stack.db.session() as session:
        game = session.get(Game, done.game_id)
        assert game is not None and game.creator_id == ann and game.status == GameStatus.RUNNING
        assert game.title == "Friday mall" and game.tempo["timezone"] == "Europe/Rome"
        seated = set(
            session.execute(
                select(Player.email).join(Seat, Seat.player_id == Player.id).where(Seat.game_id == game.id)
            ).scalars()
        )
        assert seated == {ANN, BOB, CAT}
        proposal = session.get(Proposal, proposal_id)
        assert proposal is not None and proposal.status == ProposalStatus.STARTED and proposal.game_id == game.id
    # the address that never answered got its invitation and nothing of the game
    assert _kinds(stack, "not-yet@example.org") == [MailKind.GAME_INVITE]
    # its invitation mail, not sent yet, is no longer sent: the game does not take players
    (late,) = [
        r for r in rows_of_kind(stack.db, MailKind.GAME_INVITE) if r.player_id == _id(stack, "not-yet@example.org")
    ]
    assert compose(stack.db, late.id, mail_settings(stack.settings), T0) is None


def test_never_invite_me_again_stops_every_invitation_to_the_address(stack: Stack) -> None:
    ann, bob = _people(stack, ANN, BOB)
    first, second = _new(stack, ann), _new(stack, ann)
    proposals.invite(stack.db, first, ann, DAN, T0)
    proposals.invite(stack.db, second, ann, DAN, T0)
    proposals.answer(stack.db, stack.settings.secret_key, _token(stack, DAN), "never", now=T0)
    third = _new(stack, bob)
    assert proposals.invite(stack.db, third, bob, DAN, T0).skipped == ((DAN, proposals.NOT_SENT),)
    assert _kinds(stack, DAN) == [MailKind.GAME_INVITE, MailKind.GAME_INVITE]
    # asking with a shareable link changes nothing either, and says the same
    proposals.ask_seat(
        stack.db, stack.settings.secret_key, game_link_token(stack.settings.secret_key, third, 1), DAN, T0
    )
    assert len(_kinds(stack, DAN)) == 2


def test_the_days_limits_refuse_with_a_clear_message_and_send_nothing(stack: Stack) -> None:
    (ann,) = _people(stack, ANN)
    for _ in range(proposals.OPEN_PER_DAY):
        _new(stack, ann, listed=True)
    with pytest.raises(LobbyError, match="listed 3 open games today"):
        _new(stack, ann, listed=True)
    for _ in range(proposals.GAMES_PER_DAY - proposals.OPEN_PER_DAY):
        last = _new(stack, ann)
    with pytest.raises(LobbyError, match="proposed 5 games today"):
        _new(stack, ann)

    with pytest.raises(LobbyError, match="at most 10 addresses"):
        proposals.invite(stack.db, last, ann, " ".join(f"p{i}@example.org" for i in range(11)), T0)
    with pytest.raises(LobbyError, match="not"):  # one bad address: nothing sent
        proposals.invite(stack.db, last, ann, f"{BOB}, <script>@x", T0)
    assert rows_of_kind(stack.db, MailKind.GAME_INVITE) == []
    for batch in range(3):
        proposals.invite(stack.db, last, ann, " ".join(f"p{batch}{i}@example.org" for i in range(10)), T0)
    with pytest.raises(LobbyError, match="30 invitations a day and 0 are left"):
        proposals.invite(stack.db, last, ann, "one-more@example.org", T0)
    assert len(rows_of_kind(stack.db, MailKind.GAME_INVITE)) == 30


def test_an_address_with_too_many_invitations_waiting_is_not_invited_again(stack: Stack) -> None:
    ann, bob = _people(stack, ANN, BOB)
    for _ in range(proposals.UNANSWERED_PER_ADDRESS):
        proposals.invite(stack.db, _new(stack, ann), ann, DAN, T0)
    more = _new(stack, bob)
    assert proposals.invite(stack.db, more, bob, DAN, T0).skipped == ((DAN, proposals.NOT_SENT),)
    assert proposals.invite(stack.db, more, bob, BOB, T0).skipped == ((BOB, proposals.ALREADY_SEATED),)


def test_only_the_creator_changes_their_game_and_another_id_is_the_same_refusal(stack: Stack) -> None:
    ann, bob = _people(stack, ANN, BOB)
    proposal_id = _new(stack, ann)
    for run in (
        lambda: proposals.invite(stack.db, proposal_id, bob, CAT, T0),
        lambda: proposals.start(stack.db, proposal_id, bob, T0),
        lambda: proposals.cancel(stack.db, proposal_id, bob, T0),
        lambda: proposals.new_link(stack.db, proposal_id, bob),
        lambda: proposals.invite(stack.db, 9999, ann, CAT, T0),
        lambda: proposals.forming(stack.db, proposal_id, bob),  # not listed: not his to see
    ):
        with pytest.raises(NotFound) as refused:
            run()
        assert refused.value.msgid == proposals.NOT_FOUND
    assert _kinds(stack, CAT) == []


def test_the_lobby_lists_open_games_by_filters_and_a_seat_is_taken_from_it(stack: Stack) -> None:
    ann, bob, cat, dan = _people(stack, ANN, BOB, CAT, DAN)
    rome = _new(stack, ann, seats=3, listed=True, language="it", timezone="Europe/Rome", preset="week")
    tokyo = _new(stack, bob, seats=5, listed=True, timezone="Asia/Tokyo")
    _hidden = _new(stack, cat, seats=3)

    def ids(**args: str) -> list[int]:
        return [t.id for t in proposals.open_games(stack.db, proposals.read_filters(args), T0)]

    assert ids() == [rome, tokyo]
    assert ids(seats="3") == [rome] and ids(language="it") == [rome] and ids(preset="week") == [rome]
    assert ids(zone="Europe/Berlin", hours="2") == [rome] and ids(zone="Asia/Seoul", hours="0") == [tokyo]
    for bad in ({"seats": "9"}, {"preset": "warp"}, {"language": "xx"}, {"zone": "Mars/Base"}, {"hours": "99"}):
        with pytest.raises(LobbyError):
            proposals.read_filters(bad)
    (table,) = proposals.open_games(stack.db, proposals.read_filters({"seats": "3"}), T0)
    assert table.creator == "ann" and table.players == ("ann",) and table.days_median is not None

    assert proposals.join(stack.db, rome, dan, T0).game_id is None
    assert proposals.join(stack.db, rome, dan, T0).game_id is None  # again: nothing more
    with pytest.raises(NotFound):  # not listed
        proposals.join(stack.db, _hidden, dan, T0)
    started = proposals.join(stack.db, rome, bob, T0).game_id
    assert started is not None
    with pytest.raises(LobbyError, match="no longer taking players"):
        proposals.join(stack.db, rome, cat, T0)
    assert ids() == [tokyo]


def test_an_invitation_accepted_after_the_last_seat_was_taken_is_refused_clearly(stack: Stack) -> None:
    ann, bob, dan = _people(stack, ANN, BOB, DAN)
    proposal_id = _new(stack, ann, seats=3, listed=True)
    proposals.invite(stack.db, proposal_id, ann, CAT, T0)
    token = _token(stack, CAT)
    proposals.join(stack.db, proposal_id, bob, T0)
    assert proposals.join(stack.db, proposal_id, dan, T0).game_id is not None
    with pytest.raises(LobbyError, match="no longer taking players"):
        proposals.answer(stack.db, stack.settings.secret_key, token, "accept", "Cat", T0)
    assert _kinds(stack, CAT) == [MailKind.GAME_INVITE]  # and no game mail


def test_the_shareable_link_seats_a_player_and_a_new_link_revokes_it(stack: Stack) -> None:
    ann, bob, cat = _people(stack, ANN, BOB, CAT)
    proposal_id = _new(stack, ann)
    key = stack.settings.secret_key
    old = game_link_token(key, proposal_id, 1)
    assert proposals.by_link(stack.db, key, old).id == proposal_id
    proposals.join_by_link(stack.db, key, old, bob, T0)
    assert proposals.new_link(stack.db, proposal_id, ann) == 2
    with pytest.raises(LinkError, match="replaced"):
        proposals.join_by_link(stack.db, key, old, cat, T0)
    with pytest.raises(LinkError):
        proposals.join_by_link(stack.db, key, old[:-3] + "abc", cat, T0)
    proposals.join_by_link(stack.db, key, game_link_token(key, proposal_id, 2), cat, T0)
    assert proposals.forming(stack.db, proposal_id, cat).table.players == ("ann", "bob", "cat")
    # a newcomer gives their address: one invitation mail
    proposals.ask_seat(stack.db, key, game_link_token(key, proposal_id, 2), "new@example.org", T0)
    assert _kinds(stack, "new@example.org") == [MailKind.GAME_INVITE]


def test_the_creator_starts_with_bots_or_cancels_and_those_who_joined_are_told(stack: Stack) -> None:
    ann, bob = _people(stack, ANN, BOB)
    first = _new(stack, ann, seats=5, listed=True)
    proposals.join(stack.db, first, bob, T0)
    game_id = proposals.start(stack.db, first, ann, T0)
    with stack.db.session() as session:
        bots = session.execute(select(func.count(Seat.id)).where(Seat.game_id == game_id, Seat.bot.is_not(None)))
        assert bots.scalar_one() == 3

    second = _new(stack, ann, listed=True)
    proposals.join(stack.db, second, bob, T0)
    proposals.cancel(stack.db, second, ann, T0)
    (row,) = rows_of_kind(stack.db, MailKind.GAME_CANCELLED)
    assert row.player_id == bob
    message = compose(stack.db, row.id, mail_settings(stack.settings), T0)
    assert message is not None and "cancelled" in message["Subject"]


def test_a_game_not_full_by_its_date_is_cancelled_by_the_sweep_with_a_mail_to_each_who_joined(stack: Stack) -> None:
    ann, bob = _people(stack, ANN, BOB)
    proposal_id = _new(stack, ann, listed=True, fill_days=2)
    proposals.join(stack.db, proposal_id, bob, T0)
    assert sweeps.run("proposals", stack.db, T0 + timedelta(days=1), 50, lambda: None, timedelta(days=1)).counts == {
        "cancelled": 0
    }
    batch = sweeps.run("proposals", stack.db, T0 + timedelta(days=2), 50, lambda: None, timedelta(days=1))
    assert batch.counts == {"cancelled": 1} and sweeps.follow("proposals", batch.counts) == ("mail",)
    rows = rows_of_kind(stack.db, MailKind.GAME_CANCELLED)
    assert sorted(row.player_id for row in rows) == sorted([ann, bob])
    message = compose(stack.db, rows[0].id, mail_settings(stack.settings), T0)
    assert message is not None and "not enough players" in message["Subject"]
    with pytest.raises(LobbyError, match="no longer taking players"):
        proposals.join(stack.db, proposal_id, _people(stack, CAT)[0], T0)


def test_a_suspended_player_starts_joins_and_accepts_nothing_and_their_forming_games_are_off(stack: Stack) -> None:
    ann, bob = _people(stack, ANN, BOB)
    mine = _new(stack, ann, listed=True)
    theirs = _new(stack, bob, listed=True)
    proposals.join(stack.db, mine, bob, T0)
    proposals.join(stack.db, theirs, ann, T0)
    proposals.invite(stack.db, theirs, bob, CAT, T0)
    moderation.suspend(stack.db, ANN, T0)
    assert [row.player_id for row in rows_of_kind(stack.db, MailKind.GAME_CANCELLED)] == [bob]
    assert proposals.forming(stack.db, theirs, bob).table.players == ("bob",)
    for run in (
        lambda: _new(stack, ann),
        lambda: proposals.join(stack.db, theirs, ann, T0),
    ):
        with pytest.raises(LobbyError, match="suspended"):
            run()
    assert proposals.invite(stack.db, theirs, bob, ANN, T0).skipped == ((ANN, proposals.NOT_SENT),)
    moderation.lift(stack.db, ANN)
    assert proposals.join(stack.db, theirs, ann, T0).game_id is None


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"seats": "2"}, "3 to 6"),
        ({"seats": "7"}, "3 to 6"),
        ({"seats": "x"}, "3 to 6"),
        ({"seats": "4", "title": "a\x00b"}, "control characters"),
        ({"seats": "4", "title": "a\u202eb"}, "control characters"),
        ({"seats": "4", "title": "a\nb"}, "control characters"),
        ({"seats": "4", "title": "x" * 121}, "too long"),
        ({"seats": "4", "option_turn_order": "chaos"}, "not a choice"),
        ({"seats": "4", "preset": "warp"}, "not a tempo preset"),
        ({"seats": "4", "timezone": "Mars/Base"}, "time zone"),
        ({"seats": "4", "language": "xx"}, "language"),
        ({"seats": "4", "fill_days": "0"}, "1 to 30 days"),
        ({"seats": "4", "fill_days": "31"}, "1 to 30 days"),
    ],
)
def test_bad_settings_are_refused_naming_what_is_wrong(fields: dict[str, str], says: str) -> None:
    with pytest.raises(LobbyError) as refused:
        proposals.read_new_game(fields)
    assert says in str(refused.value.msgid % refused.value.params if refused.value.params else refused.value.msgid)


def test_good_settings_are_read() -> None:
    read = proposals.read_new_game(
        {"seats": "5", "title": " Ann's mall ", "option_turn_order": "strict", "preset": "week", "language": "pl"}
        | {"timezone": "Europe/Warsaw", "listed": "1", "fill_days": "10"}
    )
    assert read == NewGame(5, "Ann's mall", {"turn_order": "strict"}, "week", "pl", "Europe/Warsaw", True, 10, None)


def test_two_players_taking_the_last_seat_at_once_make_one_game(stack: Stack) -> None:
    ann, bob, cat, dan = _people(stack, ANN, BOB, CAT, DAN)
    proposal_id = _new(stack, ann, seats=3, listed=True)
    proposals.join(stack.db, proposal_id, bob, T0)
    outcomes: list[object] = []

    def take(player_id: int) -> None:
        try:
            outcomes.append(proposals.join(stack.db, proposal_id, player_id, T0).game_id)
        except LobbyError as exc:
            outcomes.append(exc.msgid)

    threads = [threading.Thread(target=take, args=(player,)) for player in (cat, dan)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(map(str, outcomes)) == sorted(
        [str(next(o for o in outcomes if isinstance(o, int))), proposals.NOT_FORMING]
    )
    with stack.db.session() as session:
        assert session.execute(select(func.count(Game.id))).scalar_one() == 1


def test_a_creators_webhook_address_is_checked_when_proposed_and_becomes_the_games_channel(stack: Stack) -> None:
    (ann,) = _people(stack, ANN)
    with pytest.raises(LobbyError):  # a private address, refused unless the server allows them
        proposals.read_new_game({"seats": "3", "webhook_url": "http://10.0.0.1/hook"})
    new = proposals.read_new_game({"seats": "3", "webhook_url": "http://127.0.0.1:9/hook"}, allow_private=True)
    proposal_id = proposals.create(stack.db, ann, new, T0)
    game_id = proposals.start(stack.db, proposal_id, ann, T0)
    with stack.db.session() as session:
        shown = channel.game_channel(session, game_id)
        assert shown is not None and shown.url == "http://127.0.0.1:9/hook"


def test_the_lobby_reads_the_same_statements_whatever_the_number_of_games(stack: Stack) -> None:
    """Guarded: a page of 100 games must not cost a query per game (its players' names are read together)."""
    creators = _people(stack, *(f"creator{i}@example.org" for i in range(6)))
    joiner = _people(stack, DAN)[0]

    def lobby_costs() -> tuple[int, int]:
        costs = []
        for path in ("/lobby", "/api/lobby"):
            with counting(stack.web_db) as counted:
                assert stack.client.get(path).status_code == 200
            costs.append(counted.statements)
        return costs[0], costs[1]

    first = proposals.create(stack.db, creators[0], NewGame(seats=4, listed=True), utcnow())
    proposals.join(stack.db, first, joiner, utcnow())
    few = lobby_costs()
    for creator in creators:
        for _ in range(2):
            made = proposals.create(stack.db, creator, NewGame(seats=5, listed=True), utcnow())
            proposals.join(stack.db, made, joiner, utcnow())
    assert len(proposals.open_games(stack.db, proposals.Filters(), utcnow())) == 13
    assert lobby_costs() == few


def test_asking_with_the_shareable_link_is_capped_per_game_and_not_counted_as_the_creators(stack: Stack) -> None:
    (ann,) = _people(stack, ANN)
    proposal_id = _new(stack, ann)
    token = game_link_token(stack.settings.secret_key, proposal_id, 1)
    for i in range(proposals.ASKS_PER_DAY):
        proposals.ask_seat(stack.db, stack.settings.secret_key, token, f"asker{i}@example.org", T0)
    with pytest.raises(LobbyError, match="used for many invitations today"):
        proposals.ask_seat(stack.db, stack.settings.secret_key, token, "one-more@example.org", T0)
    assert len(rows_of_kind(stack.db, MailKind.GAME_INVITE)) == proposals.ASKS_PER_DAY
    # the creator's own invitations are still all theirs
    assert (
        len(proposals.invite(stack.db, proposal_id, ann, " ".join(f"f{i}@example.org" for i in range(10)), T0).sent)
        == 10
    )


def test_a_player_nobody_named_gives_a_name_to_take_a_seat_never_their_address(stack: Stack) -> None:
    ann, bob = _people(stack, ANN, BOB)
    proposal_id = _new(stack, ann, seats=3, listed=True)
    proposals.invite(stack.db, _new(stack, bob), bob, "secret.local.part@example.org", T0)  # a row, no name
    unnamed = _id(stack, "secret.local.part@example.org")
    assert not proposals.named(stack.db, unnamed)
    with pytest.raises(LobbyError, match="name"):
        proposals.join(stack.db, proposal_id, unnamed, T0)
    proposals.join(stack.db, proposal_id, unnamed, T0, name="Sam")
    game_id = proposals.join(stack.db, proposal_id, bob, T0).game_id
    with stack.db.session() as session:
        names = set(
            session.execute(
                select(Player.display_name).join(Seat, Seat.player_id == Player.id).where(Seat.game_id == game_id)
            ).scalars()
        )
    assert names == {"ann", "bob", "Sam"}


def test_proposals_at_once_are_counted_one_after_the_other(stack: Stack) -> None:
    (ann,) = _people(stack, ANN)
    made: list[object] = []

    def propose() -> None:
        try:
            made.append(_new(stack, ann, listed=True))
        except LobbyError as exc:
            made.append(exc.msgid)

    threads = [threading.Thread(target=propose) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(isinstance(m, int) for m in made) == proposals.OPEN_PER_DAY
    assert made.count(proposals.TOO_MANY_OPEN) == 6 - proposals.OPEN_PER_DAY
