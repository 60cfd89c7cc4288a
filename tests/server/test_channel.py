"""A league's (or a game's) webhook channel (``services.channel``, ``server/mail/channel.py``) against a real local
HTTP receiver (``tests/webhook_receiver.py``), never a mocked HTTP layer: one post per public event of a season (a
round started with its tables, each game's places, the standings after each round, the season's end), sent by the
real worker's sweep and never again; nothing secret in them (no address, no seat link or token); retried after a
500 and delivered once; a 429's ``Retry-After`` honoured; a channel paused after ``MAX_FAILURES`` failed tries in a
row, its organiser mailed once and its page saying so, then resumed; hostile addresses refused with a 4xx and
nothing stored. On both setups where the fixtures allow."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from markupsafe import escape

from server.mail.channel import body, compose, send_posts
from server.models import Channel, ChannelPost, Game, MailKind, OutboxStatus, Player, Season, SeasonStatus
from server.services.channel import (
    ChannelError,
    channels,
    check_url,
    clear_game_channel,
    events,
    game_channel,
    posts,
    set_game_channel,
)
from server.services.leagues import rounds
from server.services.links import league_token
from server.services.play import games, hooks
from tests.conftest import Stack, _stack, migrated_sqlite_url, running_worker
from tests.server.test_replay import finish
from tests.server.test_rounds import enter, make_league, make_season
from tests.support import AUTH, T0, create, mail_settings, post_form, rows_of_kind, sweep_parts, text_of
from tests.support import compose as compose_mail
from tests.webhook_receiver import WebhookReceiver

from ..worker.conftest import TaskLog, task_log  # noqa: F401 (the fixture)

DAY = timedelta(days=1)


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    found = WebhookReceiver().start()
    yield found
    found.stop()


@pytest.fixture(params=["embedded", "production"])
def hooked(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    """The ``stack`` fixture's two setups, webhooks allowed on this machine (``DEADMAIL_WEBHOOK_PRIVATE``): the
    receiver listens on 127.0.0.1."""
    if request.param == "embedded":
        url = migrated_sqlite_url(request.getfixturevalue("sqlite_template"), tmp_path)
        built = _stack("embedded", tmp_path, url, "filesystem://", migrated=True, webhook_private=True)
    else:
        pg = request.getfixturevalue("migrated_postgres_url")
        broker = request.getfixturevalue("redis_url")
        built = _stack("production", tmp_path, pg, broker, migrated=True, webhook_private=True)
    yield built
    built.db.dispose()
    if request.param == "production":
        import redis

        client = redis.Redis.from_url(built.settings.broker_url)
        keys = list(client.scan_iter(match=f"*{built.settings.queue}*", count=1000))
        if keys:
            client.delete(*keys)
        client.close()


def organiser_page(stack: Stack, league_id: int) -> str:
    return f"/lo/{league_token(stack.settings.secret_key, 'organiser', league_id, 1)}"


def league_with_channel(stack: Stack, receiver: WebhookReceiver, **fields: Any) -> tuple[int, int, str]:
    """A league of 3 players (one table), a season of 2 rounds, its channel set on the organiser's page: the league,
    the season and the organiser's page."""
    league_id = make_league(stack.db, table_size=3, organiser_email="boss@example.org", **fields)
    season_id = make_season(stack.db, league_id, rounds=2)
    enter(stack.db, season_id, 3)
    page = organiser_page(stack, league_id)
    reply = post_form(stack.client, stack.app, f"{page}/channel", {"url": receiver.url})
    assert reply.status_code == 303, reply.get_data(as_text=True)
    return league_id, season_id, page


def channel_rows(stack: Stack) -> list[Channel]:
    with stack.db.session() as session:
        found = list(session.execute(sa.select(Channel)).scalars())
        session.expunge_all()
        return found


def post_rows(stack: Stack) -> list[ChannelPost]:
    with stack.db.session() as session:
        found = list(session.execute(sa.select(ChannelPost).order_by(ChannelPost.id)).scalars())
        session.expunge_all()
        return found


def round_games(stack: Stack, season_id: int) -> list[int]:
    with stack.db.session() as session:
        return list(
            session.execute(
                sa.select(Game.id)
                .join(rounds.LeagueRound, rounds.LeagueRound.id == Game.round_id)
                .where(rounds.LeagueRound.season_id == season_id)
                .order_by(Game.id)
            ).scalars()
        )


def secrets_of(stack: Stack, game_ids: list[int]) -> set[str]:
    """What no post may hold: every player's address, every seat's signed link and its token, the server's keys."""
    with stack.db.session() as session:
        found = {p for p in session.execute(sa.select(Player.email)).scalars()}
    for game_id in game_ids:
        for seat in games.seat_links(stack.db, game_id, stack.settings.secret_key, stack.settings.base_url):
            if seat["link"]:
                found |= {str(seat["link"]), str(seat["link"]).rsplit("/", 1)[1]}
    return found | {stack.settings.secret_key, stack.settings.api_token}


def play_season(stack: Stack, season_id: int) -> list[int]:
    """Round 1 planned and started by its organiser, its game played to the end, round 2 started by the sweep and
    played: the games' ids."""
    round_id = rounds.plan(stack.db, season_id, T0)
    (first,) = rounds.start(stack.db, round_id, T0)
    finish(stack.db, first, seed=31)
    assert rounds.sweep(stack.db, T0 + DAY) == 1
    second = [g for g in round_games(stack, season_id) if g != first]
    assert len(second) == 1
    finish(stack.db, second[0], seed=32)
    with stack.db.session() as session:
        season = session.get(Season, season_id)
        assert season is not None and season.status == SeasonStatus.OVER
    return [first, second[0]]


# --- a season's events --------------------------------------------------------------------------------------------


@pytest.mark.long(25)
def test_a_season_posts_one_message_per_event_through_the_worker_and_nothing_secret(
    hooked: Stack,
    receiver: WebhookReceiver,
    task_log: TaskLog,  # noqa: F811 (the worker tests' fixture)
) -> None:
    league_id, season_id, _page = league_with_channel(hooked, receiver)
    played = play_season(hooked, season_id)
    expected = ["round_started", "game_over", "round_over", "round_started", "game_over", "round_over", "season_over"]
    assert [row.payload["facts"]["event"] for row in post_rows(hooked)] == expected
    assert receiver.tried() == 0  # written in the transactions, sent by the worker
    with running_worker(hooked.settings) as worker:
        at = T0 + 30 * DAY
        parts = sweep_parts(worker, task_log, at)
        posted = sum(r.retval["counts"].get("posted", 0) for r in parts if r.retval["part"] == "channel")
        assert posted == 7
        assert len(receiver.taken()) == 7
        again = sweep_parts(worker, task_log, at + timedelta(minutes=1))  # another pass: nothing twice
        assert all(r.retval["counts"].get("posted", 0) == 0 for r in again if r.retval["part"] == "channel")
    taken = receiver.taken()
    assert len(taken) == 7 and receiver.tried() == 7
    assert [b["deadmail"]["event"] for b in taken] == expected
    for b in taken:
        assert b["content"] == b["text"] and b["content"].strip()
        assert b["allowed_mentions"] == {"parse": []}
        facts = b["deadmail"]
        assert facts["league"] == league_id and facts["season"] == season_id
    started = taken[0]["deadmail"]
    assert started["round_number"] == 1
    assert [sorted(t["players"]) for t in started["tables"]] == [["P0", "P1", "P2"]]
    assert "P0" in taken[0]["content"] and "round 1 of 2 of season 1" in taken[0]["content"]
    over = taken[1]["deadmail"]
    assert over["game"] == played[0] and over["table"] == 1
    assert sorted(p["name"] for p in over["places"]) == ["P0", "P1", "P2"]
    assert [p["place"] for p in over["places"]] == sorted(p["place"] for p in over["places"])
    standings = taken[2]["deadmail"]["standings"]
    assert len(standings) == 1 and sorted(r["name"] for r in standings[0]["rows"]) == ["P0", "P1", "P2"]
    assert taken[6]["deadmail"]["event"] == "season_over" and "season 1 is over" in taken[6]["content"]
    # nothing secret: no address, no seat link or its token, no key; no hand or answer is carried at all
    text = json.dumps(taken, ensure_ascii=False)
    for secret in secrets_of(hooked, played):
        assert secret not in text
    assert "@" not in text and "/s/" not in text and "http" not in text
    for b in taken:
        keys = set(b["deadmail"]) - {"event", "league", "league_name", "season", "season_number", "round"}
        assert keys <= {"round_number", "rounds", "tables", "game", "title", "places", "table", "standings"}
    # the same event told again writes nothing
    with hooked.db.session() as session:
        assert posts.post(session, f"season:{season_id}:over", {"facts": {}}, T0, league_id=league_id) is None
    assert len(post_rows(hooked)) == 7


def test_a_games_own_channel_gets_its_places_and_a_name_that_is_an_address_is_never_shown(
    hooked: Stack, receiver: WebhookReceiver
) -> None:
    created = create(hooked.db, 3, seed=41)
    with hooked.db.session() as session:
        player = session.execute(sa.select(Player).where(Player.email == "p1@example.org")).scalar_one()
        player.display_name = "p1@example.org"  # (a name nobody confirmed is its address)
        game = session.get(Game, created.game_id)
        assert game is not None
        game.creator_id = player.id
        set_game_channel(session, created.game_id, receiver.url, allow_private=True, now=T0)
    with hooked.db.session() as session:
        shown = game_channel(session, created.game_id)
        assert shown is not None and shown.url == receiver.url and shown.paused_at is None
    finish(hooked.db, created.game_id, seed=41)
    assert send_posts(hooked.db, hooked.settings, T0 + DAY) != {}
    (taken,) = receiver.taken()
    facts = taken["deadmail"]
    assert facts["event"] == "game_over" and facts["game"] == created.game_id and "league" not in facts
    assert sorted(str(p["name"]) for p in facts["places"]) == ["None", "P0", "P2"]
    assert f"game {created.game_id}" in taken["content"] and "is over" in taken["content"]
    text = json.dumps(taken)
    for secret in secrets_of(hooked, [created.game_id]):
        assert secret not in text
    with hooked.db.session() as session:
        assert clear_game_channel(session, created.game_id) is True
    assert channel_rows(hooked) == [] and post_rows(hooked) == []


def test_a_games_failing_channel_is_paused_and_its_creator_mailed(hooked: Stack, receiver: WebhookReceiver) -> None:
    created = create(hooked.db, 3, seed=43)
    with hooked.db.session() as session:
        creator = session.execute(sa.select(Player).where(Player.email == "p2@example.org")).scalar_one()
        game = session.get(Game, created.game_id)
        assert game is not None
        game.creator_id = creator.id
        set_game_channel(session, created.game_id, receiver.url, allow_private=True, now=T0)
    finish(hooked.db, created.game_id, seed=43)
    receiver.answer_next(502, count=posts.MAX_FAILURES)
    at = T0 + DAY
    for _ in range(posts.MAX_FAILURES):
        send_posts(hooked.db, hooked.settings, at)
        at += timedelta(hours=2)
    (mail,) = rows_of_kind(hooked.db, MailKind.CHANNEL_PAUSED)
    assert mail.player_id == creator.id
    message = compose_mail(hooked.db, mail.id, mail_settings(hooked.settings))
    assert message is not None and f"game {created.game_id}" in message["Subject"]
    with hooked.db.session() as session:
        shown = game_channel(session, created.game_id)
        assert shown is not None and shown.paused_at is not None and shown.waiting == 1
        channels.resume_game_channel(session, created.game_id, at)
    assert list(send_posts(hooked.db, hooked.settings, at).values()) == ["sent"]
    assert len(receiver.taken()) == 1


def test_the_channel_handler_is_registered_once_before_the_leagues() -> None:
    assert hooks.GAME_OVER.count(events.game_over) == 1
    from server.services.leagues import game_end

    assert hooks.GAME_OVER.index(events.game_over) < hooks.GAME_OVER.index(game_end.game_over)


# --- retries, Retry-After, the pause ----------------------------------------------------------------------------------


def one_post(stack: Stack, league_id: int, key: str = "test:1") -> int:
    facts = {"event": "season_over", "league_name": "Tuesday", "season_number": 1, "standings": []}
    with stack.db.session() as session:
        row = posts.post(session, key, {"lang": "en", "facts": facts}, T0, league_id=league_id)
        assert row is not None
        session.flush()
        return row.id


def test_a_500_is_tried_again_after_the_back_off_and_delivered_once(hooked: Stack, receiver: WebhookReceiver) -> None:
    league_id, _season, _page = league_with_channel(hooked, receiver)
    post_id = one_post(hooked, league_id)
    receiver.answer_next(500)
    assert send_posts(hooked.db, hooked.settings, T0) == {post_id: "retry"}
    assert send_posts(hooked.db, hooked.settings, T0 + timedelta(seconds=20)) == {}  # (30 s of back-off)
    assert send_posts(hooked.db, hooked.settings, T0 + timedelta(seconds=31)) == {post_id: "sent"}
    assert send_posts(hooked.db, hooked.settings, T0 + DAY) == {}
    assert receiver.tried() == 2 and len(receiver.taken()) == 1
    (channel,) = channel_rows(hooked)
    assert channel.failures == 0 and channel.last_error is None and channel.paused_at is None


def test_a_429_is_tried_again_no_sooner_than_its_retry_after(hooked: Stack, receiver: WebhookReceiver) -> None:
    league_id, _season, _page = league_with_channel(hooked, receiver)
    post_id = one_post(hooked, league_id)
    receiver.answer_next(429, Retry_After="600")
    assert send_posts(hooked.db, hooked.settings, T0) == {post_id: "retry"}
    assert send_posts(hooked.db, hooked.settings, T0 + timedelta(seconds=599)) == {}
    assert send_posts(hooked.db, hooked.settings, T0 + timedelta(seconds=601)) == {post_id: "sent"}
    assert receiver.tried() == 2 and len(receiver.taken()) == 1


def test_another_4xx_fails_the_post_for_good(hooked: Stack, receiver: WebhookReceiver) -> None:
    league_id, _season, _page = league_with_channel(hooked, receiver)
    post_id = one_post(hooked, league_id)
    receiver.answer_next(404)
    assert send_posts(hooked.db, hooked.settings, T0) == {post_id: "failed"}
    assert send_posts(hooked.db, hooked.settings, T0 + DAY) == {}
    (row,) = post_rows(hooked)
    assert row.status == OutboxStatus.FAILED and row.last_error is not None and "404" in row.last_error
    (channel,) = channel_rows(hooked)
    assert channel.failures == 1 and channel.paused_at is None


def test_a_failing_channel_is_paused_its_organiser_mailed_once_and_resumed_from_the_page(
    hooked: Stack, receiver: WebhookReceiver
) -> None:
    league_id, _season, page = league_with_channel(hooked, receiver)
    post_id = one_post(hooked, league_id)
    receiver.answer_next(503, count=50)
    at, results = T0, []
    for _ in range(posts.MAX_FAILURES):
        results.append(send_posts(hooked.db, hooked.settings, at)[post_id])
        at += timedelta(hours=2)
    assert results == ["retry"] * (posts.MAX_FAILURES - 1) + ["paused"]
    (channel,) = channel_rows(hooked)
    assert channel.paused_at is not None and channel.failures == posts.MAX_FAILURES
    # paused: nothing is tried; what happens meanwhile is kept for when it resumes
    with hooked.db.session() as session:
        meanwhile = posts.post(session, "test:2", {"facts": {}}, T0, league_id=league_id)
        assert meanwhile is not None
        later_id = meanwhile.id
    assert send_posts(hooked.db, hooked.settings, at + DAY) == {}
    assert receiver.tried() == posts.MAX_FAILURES
    # one mail to the league's organiser address, saying so
    (mail,) = rows_of_kind(hooked.db, MailKind.CHANNEL_PAUSED)
    with hooked.db.session() as session:
        boss = session.get(Player, mail.player_id)
        assert boss is not None and boss.email == "boss@example.org"
    message = compose_mail(hooked.db, mail.id, mail_settings(hooked.settings))
    assert message is not None
    words = text_of(message)
    assert "paused" in message["Subject"] and "The last error: HTTP 503" in words
    (link,) = re.findall(r"http://deadmail\.test(/lo/\S+)", words)
    assert hooked.client.get(link).status_code == 200
    # the organiser's page shows it, and resumes it
    shown = hooked.client.get(page).get_data(as_text=True)
    assert "Paused since" in shown and "HTTP 503" in shown and "Resume posting" in shown
    receiver.answers.clear()
    reply = post_form(hooked.client, hooked.app, f"{page}/channel/resume")
    assert reply.status_code == 303
    assert "Paused since" not in hooked.client.get(page).get_data(as_text=True)
    assert send_posts(hooked.db, hooked.settings, at + DAY) == {post_id: "sent", later_id: "sent"}
    assert len(receiver.taken()) == 2 and len(rows_of_kind(hooked.db, MailKind.CHANNEL_PAUSED)) == 1
    # the JSON API shows it, removes it
    shown_api = hooked.client.get(f"/api/leagues/{league_id}", headers=AUTH).json
    assert shown_api is not None and shown_api["channel"]["url"] == receiver.url
    assert shown_api["channel"]["paused_at"] is None
    assert hooked.client.delete(f"/api/leagues/{league_id}/channel", headers=AUTH).json == {"ok": True, "removed": True}
    assert channel_rows(hooked) == [] and post_rows(hooked) == []
    assert hooked.client.post(f"/api/leagues/{league_id}/channel/resume", headers=AUTH).status_code == 409


def test_removing_and_changing_the_address_on_the_page(hooked: Stack, receiver: WebhookReceiver) -> None:
    league_id, _season, page = league_with_channel(hooked, receiver)
    shown = hooked.client.get(page).get_data(as_text=True)
    assert receiver.url in shown and "Posting" in shown
    other = receiver.url.replace("/league", "/other")
    assert post_form(hooked.client, hooked.app, f"{page}/channel", {"url": other}).status_code == 303
    assert [c.url for c in channel_rows(hooked)] == [other]  # one channel per league
    assert post_form(hooked.client, hooked.app, f"{page}/channel/remove").status_code == 303
    assert channel_rows(hooked) == []
    reply = post_form(hooked.client, hooked.app, f"{page}/channel/resume")
    assert reply.status_code == 409 and "No webhook address is set" in reply.get_data(as_text=True)
    put = hooked.client.put(f"/api/leagues/{league_id}/channel", json={"url": receiver.url}, headers=AUTH)
    assert put.status_code == 200 and put.json is not None and put.json["channel"]["url"] == receiver.url


# --- hostile addresses ------------------------------------------------------------------------------------------------

HOSTILE = [
    "javascript:alert(1)",
    "file:///etc/passwd",
    "ftp://example.org/hook",
    "http://user:pass@example.org/hook",
    "https://token@discord.com/api/webhooks/1/x",
    "http://10.0.0.1/hook",
    "http://127.0.0.1:9/hook",
    "http://[::1]/hook",
    "http://localhost/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://192.168.1.1/hook",
    "https://example.org/" + "a" * 5000,
    "not a url",
    "https://discord.com/api/webhooks/1/x\nX-Evil: 1",
    "",
]


@pytest.mark.parametrize("url", HOSTILE)
def test_check_url_refuses_hostile_addresses(url: str) -> None:
    with pytest.raises(ChannelError) as refused:
        check_url(url, allow_private=False)
    assert refused.value.msgid


def test_check_url_takes_public_and_allowed_private_addresses() -> None:
    assert check_url(" https://93.184.216.34/api/webhooks/1/x ", allow_private=False) == (
        "https://93.184.216.34/api/webhooks/1/x"
    )
    assert check_url("http://10.0.0.1:8008/hook", allow_private=True) == "http://10.0.0.1:8008/hook"
    for url in ("javascript:alert(1)", "http://u:p@10.0.0.1/", "x" * 5000):
        with pytest.raises(ChannelError):
            check_url(url, allow_private=True)


def test_hostile_addresses_get_a_4xx_with_the_message_and_nothing_is_stored(stack: Stack) -> None:
    assert stack.settings.webhook_private is False  # (the default)
    league_id = make_league(stack.db)
    page = organiser_page(stack, league_id)
    for url in HOSTILE:
        with pytest.raises(ChannelError) as refused:
            check_url(url, allow_private=False)
        reply = post_form(stack.client, stack.app, f"{page}/channel", {"url": url})
        assert reply.status_code == 400, url
        assert "Not done:" in reply.get_data(as_text=True) and escape(str(refused.value)) in reply.get_data(
            as_text=True
        )
        api = stack.client.put(f"/api/leagues/{league_id}/channel", json={"url": url}, headers=AUTH)
        assert api.status_code == 400 and api.json is not None and api.json["ok"] is False, url
    for bad in ({"url": 5}, {"url": None}, [], {"address": "https://example.org/"}):
        assert stack.client.put(f"/api/leagues/{league_id}/channel", json=bad, headers=AUTH).status_code == 400
    assert channel_rows(stack) == []
    with stack.db.session() as session, pytest.raises(ChannelError):
        set_game_channel(session, create(stack.db, 3, seed=5).game_id, "http://10.0.0.1/", allow_private=False)
    assert channel_rows(stack) == []
    # without the organiser's token nothing is reached
    assert stack.client.put(f"/api/leagues/{league_id}/channel", json={"url": "https://e.org/"}).status_code == 401
    other = f"/lo/{league_token(stack.settings.secret_key, 'organiser', league_id, 2)}/channel"
    assert post_form(stack.client, stack.app, other, {"url": "https://example.org/"}).status_code in (403, 404)
    assert channel_rows(stack) == []


def test_a_post_is_composed_in_the_leagues_language_from_its_facts() -> None:
    facts = {
        "event": "round_started",
        "league_name": "Lunedì",
        "season_number": 2,
        "round_number": 1,
        "rounds": 3,
        "tables": [{"table": 1, "game": 9, "players": ["Anna", None, "Bob"]}],
    }
    english = compose({"lang": "en", "facts": facts})
    assert english.splitlines() == [
        "Lunedì: round 1 of 3 of season 2 has started.",
        "Table 1 (game 9): Anna, (no name), Bob",
    ]
    sent = body({"lang": "it", "facts": facts})
    assert sent["content"] == sent["text"] and sent["deadmail"] == facts
    many = [{"rank": i, "name": "N" * 80, "points": 1.5, "games": 2, "wins": 0} for i in range(20)]
    standings = {"event": "season_over", "league_name": "L", "season_number": 1}
    standings["standings"] = [{"name": "1", "count": 5000, "rows": many}]
    text = compose({"lang": "en", "facts": standings})
    assert len(text) <= 1900 and "Division 1" in text and text.endswith("… and 4990 more")
    assert "1. NNNN" in text and "1.5 points (2 games)" in text


def test_posts_done_with_are_pruned_once_old_and_waiting_ones_kept(hooked: Stack, receiver: WebhookReceiver) -> None:
    league_id, _season, _page = league_with_channel(hooked, receiver)
    sent_id = one_post(hooked, league_id, "test:sent")
    waiting_id = one_post(hooked, league_id, "test:waiting")
    assert send_posts(hooked.db, hooked.settings, T0, ids=[sent_id]) == {sent_id: "sent"}
    sent_at = next(row.next_attempt_at for row in post_rows(hooked) if row.id == sent_id)
    assert posts.prune(hooked.db, sent_at + posts.KEEP, keep=posts.KEEP) == 0  # not older than ``keep`` yet
    assert posts.prune(hooked.db, sent_at + posts.KEEP + timedelta(seconds=1), keep=posts.KEEP) == 1
    assert [(row.id, row.status) for row in post_rows(hooked)] == [(waiting_id, OutboxStatus.PENDING)]
