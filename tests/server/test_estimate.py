"""Tempo presets and the estimate of a game's length: presets are full tempos, chosen by the
API, the command and the create page, explicit settings overriding them; the estimate (services.play.estimate) is
deterministic, uses the seats' own quiet hours, and is shown before a game starts without creating it."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, time, timedelta
from typing import Any

import pytest
import sqlalchemy as sa

import engine
from engine.data import KINDS
from server.models import Device, Game, Player
from server.services import presets
from server.services.play import estimate, games
from server.services.tempo import Quiet, window_deadline
from tests.conftest import Stack
from tests.server.test_api_cli import cli_env, run
from tests.support import AUTH, all_rows, post_form

PEOPLE = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>", "Di <di@example.org>"]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
KEYS = {"days_median", "days_p90", "windows_median", "defaulted_share", "games", "model"}


@pytest.fixture(autouse=True)
def few_games(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(estimate, "ESTIMATE_GAMES", 12)


# --- presets ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(presets.PRESETS))
def test_each_preset_is_a_full_tempo_the_deadline_code_takes(name: str) -> None:
    tempo = presets.tempo_for(name, "Asia/Tokyo")
    assert tempo["preset"] == name and tempo["timezone"] == "Asia/Tokyo"
    assert set(tempo["durations"]) <= {"default", *KINDS} and "default" in tempo["durations"]
    assert all(1 <= s <= 30 * 86400 for s in tempo["durations"].values())
    assert isinstance(tempo["close_decided_votes"], bool) and tempo["avoid_quiet_hours"] is True
    assert tempo["last_call"] is None or 0 < tempo["last_call"] < tempo["durations"]["default"]
    if tempo.get("play_hours"):  # in the organiser's zone
        assert tempo["play_hours"]["zone"] == "Asia/Tokyo" and tempo["play_hours"]["deadline"] == 600
        assert (tempo["play_hours"]["start"], tempo["play_hours"]["end"]) == ("20:30", "22:00")
    quiet = [Quiet("Europe/Rome", time(23), time(7))]
    assert window_deadline(T0, list(KINDS), tempo, quiet) > T0
    assert presets.PRESETS[name].title and presets.PRESETS[name].description
    assert presets.PRESETS["week"].tempo.get("preset") is None  # tempo_for copies: the preset itself is untouched


def test_explicit_settings_override_the_preset() -> None:
    spec = games.spec_from_json({"players": PEOPLE, "preset": "week", "deadlines": ["vote=2h"], "timezone": "UTC"})
    tempo = spec.tempo()
    assert tempo["durations"] == {**presets.PRESETS["week"].tempo["durations"], "vote": 7200}
    assert tempo["preset"] == "week" and tempo["last_call"] == presets.PRESETS["week"].tempo["last_call"]
    tempo = games.spec_from_json({"players": PEOPLE, "preset": "relaxed", "deadlines": "30h"}).tempo()
    assert tempo["durations"]["default"] == 30 * 3600
    tempo = games.spec_from_json({"players": PEOPLE, "preset": "week", "avoid_quiet_hours": False}).tempo()
    assert tempo["avoid_quiet_hours"] is False
    given = {"players": PEOPLE, "preset": "week", "last_call": "2h", "close_decided_votes": False}
    tempo = games.spec_from_json(given).tempo()
    assert tempo["last_call"] == 7200 and tempo["close_decided_votes"] is False
    # no preset: as before presets, 24 h for everything (and decided votes close, as in every new game)
    assert games.spec_from_json({"players": PEOPLE}).tempo() == {
        "durations": {"default": 86400},
        "avoid_quiet_hours": True,
        "close_decided_votes": True,
        "timezone": "UTC",
    }
    assert games.spec_from_json({"players": PEOPLE, "deadlines": ["vote=6h"]}).tempo()["durations"] == {
        "default": 86400,
        "vote": 21600,
    }


def test_the_api_creates_a_game_of_a_preset_and_refuses_an_unknown_one(stack: Stack) -> None:
    reply = stack.client.post("/api/games", json={"players": PEOPLE, "preset": "week"}, headers=AUTH)
    assert reply.status_code == 201
    with stack.db.session() as session:
        tempo = session.get(Game, reply.json["id"]).tempo
    assert tempo["preset"] == "week" and tempo["durations"] == presets.PRESETS["week"].tempo["durations"]
    before = all_rows(stack.db)
    for bad in ("fortnight", 3, ["week"]):
        reply = stack.client.post("/api/games", json={"players": PEOPLE, "preset": bad}, headers=AUTH)
        assert reply.status_code == 400 and "is not a tempo preset (week, play-hours, relaxed)" in reply.json["error"]
    assert all_rows(stack.db) == before


def test_the_command_creates_a_game_of_a_preset_and_estimates_without_creating(stack: Stack) -> None:
    env = cli_env(stack)
    args = [arg for p in PEOPLE for arg in ("--player", p)]
    result = run(env, "game", "create", *args, "--preset", "play-hours", "--timezone", "Europe/Rome", "--json")
    assert result.exit_code == 0, result.output
    with stack.db.session() as session:
        tempo = session.get(Game, json.loads(result.output)["id"]).tempo
    assert tempo["preset"] == "play-hours" and tempo["play_hours"]["zone"] == "Europe/Rome"
    before = all_rows(stack.db)
    result = run(env, "game", "create", *args, "--preset", "week", "--estimate", "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.output)
    assert set(figures) == KEYS and figures["games"] == 12 and figures["days_p90"] >= figures["days_median"] > 0
    result = run(env, "game", "create", *args, "--preset", "week", "--estimate", "--seed", "4")
    assert result.exit_code == 0 and "days (9 games in 10: at most" in result.output and "model:" in result.output
    assert all_rows(stack.db) == before  # nothing created
    result = run(env, "game", "create", *args, "--preset", "fortnight", "--estimate")
    assert result.exit_code == 2 and "fortnight" in result.output


def test_the_api_estimates_without_creating(stack: Stack) -> None:
    before = all_rows(stack.db)
    body = {"players": [*PEOPLE, "bot"], "preset": "week", "timezone": "Europe/Warsaw", "seed": 3}
    reply = stack.client.post("/api/games/estimate", json=body, headers=AUTH)
    assert reply.status_code == 200 and set(reply.json) == {"ok", *KEYS}
    assert "simulated games" in reply.json["model"] and reply.json["games"] == 12
    assert stack.client.post("/api/games/estimate", json=body, headers=AUTH).json == reply.json  # deterministic
    assert stack.client.post("/api/games/estimate", json=body).status_code == 401
    reply = stack.client.post("/api/games/estimate", json={"players": PEOPLE[:2]}, headers=AUTH)
    assert reply.status_code == 400 and reply.json["error"] == "2 players: Mall of Horror takes 3 to 6"
    assert all_rows(stack.db) == before


def test_the_create_page_offers_presets_and_shows_an_estimate(organiser: Stack) -> None:
    page = organiser.client.get("/o/new").get_data(as_text=True)
    assert 'name="preset"' in page and "A week by e-mail" in page and "Play hours" in page
    before = all_rows(organiser.db)
    form = {"players": "\n".join(PEOPLE), "preset": "week", "timezone": "Europe/Rome", "estimate": "1"}
    reply = post_form(organiser.client, organiser.app, "/o/new", form)
    page = reply.get_data(as_text=True)
    assert reply.status_code == 200 and "How long it will take" in page and "9 games in 10 end within" in page
    assert "12 simulated games" in page and 'value="week" selected' in page  # the form is kept
    assert all_rows(organiser.db) == before
    del form["estimate"]
    reply = post_form(organiser.client, organiser.app, "/o/new", form)
    assert reply.status_code == 303
    with organiser.db.session() as session:
        tempo = session.execute(sa.select(Game.tempo)).scalar_one()
    assert tempo["preset"] == "week" and tempo["durations"] == presets.PRESETS["week"].tempo["durations"]


def test_the_create_page_speaks_italian(organiser: Stack) -> None:
    page = organiser.client.get("/o/new", headers={"Accept-Language": "it"}).get_data(as_text=True)
    assert "Una settimana per e-mail" in page


# --- the simulation -------------------------------------------------------------------------------------------------


def _seats(zones: list[str]) -> list[estimate.SimSeat]:
    return [estimate.person(zone) for zone in zones]


def test_the_estimate_is_the_same_for_the_same_seed_and_changes_with_it() -> None:
    seats = _seats(["Europe/Rome", "Asia/Tokyo", "America/New_York", "Europe/Warsaw"])
    tempo = presets.tempo_for("week", "Europe/Rome")

    def figures(seed: int, replay: bool) -> dict[str, Any]:
        return estimate.simulate(seats, {}, tempo, games=8, seed=seed, start=T0, replay=replay)

    assert figures(1, False) == figures(1, False) and figures(1, True) == figures(1, True)
    assert figures(1, False) != figures(2, False)


def test_slower_readers_make_longer_games() -> None:
    seats = _seats(["Europe/Rome", "Europe/Rome", "America/Los_Angeles", "Asia/Tokyo", "Europe/Warsaw"])
    tempo = presets.tempo_for("relaxed", "Europe/Rome")
    days = [
        estimate.simulate(seats, {}, tempo, games=10, seed=5, start=T0, model=estimate.Model(reading=hours * 3600))[
            "days_median"
        ]
        for hours in (0.5, 3, 8)
    ]
    assert days[0] < days[1] < days[2]


def test_a_deadline_is_shifted_only_by_the_owing_seats_quiet_hours_at_most_12_hours() -> None:
    tempo = presets.tempo_for("week", "UTC")
    night = estimate.simulate(_seats(["Asia/Tokyo"] * 3), {}, tempo, games=4, seed=1, start=T0)
    assert 0 < night["max_shift_hours"] <= 12
    awake = [estimate.SimSeat(sleep=s.sleep, quiet=None) for s in _seats(["Asia/Tokyo"] * 3)]  # no quiet hours
    assert estimate.simulate(awake, {}, tempo, games=4, seed=1, start=T0)["max_shift_hours"] == 0


def test_the_estimate_uses_a_known_players_own_time_zone_and_quiet_hours(stack: Stack) -> None:
    """Unknown players sleep 23:00-07:00 in the organiser's zone; a known one in theirs."""
    spec = games.spec_from_json({"players": PEOPLE, "preset": "week", "timezone": "Europe/Rome", "seed": 2})
    unknown = games.estimate_game(stack.db, spec, now=T0)
    with stack.db.session() as session:
        for p in spec.players:
            session.add(
                Player(
                    email=p.email, display_name=p.name, timezone="Europe/Rome", quiet_start="23:00", quiet_end="07:00"
                )
            )
    assert games.estimate_game(stack.db, spec, now=T0) == unknown  # the same as assumed
    with stack.db.session() as session:
        for player in session.execute(sa.select(Player)).scalars():
            player.timezone = "Pacific/Auckland"  # asleep while Rome plays
    moved = games.estimate_game(stack.db, spec, now=T0)
    assert moved != unknown and moved["days_median"] > 0


def test_a_missed_answer_takes_the_engines_default_h4() -> None:
    """H-4: a request nobody answers is defaulted by the engine; the game still ends."""
    never = estimate.Model(miss=1.0, standing={})
    tempo = {"durations": {"default": 60}, "autopilot_after": 0}  # no autopilot: every request is defaulted
    figures = estimate.simulate(_seats(["UTC"] * 3), {}, tempo, games=2, seed=1, start=T0, model=never)
    assert figures["defaulted_share"] == 1.0 and figures["days_median"] < 1
    with_autopilot = estimate.simulate(
        _seats(["UTC"] * 3), {}, {"durations": {"default": 60}}, games=2, seed=1, start=T0, model=never
    )
    assert with_autopilot["defaulted_share"] < 0.5  # after two missed, the autopilot answers until they are back


def test_play_hours_sessions_make_short_windows() -> None:
    tempo = presets.tempo_for("play-hours", "Europe/Rome")
    start = T0 + timedelta(hours=10, minutes=30)  # 20:30 in Rome (UTC+1)
    figures = estimate.simulate(_seats(["Europe/Rome"] * 4), {}, tempo, games=4, seed=1, start=start)
    assert figures["days_median"] < 10


# --- the autopilot in the simulation --------------------------------------------------------------------------------


def test_the_simulation_counts_public_defaults_in_a_row_as_the_server() -> None:
    """``services.play.autopilot.count_missed``: public defaults count, an answer of the person's own starts again;
    requests asked in secret, standing answers and votes closed as decided change nothing; after two, the seat
    flies until the player is back (at their next mail check), their count starting again."""
    colours = ["yellow", "red", "blue"]
    table = estimate._Table(
        dict(zip(colours, _seats(["UTC"] * 3), strict=True)),
        presets.tempo_for("week", "UTC"),
        estimate.Model(),
        random.Random(3),
    )
    vote = estimate._Window([engine.Request("red", engine.Kind.VOTE, None)], [], [])
    cards = estimate._Window(
        [engine.Request("red", engine.Kind.CARDS, None, {"window": "chief", "playable": ["threat"]})], [], []
    )
    at = T0
    assert table.count(vote, {}, set(), "deadline", at) == [] and table.missed["red"] == 1
    table.count(cards, {}, set(), "deadline", at)  # asked in secret: neither counts nor resets
    table.count(vote, {}, set(), "decided", at)  # not needed: the vote was decided without them
    table.count(vote, {"red": "x"}, set(), "all", at)  # a standing answer (not their own)
    assert table.missed["red"] == 1 and not table.pilots
    table.count(vote, {"red": "x"}, {0}, "all", at)  # their own answer
    assert table.missed["red"] == 0
    table.count(vote, {}, set(), "deadline", at)
    assert table.count(vote, {}, set(), "deadline", at) == ["red"] and table.missed["red"] == 2
    since, back = table.pilots["red"]
    assert since == at and back is not None and back > at
    assert table.flying(at + timedelta(minutes=1)) == {"red"}
    assert table.flying(back) == set() and table.missed["red"] == 0  # back from the next request on
    never = estimate._Table(
        dict(zip(colours, _seats(["UTC"] * 3), strict=True)), {"autopilot_after": 0}, estimate.Model(), random.Random(3)
    )
    for _ in range(5):
        never.count(vote, {}, set(), "deadline", at)
    assert never.missed["red"] == 5 and not never.pilots


def test_a_vanished_players_seat_goes_on_autopilot_and_the_table_stops_waiting() -> None:
    """A person who vanishes at round 1 never answers again: after two public defaults their seat goes on
    autopilot for good; without escalation (``autopilot_after`` 0) the game waits for them at every window."""
    seats = _seats(["Europe/Rome", "Europe/Warsaw", "America/New_York", "Asia/Tokyo", "Europe/Rome"])
    seats[2] = estimate.SimSeat(sleep=seats[2].sleep, quiet=seats[2].quiet, vanishes=1)
    week = presets.tempo_for("week", "Europe/Rome")
    options = {"turn_order": "batched"}
    flown = estimate.play(seats, options, week, estimate.Model(), 11, T0)
    waited = estimate.play(seats, options, {**week, "autopilot_after": 0}, estimate.Model(), 11, T0)
    assert flown.vanished_at is not None and flown.vanished_pilot_at is not None and flown.autopilots >= 1
    assert waited.vanished_at is not None and waited.vanished_pilot_at is None and waited.autopilots == 0
    assert flown.days < waited.days and flown.defaulted < waited.defaulted and flown.rounds >= 1


def test_players_told_by_push_make_the_estimate_shorter(embedded: Stack) -> None:
    """The estimate counts each seated player's channel: the same table, its players with a device that reaches
    them (Web Push or a chat app), ends sooner than by mail alone; a player who asked for mail only counts as mail."""
    emails = [f"p{i}@example.org" for i in range(5)]
    spec = games.GameSpec(players=[games.PlayerSpec(name=f"P{i}", email=e) for i, e in enumerate(emails)], seed=3)
    with embedded.db.session() as session:
        people = [Player(email=e, display_name=e[:2], timezone="Europe/Rome") for e in emails]
        session.add_all(people)
    by_mail = games.estimate_game(embedded.db, spec, now=T0, count=60)
    with embedded.db.session() as session:
        for n, person in enumerate(session.execute(sa.select(Player).order_by(Player.id)).scalars()):
            session.add(
                Device(player_id=person.id, kind="chat", endpoint=f"ntfys://ntfy.sh/p{n}", name="x", failures=0)
            )
    by_push = games.estimate_game(embedded.db, spec, now=T0, count=60)
    assert by_push["days_median"] < by_mail["days_median"] * 0.8, (by_push, by_mail)
    with embedded.db.session() as session:
        session.execute(sa.update(Player).values(notify_mode="mail"))
    assert games.estimate_game(embedded.db, spec, now=T0, count=60) == by_mail


def test_a_person_still_on_the_page_is_handed_the_next_request_and_answers_it_within_a_minute() -> None:
    """``Model.linger`` (the live page): within ``linger`` of their last answer, while awake, a person answers the
    next request within a minute, never missing it (they are looking at it); after that, or once their quiet hours
    began, they are back to their channel (here: a person who misses everything)."""
    seat = estimate.person("UTC")  # asleep 23:00-07:00 UTC
    table = estimate._Table({"red": seat}, {}, estimate.Model(miss=1.0, linger=20 * 60), random.Random(1))
    answered = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
    table.answered["red"] = [(answered - timedelta(minutes=5), answered)]
    soon = answered + timedelta(minutes=19)
    at = table.answer_at("red", soon)
    assert at is not None and timedelta(0) < at - soon <= timedelta(minutes=1)
    assert table.answer_at("red", answered + timedelta(minutes=21)) is None  # left the page: missed, as modelled
    late = datetime(2026, 3, 2, 22, 55, tzinfo=UTC)
    table.answered["red"] = [(late - timedelta(minutes=5), late)]
    assert table.answer_at("red", late + timedelta(minutes=10)) is None  # 23:05: gone to bed, not handed over
    no_linger = estimate._Table({"red": seat}, {}, estimate.Model(miss=1.0), random.Random(1))
    no_linger.answered["red"] = [(answered - timedelta(minutes=5), answered)]
    assert no_linger.answer_at("red", soon) is None


# --- the estimate's library of recorded games (issue 29) -------------------------------------------------------------


def test_an_estimate_records_a_bounded_number_of_engine_games_and_replays_each_with_other_timings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first estimate for a table records ``RECORDED`` engine games whatever the number of games simulated (it
    recorded one per game simulated: 200, 2 s); the next one records none. Each recorded game is replayed in turn,
    with its own timings of the people: a game's days differ between its replays, its windows do not."""
    recorded: list[int] = []
    record = estimate.record

    def counted(*args: Any, **kwargs: Any) -> list[Any]:
        recorded.append(1)
        return record(*args, **kwargs)

    monkeypatch.setattr(estimate, "record", counted)
    monkeypatch.setattr(estimate, "_LIBRARY", {})
    seats = [*_seats(["Europe/Rome", "Asia/Tokyo"]), estimate.SimSeat(bot=True)]
    options = {"zombie_player": "every_round"}  # an option set of the form, not the default
    games = 5 * estimate.RECORDED
    tempo = presets.tempo_for("week", "Europe/Rome")
    first = estimate.simulate(seats, options, tempo, games=games, seed=4, start=T0, replay=True)
    assert len(recorded) == estimate.RECORDED and first["games"] == games
    again = estimate.simulate(seats, options, tempo, games=games, seed=4, start=T0, replay=True)
    assert again == first and len(recorded) == estimate.RECORDED  # replayed from the library, the same figures
    traces = estimate._library(estimate.colours_of(3), options, estimate.CAREFUL, games)
    assert len({id(trace) for trace in traces}) == estimate.RECORDED and traces[0] is traces[estimate.RECORDED]
    played = [estimate.play(seats, options, tempo, estimate.Model(), seed, T0, trace=traces[0]) for seed in (1, 2, 3)]
    assert len({game.windows for game in played}) == 1 and len({game.days for game in played}) == 3
    assert estimate.recorded_for(12) == 12 and estimate.recorded_for(games) == estimate.RECORDED


def test_the_estimate_is_the_same_from_a_fresh_library(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deterministic for a seed: the recorded games are the same in every process (a fresh library records them
    again), so a first estimate and a later one agree."""
    seats = _seats(["Europe/Rome", "Europe/Warsaw", "America/New_York", "Asia/Tokyo"])
    tempo = presets.tempo_for("relaxed", "Europe/Rome")
    games = 2 * estimate.RECORDED
    monkeypatch.setattr(estimate, "_LIBRARY", {})
    warm = estimate.simulate(seats, {}, tempo, games=games, seed=7, start=T0, replay=True)
    monkeypatch.setattr(estimate, "_LIBRARY", {})
    assert estimate.simulate(seats, {}, tempo, games=games, seed=7, start=T0, replay=True) == warm
    assert estimate.simulate(seats, {}, tempo, games=games, seed=8, start=T0, replay=True) != warm


def test_the_create_page_says_it_is_estimating_and_how_many_games_it_replays(organiser: Stack) -> None:
    """The Estimate button's busy notice names the games being simulated (shown while the request runs, htmx); the
    model said with the figures names the distinct engine games replayed; in Italian and Polish too."""
    page = organiser.client.get("/o/new").get_data(as_text=True)
    assert 'id="estimate-busy"' in page and 'role="status"' in page and 'hx-indicator="#estimate-busy"' in page
    assert "Estimating: simulating 12 games…" in page  # (this module simulates 12)
    for lang, busy in (("it", "Stima in corso: simulazione di 12 partite…"), ("pl", "Szacowanie: symulacja 12 gier…")):
        assert busy in organiser.client.get("/o/new", headers={"Accept-Language": lang}).get_data(as_text=True)
    form = {"players": "\n".join(PEOPLE[:3]), "preset": "week", "estimate": "1"}
    page = post_form(organiser.client, organiser.app, "/o/new", form).get_data(as_text=True)
    assert "12 simulated games with sensible bots in every seat (12 games of the rules engine" in page
    assert estimate.model_text(100, 3 * 3600).startswith(
        f"100 simulated games with sensible bots in every seat ({estimate.RECORDED} games of the rules engine"
    )
