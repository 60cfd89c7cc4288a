"""The server's organiser moderates players' own games (issue 30): a suspended player creates, joins and accepts
nothing; their forming games are cancelled (their players mailed), their seats in running games offered to
substitutes (the games go on); lifting it lets them play again. /o/players: suspend (confirmed first), lift, what was
done, who created what; bad input is refused with nothing changed; only the server's organiser opens it. On both
setups."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from server.db import Database
from server.models import (
    GameStatus,
    Invitation,
    MailKind,
    Player,
    Proposal,
    ProposalInvitation,
    ProposalSeat,
    ProposalStatus,
    Seat,
    utcnow,
)
from server.services.links import game_invite_token
from server.services.lobby import moderation, proposals
from server.services.play import organise
from tests.conftest import Stack
from tests.support import add_player, all_rows, create_tagged, log_in_as_organiser, post_form, rows_of_kind

from .test_creator_powers import created_by, player_id, sign_in

ANN, BOB, CLEO = "ann@example.org", "bob@example.org", "cleo@example.org"
GAME = proposals.NewGame(seats=4, title="Friday", listed=True)


def players(db: Database, *emails: str) -> list[int]:
    for email in emails:
        add_player(db, email)
    return [player_id(db, email) for email in emails]


def status_of(db: Database, proposal_id: int) -> str:
    with db.session() as session:
        proposal = session.get(Proposal, proposal_id)
        assert proposal is not None
        return str(proposal.status)


def invitation_token(stack: Stack, proposal_id: int, who: int) -> str:
    with stack.db.session() as session:
        found = session.execute(
            sa.select(ProposalInvitation.id).where(
                ProposalInvitation.proposal_id == proposal_id, ProposalInvitation.player_id == who
            )
        ).scalar_one()
    return game_invite_token(stack.settings.secret_key, found)


def offers_of(db: Database, game_id: int) -> int:
    """The game's substitutes' invitations (``Invitation`` rows), one per seat offered."""
    with db.session() as session:
        seat_ids = sa.select(Seat.id).where(Seat.game_id == game_id)
        query = sa.select(sa.func.count(Invitation.id)).where(Invitation.seat_id.in_(seat_ids))
        return int(session.execute(query).scalar_one())


# --- the service ---------------------------------------------------------------------------------------------------


def test_a_suspended_player_creates_joins_and_accepts_nothing(stack: Stack) -> None:
    ann, bob, cleo = players(stack.db, ANN, BOB, CLEO)
    listed = proposals.create(stack.db, ann, GAME)
    proposals.invite(stack.db, listed, ann, CLEO)
    moderation.suspend(stack.db, BOB)
    assert moderation.is_suspended(stack.db, bob)
    with pytest.raises(proposals.LobbyError) as caught:
        proposals.create(stack.db, bob, GAME)
    assert caught.value.msgid == proposals.SUSPENDED
    with pytest.raises(proposals.LobbyError) as caught:
        proposals.join(stack.db, listed, bob)
    assert caught.value.msgid == proposals.SUSPENDED

    # an invitation waiting when its player is suspended is declined by the suspension; one accepted by a player
    # suspended since is refused as such
    token = invitation_token(stack, listed, cleo)
    with stack.db.session() as session:
        session.execute(sa.update(Player).where(Player.id == cleo).values(suspended_at=utcnow()))
    with pytest.raises(proposals.LobbyError) as caught:
        proposals.answer(stack.db, stack.settings.secret_key, token, "accept")
    assert caught.value.msgid == proposals.SUSPENDED
    with stack.db.session() as session:  # only its creator's seat
        query = sa.select(ProposalSeat.player_id).where(ProposalSeat.proposal_id == listed)
        assert list(session.execute(query).scalars()) == [ann]


def test_a_suspension_declines_the_invitations_waiting(stack: Stack) -> None:
    ann, bob = players(stack.db, ANN, BOB)
    proposal = proposals.create(stack.db, ann, GAME)
    proposals.invite(stack.db, proposal, ann, BOB)
    moderation.suspend(stack.db, BOB)
    with pytest.raises(proposals.LobbyError):
        proposals.answer(stack.db, stack.settings.secret_key, invitation_token(stack, proposal, bob), "accept")
    with stack.db.session() as session:
        answer = session.execute(sa.select(ProposalInvitation.answer)).scalar_one()
    assert answer == "declined"


def test_their_forming_games_are_cancelled_and_their_players_told(stack: Stack) -> None:
    ann, bob, cleo = players(stack.db, ANN, BOB, CLEO)
    made = proposals.create(stack.db, ann, GAME)
    proposals.join(stack.db, made, bob)
    others = proposals.create(stack.db, cleo, GAME)
    proposals.join(stack.db, others, ann)
    moderation.suspend(stack.db, ANN)
    assert status_of(stack.db, made) == ProposalStatus.CANCELLED
    assert status_of(stack.db, others) == ProposalStatus.FORMING  # cleo's game goes on, without ann's seat
    told = rows_of_kind(stack.db, MailKind.GAME_CANCELLED)
    assert [(row.player_id, row.payload["reason"]) for row in told] == [(bob, "suspended")]
    proposals.join(stack.db, others, bob)
    with stack.db.session() as session:
        query = sa.select(ProposalSeat.player_id).where(ProposalSeat.proposal_id == others)
        assert set(session.execute(query).scalars()) == {cleo, bob}


def test_their_seats_in_running_games_are_offered_and_the_games_go_on(stack: Stack) -> None:
    first = create_tagged(stack.db, 3, seed=7, tag=1).game_id
    second = create_tagged(stack.db, 4, seed=8, tag=1).game_id  # the same people: p0.1 plays both
    done = moderation.suspend(stack.db, "p0.1@example.org")
    assert sorted(game for game, _colour in done.offered) == [first, second]
    assert offers_of(stack.db, first) == offers_of(stack.db, second) == 1
    for game in (first, second):
        assert organise.overview(stack.db, game)["status"] == GameStatus.RUNNING
    again = moderation.suspend(stack.db, "p0.1@example.org")  # suspending again changes nothing
    assert again.offered == () and offers_of(stack.db, first) == 1


def test_lifting_lets_them_play_again(stack: Stack) -> None:
    ann, bob = players(stack.db, ANN, BOB)
    listed = proposals.create(stack.db, ann, GAME)
    moderation.suspend(stack.db, BOB)
    assert moderation.lift(stack.db, BOB) == bob
    assert not moderation.is_suspended(stack.db, bob)
    assert proposals.join(stack.db, listed, bob).proposal_id == listed
    assert proposals.create(stack.db, bob, GAME) > listed


def test_who_created_what(stack: Stack) -> None:
    ann, _bob = players(stack.db, ANN, BOB)
    forming = proposals.create(stack.db, ann, GAME)
    started = proposals.create(stack.db, ann, proposals.NewGame(seats=3, title="Now"))
    game_id = proposals.start(stack.db, started, ann)
    moderation.suspend(stack.db, BOB)
    found = moderation.creators(stack.db)
    assert [(c.email, c.suspended) for c in found] == [(ANN, False)]
    assert found[0].games == ((started, "Now", "started", game_id), (forming, "Friday", "forming", None))


# --- /o/players ------------------------------------------------------------------------------------------------------


def test_the_organiser_suspends_a_player_from_the_page(stack: Stack) -> None:
    ann, bob = players(stack.db, ANN, BOB)
    proposals.create(stack.db, ann, GAME)
    started = proposals.create(stack.db, ann, proposals.NewGame(seats=3, title="Now"))
    game_id = proposals.start(stack.db, started, ann)  # ann and two bots
    log_in_as_organiser(stack.client)
    page = stack.client.get("/o/players")
    assert page.status_code == 200
    assert "Who created what" in page.text and ANN in page.text and "Friday" in page.text
    assert f'href="/o/games/{game_id}"' in page.text

    before = all_rows(stack.db)
    asked = post_form(stack.client, stack.app, "/o/players/suspend", {"address": f" {ANN.upper()} "})
    assert asked.status_code == 200 and "Suspend a player?" in asked.text and "This cannot be undone." in asked.text
    assert 'href="/o/players"' in asked.text
    assert all_rows(stack.db) == before  # asking changes nothing

    done = post_form(stack.client, stack.app, "/o/players/suspend", {"address": ANN, "confirm": "1"})
    assert done.status_code == 200 and f"{ANN} is suspended." in done.text
    assert f'href="/o/games/{game_id}"' in done.text and "offered to substitutes" in done.text
    assert moderation.is_suspended(stack.db, ann) and offers_of(stack.db, game_id) == 1
    assert "suspended" in stack.client.get("/o/players").text

    lifted = post_form(stack.client, stack.app, "/o/players/lift", {"address": ANN})
    assert lifted.status_code == 200 and not moderation.is_suspended(stack.db, ann)
    assert not moderation.is_suspended(stack.db, bob)


@pytest.mark.parametrize(
    ("path", "address", "status"),
    [
        ("/o/players/suspend", "not an address", 400),
        ("/o/players/suspend", "nobody@example.org", 404),
        ("/o/players/lift", "ann@", 400),
        ("/o/players/lift", "nobody@example.org", 404),
    ],
)
def test_bad_input_is_refused_with_nothing_changed(stack: Stack, path: str, address: str, status: int) -> None:
    players(stack.db, ANN)
    log_in_as_organiser(stack.client)
    before = all_rows(stack.db)
    for confirm in ("", "1"):
        refused = post_form(stack.client, stack.app, path, {"address": address, "confirm": confirm})
        assert refused.status_code == status and "Not done:" in refused.text
    assert all_rows(stack.db) == before


def test_only_the_server_organiser_opens_the_page(stack: Stack) -> None:
    (ann,) = players(stack.db, ANN)
    game_id = create_tagged(stack.db, 3, seed=7).game_id
    created_by(stack.db, game_id, ann)  # even a creator
    sign_in(stack.db, stack.client, ann)
    before = all_rows(stack.db)
    page = stack.client.get("/o/players")
    assert page.status_code == 302 and "/o/login" in page.headers["Location"]
    for path in ("/o/players/suspend", "/o/players/lift"):
        refused = post_form(stack.client, stack.app, path, {"address": ANN, "confirm": "1"})
        assert refused.status_code == 401
    assert all_rows(stack.db) == before
