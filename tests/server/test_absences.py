"""Absences: declared on the preferences page, by a reply command (AWAY / BACK, in three languages) or in
the API; each game's option decides what they do (the autopilot answers, or the deadlines wait within a budget)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

from engine.bots import RandomBot
from server.db import Database
from server.mail import replies
from server.models import Absence, Game, MailKind, RequestRow, Seat
from server.services import inputs
from server.services.attendance import absences
from server.services.links import player_token, seat_token
from server.services.mailflow import reply_address
from server.services.play import autopilot, games, turns
from server.services.play.seats import rotate_link
from server.services.tempo import zone
from server.text import away
from tests.conftest import Stack
from tests.server.test_api_cli import cli_env, run
from tests.support import (
    REPLY_DOMAIN,
    T0,
    all_rows,
    api_game,
    compose,
    create,
    create_tagged,
    engine_of,
    letter,
    log_in_as_organiser,
    mail_settings,
    open_window,
    outbox_ids,
    play_window,
    player_of,
    post_form,
    rows_of,
    seat_ids,
    seat_of,
    text_of,
)

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def owing(db: Database, game_id: int) -> list[int]:
    """The seats owing an unanswered request in the open window."""
    window = open_window(db, game_id)
    assert window is not None
    return [row.seat_id for row in window.requests if row.answered_at is None]


def public_owing(db: Database, game_id: int) -> list[int]:
    window = open_window(db, game_id)
    assert window is not None
    return [r.seat_id for r in window.requests if r.answered_at is None and not r.secret]


def answer_the_others(db: Database, game_id: int, away_seat: int, now: datetime, seed: int = 5) -> bool:
    """Everyone but ``away_seat`` answers what they owe (random bot): True when the window completed."""
    window = open_window(db, game_id)
    assert window is not None
    eng = engine_of(db, game_id)
    complete = window.completed_at is not None
    for row in window.requests:
        if row.answered_at is None and row.seat_id != away_seat and not complete:
            req = next(r for r in eng.pending() if r.player == row.seat.colour)
            value = RandomBot(seed + window.number).decide(eng, req)
            complete = turns.submit_answer(
                db, row.seat_id, row.kind, value, window_number=window.number, now=now
            ).complete
    return complete


def rows_of_seat(db: Database, seat_id: int) -> list[RequestRow]:
    with db.session() as session:
        rows = list(session.execute(sa.select(RequestRow).where(RequestRow.seat_id == seat_id)).scalars())
        for row in rows:
            session.expunge(row)
        return rows


def deadline(db: Database, game_id: int) -> datetime:
    window = open_window(db, game_id)
    assert window is not None
    return window.deadline


def a_game(db: Database, seed: int = 3, **options: Any) -> tuple[int, int, int]:
    """A game of three people whose first window asks a person publicly: (game, that seat, its player)."""
    created = create(db, 3, seed=seed, absences=games.absence_options({"autopilot_after": 0, **options}))
    seat = public_owing(db, created.game_id)[0]
    return created.game_id, seat, player_of(db, seat).id


# --- autopilot ----------------------------------------------------------------------------------------------------


def test_away_on_autopilot_answers_at_once_and_the_table_does_not_wait(stack: Stack) -> None:
    db = stack.db
    game_id, seat, player = a_game(db)
    now = T0 + HOUR
    absences.declare(db, player, T0 - DAY, T0 + 2 * DAY, now=now)  # started yesterday: clipped to now
    with db.session() as session:
        absence = session.execute(sa.select(Absence)).scalar_one()
        assert absence.starts_at == now and absence.ends_at == T0 + 2 * DAY
    mine = rows_of_seat(db, seat)
    assert len(mine) == 1 and mine[0].answered_at == now and mine[0].autopilot and not mine[0].standing
    # the next windows: the away player's requests are answered when they open, the others' answers close them
    asked_while_away = 0
    for _ in range(12):
        window = open_window(db, game_id)
        assert window is not None
        mine = [r for r in window.requests if r.seat_id == seat]
        assert all(r.answered_at is not None and r.autopilot for r in mine)
        asked_while_away += len(mine)
        answer_the_others(db, game_id, seat, now)
        done = open_window(db, game_id)
        assert done is not None and done.completed_at is not None and done.completed_at <= now < done.deadline
        assert turns.advance_window(db, done.id, now=now)
    assert asked_while_away > 1
    # it ends by itself: after its end, the player is asked again
    later = T0 + 2 * DAY + HOUR
    for _ in range(30):
        play_window(db, game_id, 11, later)
        if seat in owing(db, game_id):
            break
    else:
        raise AssertionError("the seat was never asked again")
    window = open_window(db, game_id)
    assert window is not None and window.completed_at is None
    assert absences.listed(db, player, later) == []


def test_an_absence_that_begins_while_a_window_is_open_is_applied_by_the_sweep(stack: Stack) -> None:
    db = stack.db
    game_id, seat, player = a_game(db)
    absences.declare(db, player, T0 + 2 * HOUR, T0 + DAY, now=T0)  # to come: nothing changes yet
    assert rows_of_seat(db, seat)[0].answered_at is None
    assert absences.apply_started(db, T0 + HOUR) == 0
    assert absences.apply_started(db, T0 + 3 * HOUR) == 1
    assert rows_of_seat(db, seat)[0].autopilot
    assert absences.apply_started(db, T0 + 4 * HOUR) == 0  # idempotent
    assert open_window(db, game_id) is not None


def test_the_sweep_applies_a_begun_absence_once_and_again_after_a_failure(
    stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each absence is applied once, when it has begun (``Absence.applied``), so a pass reads only the
    absences still to apply; one whose application failed stays unapplied and is applied at the next pass."""
    db = stack.db
    _game_id, seat, player = a_game(db)
    absences.declare(db, player, T0 + 2 * HOUR, T0 + DAY, now=T0)
    apply = absences._apply

    def failing(*args: Any) -> int:
        raise sa.exc.OperationalError("UPDATE", {}, Exception("the database went away"))

    monkeypatch.setattr(absences, "_apply", failing)
    assert absences.apply_started(db, T0 + 3 * HOUR) == 0
    assert rows_of_seat(db, seat)[0].answered_at is None
    with db.session() as session:
        assert session.execute(sa.select(Absence.applied)).scalar_one() is False
    calls: list[int] = []
    monkeypatch.setattr(absences, "_apply", lambda *args: calls.append(args[1]) or apply(*args))
    assert absences.apply_started(db, T0 + 3 * HOUR + timedelta(minutes=1)) == 1
    assert rows_of_seat(db, seat)[0].autopilot
    assert absences.apply_started(db, T0 + 4 * HOUR) == 0
    assert calls == [player]  # once: the pass after it reads nothing


# --- extend -------------------------------------------------------------------------------------------------------


def test_away_in_an_extending_game_moves_the_deadline_to_the_end_of_the_absence(stack: Stack) -> None:
    db = stack.db
    game_id, seat, player = a_game(db, absence="extend")
    before = deadline(db, game_id)
    assert before == T0 + DAY
    absences.declare(db, player, T0, T0 + 2 * DAY, now=T0 + HOUR)
    assert deadline(db, game_id) == T0 + 2 * DAY
    assert seat_of(db, seat).extended == int(DAY.total_seconds())
    assert rows_of_seat(db, seat)[0].answered_at is None  # nobody answers for them: the deadline waits


def test_the_budget_cannot_be_exceeded_by_two_absences(stack: Stack) -> None:
    db = stack.db
    game_id, seat, player = a_game(db, absence="extend", absence_budget="1d")
    assert games.absence_options({"absence_budget": "1d"}) == {"absence_budget": 86400}
    first = absences.declare(db, player, T0, T0 + 36 * HOUR, now=T0 + HOUR)
    assert deadline(db, game_id) == T0 + 36 * HOUR
    assert seat_of(db, seat).extended == 12 * 3600
    absences.cancel(db, player, first, now=T0 + 2 * HOUR)  # under way: it ends now
    absences.declare(db, player, T0, T0 + 5 * DAY, now=T0 + 3 * HOUR)
    assert deadline(db, game_id) == T0 + 48 * HOUR  # 12 hours left of the budget, not 5 days
    assert seat_of(db, seat).extended == 24 * 3600
    assert autopilot.back(db, seat, now=T0 + 4 * HOUR) is False  # the absence ends now
    absences.declare(db, player, T0, T0 + 10 * DAY, now=T0 + 5 * HOUR)
    assert deadline(db, game_id) == T0 + 48 * HOUR  # the budget is spent
    assert seat_of(db, seat).extended == 24 * 3600


def test_a_seat_answered_at_once_spends_no_budget_and_makes_nobody_wait(stack: Stack) -> None:
    """Away in a game that extends deadlines, but on autopilot (missed deadlines): its requests are answered when
    they open, so no window waits for the end of its absence and its budget stays whole."""
    db = stack.db
    game_id, seat, player = a_game(db, absence="extend")
    with db.session() as session:
        session.execute(sa.update(Seat).where(Seat.id == seat).values(autopilot_at=T0))
    absences.declare(db, player, T0 + 2 * HOUR, T0 + 5 * DAY, now=T0 + HOUR)
    now = T0 + 3 * HOUR
    asked = 0
    for _ in range(12):
        window = open_window(db, game_id)
        assert window is not None
        mine = [r for r in window.requests if r.seat_id == seat and not r.secret]
        if mine and window.opened_at >= now:
            asked += 1
            assert mine[0].autopilot and window.deadline <= window.opened_at + DAY
        answer_the_others(db, game_id, seat, now)
        assert turns.advance_window(db, window.id, now=max(now, open_window(db, game_id).deadline))  # type: ignore[union-attr]
        now += HOUR
    assert asked >= 1
    assert seat_of(db, seat).extended == 0


@pytest.mark.parametrize("mode", ["extend", "autopilot"])
def test_a_window_asked_in_secret_is_neither_extended_nor_answered_B_INFO(stack: Stack, mode: str) -> None:
    """Answered or extended the moment the table sees "away", a card window would tell who was asked in it."""
    db = stack.db
    for seed in range(1, 40):
        created = create(db, 3, seed=seed, absences={"autopilot_after": 0, "absence": mode})
        for _ in range(40):
            window = open_window(db, created.game_id)
            if window is None:
                break
            secret = [r for r in window.requests if r.answered_at is None and r.secret]
            if secret:
                seat = secret[0].seat_id
                player = player_of(db, seat).id
                before = all_rows(db)
                absences.declare(db, player, T0, T0 + 3 * DAY, now=T0)
                assert deadline(db, created.game_id) == window.deadline
                assert seat_of(db, seat).extended == 0
                after = all_rows(db)
                assert len(after["absences"]) == len(before["absences"]) + 1
                assert after["windows"] == before["windows"] and after["seats"] == before["seats"]
                assert after["requests"] == before["requests"]
                assert absences.apply_started(db, T0 + HOUR) == 0  # nor by the sweep
                assert all_rows(db)["requests"] == before["requests"]
                return
            play_window(db, created.game_id, seed, T0)
    raise AssertionError("no window asked in secret was found")


# --- bad input ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("starts", "ends", "message"),
    [
        (T0 - 3 * DAY, T0 - DAY, "already over"),
        (T0 + 3 * DAY, T0 + DAY, "must end after it starts"),
        (T0 + DAY, T0 + DAY, "must end after it starts"),
        (T0 + DAY, T0 + 62 * DAY, "at most 60 days"),
        (T0 + 2 * DAY, T0 + 4 * DAY, "overlaps"),
        (T0 - DAY, T0 + 3 * DAY + HOUR, "overlaps"),
    ],
)
def test_bad_absences_are_refused_with_nothing_changed(
    stack: Stack, starts: datetime, ends: datetime, message: str
) -> None:
    db = stack.db
    _game_id, _seat, player = a_game(db)
    absences.declare(db, player, T0 + 3 * DAY, T0 + 5 * DAY, now=T0)
    before = all_rows(db)
    with pytest.raises(absences.AbsenceError, match=message):
        absences.declare(db, player, starts, ends, now=T0)
    assert all_rows(db) == before


def test_only_ones_own_absences_to_come_can_be_removed(stack: Stack) -> None:
    db = stack.db
    game_id, seat, player = a_game(db)
    other = player_of(db, next(s for s in seat_ids(db, game_id).values() if s != seat)).id
    theirs = absences.declare(db, other, T0 + DAY, T0 + 2 * DAY, now=T0)
    mine = absences.declare(db, player, T0 + DAY, T0 + 2 * DAY, now=T0)
    before = all_rows(db)
    for who, which, at in ((player, theirs, T0), (player, 9999, T0), (player, mine, T0 + 3 * DAY)):
        with pytest.raises(absences.AbsenceError, match="no such absence"):
            absences.cancel(db, who, which, now=at)
    assert all_rows(db) == before
    absences.cancel(db, player, mine, now=T0)
    assert [a["id"] for a in absences.listed(db, player, T0)] == []
    assert [a["id"] for a in absences.listed(db, other, T0)] == [theirs]


# --- the date parser ----------------------------------------------------------------------------------------------

NOW = datetime(2026, 11, 24, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("line", "language", "first", "last"),
    [
        ("AWAY 3 DEC - 6 DEC", "en", date(2026, 12, 3), date(2026, 12, 6)),
        ("away from 3rd December to 6th December", "en", date(2026, 12, 3), date(2026, 12, 6)),
        ("AWAY DEC 3 - 6", "en", date(2026, 12, 3), date(2026, 12, 6)),
        ("AWAY 3-6 DEC", "en", date(2026, 12, 3), date(2026, 12, 6)),
        ("AWAY 2026-12-03 – 2026-12-06", "en", date(2026, 12, 3), date(2026, 12, 6)),
        ("AWAY 1 NOV - 2 NOV", "en", date(2027, 11, 1), date(2027, 11, 2)),  # the next one not in the past
        ("AWAY 24 NOV", "en", date(2026, 11, 24), date(2026, 11, 24)),  # today is not past
        ("AWAY 28 DEC - 3 JAN", "en", date(2026, 12, 28), date(2027, 1, 3)),
        ("AWAY 28 DEC - 3 JAN 2028", "en", date(2027, 12, 28), date(2028, 1, 3)),
        ("ASSENTE dal 3 dic al 6 dicembre", "it", date(2026, 12, 3), date(2026, 12, 6)),
        ("assente 3 DICEMBRE 2026 - 6 DICEMBRE 2026", "it", date(2026, 12, 3), date(2026, 12, 6)),
        ("ASSENTE 3 DEC - 6 DEC", "it", date(2026, 12, 3), date(2026, 12, 6)),  # English everywhere
        ("NIEOBECNY 3 GRU - 6 GRU", "pl", date(2026, 12, 3), date(2026, 12, 6)),
        ("nieobecna od 28 grudnia do 3 stycznia", "pl", date(2026, 12, 28), date(2027, 1, 3)),
        ("Nieobecny 1 październik - 2 paź", "pl", date(2027, 10, 1), date(2027, 10, 2)),
        ("AWAY 2026-12-03 - 6", "en", date(2026, 12, 3), date(2026, 12, 6)),  # the month of the ISO date
        ("AWAY 3 - 2026-12-06", "en", date(2026, 12, 3), date(2026, 12, 6)),
        ("AWAY 20 NOV - 26 NOV", "en", date(2026, 11, 20), date(2026, 11, 26)),  # under way: this year's, not next
    ],
)
def test_absence_commands_read_days_in_the_players_zone(line: str, language: str, first: date, last: date) -> None:
    span = away.parse_away(line, language, "Europe/Warsaw", NOW)
    assert span == absences.between(first, last, "Europe/Warsaw")
    assert span[0].astimezone(zone("Europe/Warsaw")).hour == 0
    assert span[1] - span[0] == (last - first + timedelta(days=1))  # no change of clocks in these weeks


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("AWAY soon", "write the first and the last day"),
        ("AWAY 3 DEC - tomorrow", "write the first and the last day"),
        ("AWAY 31 FEB", "is not a day of the calendar"),
        ("AWAY 2026-13-01", "is not a day of the calendar"),
        ("AWAY", "write the first and the last day"),
    ],
)
def test_unreadable_dates_are_refused(line: str, message: str) -> None:
    with pytest.raises(away.DatesError, match=message):
        away.parse_away(line, "en", "UTC", NOW)


@pytest.mark.parametrize("line", ["AWAY 9999-12-31", "AWAY 0001-01-01", "AWAY 1 JAN 9999 - 2 JAN 9999"])
def test_dates_at_the_ends_of_the_calendar_are_refused(line: str) -> None:
    with pytest.raises(inputs.InputError, match="AWAY is out of range"):
        away.parse_away(line, "en", "Asia/Tokyo", NOW)


def test_back_and_other_lines() -> None:
    assert away.is_back("Back!\n\n> On Monday Dead Mail wrote:\n> VOTE RED", "en")
    assert away.is_back("Sono tornata", "it") and away.is_back("tornato", "it") and away.is_back("BACK", "it")
    assert away.is_back("wracam", "pl") and away.is_back("Jestem", "pl")
    assert not away.is_back("back soon", "en") and not away.is_back("VOTE RED", "en")
    assert away.read_away("VOTE RED", "en", "UTC", NOW) is None
    assert away.read_away("JESTEM", "pl", "UTC", NOW) is None


# --- replies by mail ----------------------------------------------------------------------------------------------


def reply_setup(stack: Stack, language: str, seed: int = 9) -> tuple[int, int, str, str]:
    """A game whose player 0 speaks ``language`` (zone Europe/Rome): (game, their seat, their address, reply-to)."""
    created = create_tagged(
        stack.db, 3, seed=seed, prefs={0: {"language": language, "timezone": "Europe/Rome"}}, absences={}
    )
    seats = seat_ids(stack.db, created.game_id)
    seat = next(s for s in seats.values() if player_of(stack.db, s).language == language)
    window = open_window(stack.db, created.game_id)
    assert window is not None
    settings = mail_settings(stack.settings)
    address = reply_address.make(settings.secret_key, REPLY_DOMAIN, seat, window.number, 1)
    return created.game_id, seat, player_of(stack.db, seat).email, address


def last_reply(stack: Stack) -> Any:
    reply = [r for r in rows_of(stack.db, outbox_ids(stack.db)) if r.kind == MailKind.REPLY]
    return reply[-1]


@pytest.mark.parametrize(
    ("language", "away_line", "back_line", "said_away", "said_back"),
    [
        ("en", "AWAY 3 DEC - 6 DEC", "BACK", "you are away from", "welcome back"),
        ("it", "ASSENTE 3 DIC - 6 DIC", "SONO TORNATO", "sei assente da", "bentornato"),
        ("pl", "NIEOBECNY 3 GRU - 6 GRU", "WRACAM", "jesteś nieobecny od", "witaj z powrotem"),
    ],
)
def test_away_and_back_by_reply(
    stack: Stack, language: str, away_line: str, back_line: str, said_away: str, said_back: str
) -> None:
    db = stack.db
    settings = mail_settings(stack.settings)
    _game_id, seat, email, address = reply_setup(stack, language)
    player = player_of(db, seat).id
    now = datetime(2031, 11, 24, 10, tzinfo=UTC)
    received = replies.receive(db, settings, letter(email, address, away_line + "\n\n> quoted"), [address], now)
    assert received.status == "applied"
    listed = absences.listed(db, player, now)
    first, last = date(2031, 12, 3), date(2031, 12, 6)
    assert [(a["from"], a["to"]) for a in listed] == [absences.between(first, last, "Europe/Rome")]
    row = last_reply(stack)
    assert row.payload["result"] == "away"
    mail = compose(db, row.id, settings, now=now)
    assert mail is not None
    text = text_of(mail)
    assert said_away in text.lower(), text
    days = {"en": ("3 December 2031", "6 December 2031"), "it": ("3 dicembre 2031", "6 dicembre 2031")}
    days["pl"] = ("3 grudnia 2031", "6 grudnia 2031")
    assert all(day in text for day in days[language]), text  # the last day, not the midnight after it
    assert "7 " not in text.split(said_away)[1].split(".")[0]
    # the same command again: refused (it overlaps), the mail says why, nothing changed
    before = all_rows(db)["absences"]
    again = replies.receive(db, settings, letter(email, address, away_line), [address], now)
    assert again.status == "error" and all_rows(db)["absences"] == before
    row = last_reply(stack)
    assert row.payload["result"] == "refused"
    mail = compose(db, row.id, settings, now=now)
    assert mail is not None and away_line in text_of(mail)
    # back during the absence: it ends now
    during = datetime(2031, 12, 4, 10, tzinfo=UTC)
    back = replies.receive(db, settings, letter(email, address, back_line), [address], during)
    assert back.status == "applied"
    assert absences.listed(db, player, during) == []
    row = last_reply(stack)
    assert row.payload["result"] == "back"
    mail = compose(db, row.id, settings, now=during)
    assert mail is not None and said_back in text_of(mail).lower(), text_of(mail)
    # back again: neither on autopilot nor away, refused with the reason
    before_all = all_rows(db)
    refused = replies.receive(db, settings, letter(email, address, back_line), [address], during)
    assert refused.status == "error"
    after_all = all_rows(db)
    assert {k: v for k, v in after_all.items() if k not in ("inbound_mail", "outbox")} == {
        k: v for k, v in before_all.items() if k not in ("inbound_mail", "outbox")
    }
    row = last_reply(stack)
    assert row.payload["result"] == "refused"
    assert row.payload["refusal"]["msgid"] == autopilot.NOT_AWAY


def test_garbage_dates_by_reply_are_refused_and_told(stack: Stack) -> None:
    db = stack.db
    settings = mail_settings(stack.settings)
    _game_id, _seat, email, address = reply_setup(stack, "it")
    before = all_rows(db)["absences"]
    received = replies.receive(db, settings, letter(email, address, "ASSENTE prima o poi"), [address], T0)
    assert received.status == "error"
    assert all_rows(db)["absences"] == before
    row = last_reply(stack)
    assert row.payload["result"] == "refused"
    mail = compose(db, row.id, settings, now=T0)
    assert mail is not None
    text = text_of(mail)
    assert "ASSENTE 3 DIC - 6 DIC" in text and "Non è stato cambiato nulla" in text, text


def test_back_from_a_revoked_reply_address_changes_nothing(stack: Stack) -> None:
    db = stack.db
    settings = mail_settings(stack.settings)
    game_id, seat, email, address = reply_setup(stack, "en")
    player = player_of(db, seat).id
    absences.declare(db, player, T0, T0 + DAY, now=T0)
    rotate_link(db, game_id, seat_of(db, seat).colour)
    before = all_rows(db)
    received = replies.receive(db, settings, letter(email, address, "BACK"), [address], T0 + HOUR)
    assert received.status == "forged"
    after = all_rows(db)
    assert after["absences"] == before["absences"] and after["seats"] == before["seats"]
    assert after["outbox"] == before["outbox"]  # not answered


# --- the preferences page and the API -----------------------------------------------------------------------------


def test_the_preferences_page_lists_adds_and_removes_absences(stack: Stack) -> None:
    db = stack.web_db
    game = api_game(stack.client, ["Ann <ann@example.org>", "Bob <bob@example.org>", "bot"])
    colour = next(iter(game.tokens))
    player = player_of(db, seat_ids(db, game.id)[colour])
    token = player_token(stack.settings.secret_key, player.id, 1)
    page = stack.client.get(f"/p/{token}").get_data(as_text=True)
    assert "Absences" in page and "No absence declared." in page
    year = datetime.now(UTC).year + 1
    added = post_form(stack.client, stack.app, f"/p/{token}/absences", {"from": f"{year}-12-03", "to": f"{year}-12-06"})
    assert added.status_code == 303
    page = stack.client.get(added.headers["Location"]).get_data(as_text=True)
    assert "Your absence is saved." in page
    assert f"Thursday, 3 December {year}" in page or f"3 December {year}" in page
    assert f"6 December {year}" in page
    listed = absences.listed(db, player.id, datetime.now(UTC))
    assert len(listed) == 1
    before = all_rows(db)
    for values, message in (
        ({"from": f"{year}-12-05", "to": f"{year}-12-09"}, "overlaps"),
        ({"from": f"{year}-12-09", "to": f"{year}-12-08"}, "must end after it starts"),
        ({"from": "soon", "to": f"{year}-12-08"}, "is not a date"),
        ({"from": f"{year - 3}-12-01", "to": f"{year - 3}-12-08"}, "already over"),
    ):
        refused = post_form(stack.client, stack.app, f"/p/{token}/absences", values)
        assert refused.status_code == 422
        assert message in refused.get_data(as_text=True)
    assert all_rows(db) == before
    unsigned = stack.client.post(f"/p/{token}/absences", data={"from": f"{year}-12-20", "to": f"{year}-12-21"})
    assert unsigned.status_code == 400 and all_rows(db) == before
    removed = post_form(stack.client, stack.app, f"/p/{token}/absences/{listed[0]['id']}/remove")
    assert removed.status_code == 303
    assert absences.listed(db, player.id, datetime.now(UTC)) == []
    again = post_form(stack.client, stack.app, f"/p/{token}/absences/{listed[0]['id']}/remove")
    assert again.status_code == 422 and "no such absence" in again.get_data(as_text=True)


def test_the_api_lists_adds_removes_absences_and_says_back(stack: Stack) -> None:
    db = stack.web_db
    game = api_game(stack.client, ["Ann <ann@example.org>", "Bob <bob@example.org>", "bot"], absence="extend")
    colour, token = next(iter(game.tokens.items()))
    year = datetime.now(UTC).year + 1
    assert stack.client.get(f"/api/seat/{token}/absences").get_json() == {
        "ok": True,
        "timezone": "UTC",
        "absences": [],
    }
    made = stack.client.post(f"/api/seat/{token}/absences", json={"from": f"{year}-12-03", "to": f"{year}-12-06"})
    assert made.status_code == 201, made.get_json()
    absence = made.get_json()["absence"]
    assert absence["from"] == f"{year}-12-03T00:00:00+00:00" and absence["to"] == f"{year}-12-07T00:00:00+00:00"
    text = stack.client.post(f"/api/seat/{token}/absences", json={"text": f"AWAY 20 DEC {year} - 22 DEC {year}"})
    assert text.status_code == 201
    bare = stack.client.post(f"/api/seat/{token}/absences", json={"text": f"24 DEC {year}"})
    assert bare.status_code == 201
    listed = stack.client.get(f"/api/seat/{token}/absences").get_json()["absences"]
    assert [a["from"][:10] for a in listed] == [f"{year}-12-03", f"{year}-12-20", f"{year}-12-24"]
    before = all_rows(db)
    for body in (
        {"from": f"{year}-12-05", "to": f"{year}-12-09"},
        {"text": "AWAY whenever"},
        {"text": f"AWAY 1 JAN {year} - 5 MAR {year}"},
        {"from": "x"},
        [1, 2],
    ):
        refused = stack.client.post(f"/api/seat/{token}/absences", json=body)
        assert refused.status_code == 400, body
        assert refused.get_json()["ok"] is False
    assert stack.client.delete(f"/api/seat/{token}/absences/99999").status_code == 404
    assert all_rows(db) == before
    assert stack.client.delete(f"/api/seat/{token}/absences/{listed[0]['id']}").get_json() == {"ok": True}
    # back while neither on autopilot nor away: refused
    assert stack.client.post(f"/api/seat/{token}/back").status_code == 409
    # away now: back ends it
    seat = seat_ids(db, game.id)[colour]
    absences.declare(db, player_of(db, seat).id, datetime.now(UTC), datetime.now(UTC) + DAY)
    back = stack.client.post(f"/api/seat/{token}/back")
    assert back.status_code == 200 and back.get_json() == {"ok": True, "autopilot_was_on": False}
    assert len(stack.client.get(f"/api/seat/{token}/absences").get_json()["absences"]) == 2


def test_back_from_a_revoked_link_is_refused(stack: Stack) -> None:
    db = stack.web_db
    game = api_game(stack.client, ["Ann <ann@example.org>", "Bob <bob@example.org>", "bot"])
    colour, token = next(iter(game.tokens.items()))
    seat = seat_ids(db, game.id)[colour]
    absences.declare(db, player_of(db, seat).id, datetime.now(UTC), datetime.now(UTC) + DAY)
    rotate_link(db, game.id, colour)
    before = all_rows(db)
    for call in (
        lambda: stack.client.post(f"/api/seat/{token}/back"),
        lambda: stack.client.post(f"/api/seat/{token}/absences", json={"text": "AWAY 3 DEC"}),
        lambda: stack.client.get(f"/api/seat/{token}/absences"),
    ):
        assert call().status_code == 403
    assert all_rows(db) == before
    fresh = seat_token(stack.settings.secret_key, seat, 2)
    assert stack.client.post(f"/api/seat/{fresh}/back").status_code == 200


# --- game options -------------------------------------------------------------------------------------------------


def test_the_create_page_and_the_command_line_take_the_absence_options(stack: Stack) -> None:
    form = {
        "players": "Ann <ann@example.org>\nbot\nbot",
        "autopilot_after": "3",
        "absence": "extend",
        "absence_budget": "2d",
    }
    body = games.spec_from_form(form, 2000)
    spec = games.spec_from_json(body)
    assert spec.tempo()["autopilot_after"] == 3
    assert spec.tempo()["absence"] == "extend" and spec.tempo()["absence_budget"] == 2 * 86400
    defaults = games.spec_from_json(games.spec_from_form({"players": form["players"]}, 2000)).tempo()
    assert "autopilot_after" not in defaults and "absence" not in defaults
    for bad, message in (
        ({"autopilot_after": "many"}, "autopilot_after"),
        ({"autopilot_after": "21"}, "autopilot_after"),
        ({"absence": "sleep"}, "absence must be"),
        ({"absence_budget": "forever"}, "forever"),
    ):
        with pytest.raises(games.GameError, match=message):
            games.spec_from_json(games.spec_from_form({**form, **bad}, 2000))
    log_in_as_organiser(stack.client)
    page = stack.client.get("/o/new").get_data(as_text=True)
    assert 'name="autopilot_after"' in page and 'name="absence"' in page and 'name="absence_budget"' in page
    created = post_form(stack.client, stack.app, "/o/new", form)
    assert created.status_code in (200, 201, 303), created.get_data(as_text=True)[:500]
    with stack.web_db.session() as session:
        tempo = session.execute(sa.select(Game.tempo).order_by(Game.id.desc())).scalars().first()
    assert tempo is not None and tempo["absence"] == "extend" and tempo["autopilot_after"] == 3


def test_the_command_line_creates_a_game_with_the_absence_options(stack: Stack) -> None:
    env = cli_env(stack)
    args = ["game", "create", "--player", "Ann <ann@example.org>", "--player", "bot", "--player", "bot", "--json"]
    result = run(env, *args, "--autopilot-after", "0", "--absence", "extend", "--absence-budget", "12h")
    assert result.exit_code == 0, result.output
    with stack.db.session() as session:
        tempo = session.execute(sa.select(Game.tempo).order_by(Game.id.desc())).scalars().first()
    assert tempo is not None
    assert (tempo["autopilot_after"], tempo["absence"], tempo["absence_budget"]) == (0, "extend", 12 * 3600)
    before = all_rows(stack.db)
    for bad in (["--autopilot-after", "40"], ["--absence", "nap"], ["--absence-budget", "forever"]):
        assert run(env, *args, *bad).exit_code != 0
    assert all_rows(stack.db) == before
