"""The organiser's two doors: the JSON API (POST /api/games, GET /api/games/<id>) and the ``deadmail`` command
(game create / game show), with their validation and error messages."""

from __future__ import annotations

import gc
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from click.testing import CliRunner, Result
from werkzeug.test import TestResponse

from server.models import Game, Outbox, Player, Window
from server.run.cli import main
from server.services.links import mailbox_token
from server.services.play import turns
from tests.conftest import Stack
from tests.support import AUTH, all_rows, compose, mail_settings, text_of

PEOPLE = ["Ann <ann@example.org>", "Bob <bob@example.org>", "Cy <cy@example.org>"]
NEEDS_TOKEN = "This call needs the organiser's API token (Authorization: Bearer …)."


def post_game(stack: Stack, body: Any, headers: dict[str, str] | None = AUTH) -> TestResponse:
    """``POST /api/games`` with ``body`` (any JSON, also a bad one), by default with the organiser's token."""
    return stack.client.post("/api/games", json=body, headers=headers or {})


# --- POST /api/games --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        None,
        {"Authorization": "Bearer "},
        {"Authorization": "Bearer wrong-token"},
        {"Authorization": "Basic test-api-token"},
        {"Authorization": "Bearer test-api-token-and-more"},
    ],
)
def test_creating_a_game_needs_the_api_token(embedded: Stack, headers: dict[str, str] | None) -> None:
    before = all_rows(embedded.db)
    reply = post_game(embedded, {"players": PEOPLE}, headers)
    assert (reply.status_code, reply.json) == (401, {"ok": False, "error": NEEDS_TOKEN})
    assert all_rows(embedded.db) == before
    shown = embedded.client.get("/api/games/1", headers=headers or {})
    assert (shown.status_code, shown.json) == (401, {"ok": False, "error": NEEDS_TOKEN})


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"players": PEOPLE[:2]}, "2 players: Mall of Horror takes 3 to 6"),
        ({"players": [*PEOPLE, "bot", "bot", "bot", "bot"]}, "7 players: Mall of Horror takes 3 to 6"),
        ({}, "players must be a list of 'Name <email>' or 'bot' (or {name, email} objects)"),
        ({"players": "Ann, Bob, Cy"}, "players must be a list of 'Name <email>' or 'bot' (or {name, email} objects)"),
        ({"players": [*PEOPLE[:2], 7]}, "each player is 'Name <email>', 'bot', or an object"),
        (
            {"players": [*PEOPLE[:2], "Dee <dee-at-example.org>"]},
            "'Dee <dee-at-example.org>' is neither 'Name <email>' nor 'bot'",
        ),
        ({"players": [*PEOPLE[:2], "Dee"]}, "'Dee' is neither 'Name <email>' nor 'bot'"),
        ({"players": [*PEOPLE[:2], "bot:clever"]}, "unknown bot 'clever' (bots: sensible, random)"),
        ({"players": [*PEOPLE[:2], "Ann Again <ANN@example.org>"]}, "the same e-mail address is given for two seats"),
        ({"players": PEOPLE, "options": {"speed": "fast"}}, "unknown option 'speed'"),
        (
            {"players": PEOPLE, "options": {"turn_order": "random"}},
            "option turn_order: 'random' is not one of batched, strict",
        ),
        (
            {"players": PEOPLE, "options": {"weapons": {"axe": 9}}},
            "option weapons: axe must kill 1 to 4 zombies, not 9",
        ),
        ({"players": PEOPLE, "deadlines": ["soon"]}, "'soon' is not a duration such as 24h, 90m, 2d or 30s"),
        ({"players": PEOPLE, "deadlines": "0s"}, "'0s': a deadline must be between 1 second and 30 days"),
        ({"players": PEOPLE, "deadlines": {"votes": "6h"}}, "'votes' is not a request kind"),
        (
            {"players": PEOPLE, "timezone": "Mars/Olympus"},
            "'Mars/Olympus' is not an IANA time zone such as Europe/Rome",
        ),
        ({"players": PEOPLE, "timezone": "CEST+2"}, "'CEST+2' is not an IANA time zone such as Europe/Rome"),
        ({"players": PEOPLE, "seed": "7"}, "seed must be an integer"),
        ({"players": PEOPLE, "seed": True}, "seed must be an integer"),
        ({"players": PEOPLE, "colours": ["red"]}, "unknown field 'colours'"),
    ],
)
def test_a_bad_game_is_a_400_with_a_message_and_creates_nothing(
    embedded: Stack, body: dict[str, Any], message: str
) -> None:
    before = all_rows(embedded.db)
    reply = post_game(embedded, body)
    assert reply.status_code == 400
    assert reply.json["ok"] is False
    assert reply.json["error"].startswith(message), reply.json["error"]
    assert all_rows(embedded.db) == before


@pytest.mark.parametrize(
    ("body", "word"),
    [
        ({"players": PEOPLE, "options": "turn_order=strict"}, "options"),
        ({"players": PEOPLE, "options": ["turn_order", "strict"]}, "options"),
        ({"players": PEOPLE, "deadlines": [24]}, "24"),
        ({"players": PEOPLE, "avoid_quiet_hours": "no"}, "avoid_quiet_hours"),
        ({"players": PEOPLE, "close_decided_votes": "no"}, "close_decided_votes"),
    ],
)
def test_values_of_the_wrong_type_are_refused_not_ignored(embedded: Stack, body: dict[str, Any], word: str) -> None:
    before = all_rows(embedded.db)
    reply = post_game(embedded, body)
    assert reply.status_code == 400, reply.json
    assert word in reply.json["error"]
    assert all_rows(embedded.db) == before


def test_a_body_that_is_not_json_is_a_400(embedded: Stack) -> None:
    reply = embedded.client.post("/api/games", data="players=Ann", headers=AUTH, content_type="text/plain")
    assert reply.status_code == 400
    assert reply.json["error"].startswith("players must be a list")


def test_a_seed_out_of_the_databases_range_is_not_a_server_error(stack: Stack) -> None:
    before = all_rows(stack.db)
    reply = post_game(stack, {"players": PEOPLE, "seed": 2**40})
    assert (reply.status_code, reply.json) == (
        400,
        {"ok": False, "error": "seed must be an integer from 0 to 2147483647"},
    ), reply.get_data(as_text=True)[:300]
    assert all_rows(stack.db) == before


def test_a_game_is_created_with_colours_links_options_and_tempo(stack: Stack) -> None:
    body = {
        "players": [PEOPLE[0], {"name": "Bob", "email": "bob@example.org"}, "bot:random"],
        "options": {"turn_order": "strict", "weapons": {"axe": 2}},
        "deadlines": {"default": "12h", "vote": "6h"},
        "timezone": "Europe/Rome",
        "avoid_quiet_hours": False,
        "close_decided_votes": False,
        "seed": 5,
        "title": "Friday game",
    }
    reply = post_game(stack, body)
    assert reply.status_code == 201, reply.json
    game_id = reply.json["id"]
    assert isinstance(game_id, int)
    seats = reply.json["seats"]
    assert [s["colour"] for s in seats] == ["yellow", "red", "blue"]
    assert [s["player"] for s in seats] == [
        {"name": "Ann", "email": "ann@example.org"},
        {"name": "Bob", "email": "bob@example.org"},
        None,
    ]
    assert [s["bot"] for s in seats] == [None, None, "random"]
    assert seats[2]["link"] is None
    for seat in seats[:2]:
        assert seat["link"].startswith("http://deadmail.test/s/")
        token = seat["link"].removeprefix("http://deadmail.test/s/")
        assert stack.client.get(f"/api/seat/{token}").json["seat"]["colour"] == seat["colour"]
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        assert (game.seed, game.title, game.status) == (5, "Friday game", "running")
        assert game.options["turn_order"] == "strict"
        assert game.options["weapons"]["axe"] == 2
        assert game.tempo == {
            "durations": {"default": 12 * 3600, "vote": 6 * 3600},
            "timezone": "Europe/Rome",
            "avoid_quiet_hours": False,
            "close_decided_votes": False,
        }


@pytest.mark.parametrize(
    ("count", "colours"),
    [(4, ["red", "yellow", "blue", "green"]), (6, ["red", "yellow", "blue", "green", "black", "white"])],
)
def test_colours_for_larger_games(embedded: Stack, count: int, colours: list[str]) -> None:
    players = [f"P{i} <p{i}@example.org>" for i in range(count)]
    reply = post_game(embedded, {"players": players, "seed": 1})
    assert reply.status_code == 201
    assert [s["colour"] for s in reply.json["seats"]] == colours


# --- GET /api/games/<id> ------------------------------------------------------------------------------------------


def test_game_status_round_phase_owed_and_outcome(stack: Stack) -> None:
    reply = post_game(stack, {"players": [PEOPLE[0], "bot", PEOPLE[1]], "seed": 7})
    game_id, seats = reply.json["id"], reply.json["seats"]
    status = stack.client.get(f"/api/games/{game_id}", headers=AUTH)
    assert status.status_code == 200
    data = status.json
    assert (data["id"], data["status"], data["round"], data["phase"], data["outcome"]) == (
        game_id,
        "running",
        0,
        "setup",
        None,
    )
    assert data["window"]["number"] == 1
    assert data["owed"] == [
        {"colour": "yellow", "player": "Ann", "kind": "place", "answered": False},
        {"colour": "blue", "player": "Bob", "kind": "place", "answered": False},
    ]
    assert data["answered"] == ["red"]  # the bot answered at once

    token = seats[0]["link"].rsplit("/", 1)[1]
    option = stack.client.get(f"/api/seat/{token}").json["window"]["request"]["options"][0]
    assert stack.client.post(f"/api/seat/{token}/answer", json={"kind": "place", "answer": option}).status_code == 200
    data = stack.client.get(f"/api/games/{game_id}", headers=AUTH).json
    assert [o["colour"] for o in data["owed"]] == ["blue"]
    assert sorted(data["answered"]) == ["red", "yellow"]
    assert all(set(o) == {"colour", "player", "kind", "answered"} for o in data["owed"])  # never the answers
    assert json.dumps(option) not in status.get_data(as_text=True)

    missing = stack.client.get("/api/games/999999", headers=AUTH)
    assert (missing.status_code, missing.json) == (404, {"ok": False, "error": "there is no game 999999"})


def test_game_status_of_a_finished_game_has_its_outcome(stack: Stack) -> None:
    reply = post_game(stack, {"players": ["bot", "bot:random", "bot"], "seed": 4})
    assert reply.status_code == 201
    assert [s["link"] for s in reply.json["seats"]] == [None, None, None]
    data = stack.client.get(f"/api/games/{reply.json['id']}", headers=AUTH).json
    assert (data["status"], data["window"], data["owed"]) == ("over", None, [])
    assert data["phase"] == "over" or data["round"] >= 1
    assert set(data["outcome"]["winners"]) <= {"yellow", "red", "blue"}
    assert data["outcome"]["winners"]


# --- the deadmail command -----------------------------------------------------------------------------------------


def cli_env(stack: Stack) -> dict[str, str | None]:
    s = stack.settings
    return {
        "DEADMAIL_DATA_DIR": str(s.data_dir),
        "DATABASE_URL": s.database_url,
        "CELERY_BROKER_URL": s.broker_url,
        "DEADMAIL_SECRET_KEY": s.secret_key,
        "DEADMAIL_API_TOKEN": s.api_token,
        "DEADMAIL_BASE_URL": s.base_url,
    }


def run(env: dict[str, str | None], *args: str) -> Result:
    """Invoke ``deadmail`` in this process."""
    return CliRunner().invoke(main, list(args), env=env)


def leaks_of(env: dict[str, str | None], *args: str) -> tuple[Result, list[str]]:
    """Invoke ``deadmail`` and collect at once: a database connection it left open is a ResourceWarning here
    (psycopg warns when one is collected open), and not at a random later point of another test."""
    result = run(env, *args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.collect()
    return result, [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]


def assert_clean_error(result: Result, code: int, message: str) -> None:
    """A refused command: the exit status, one clear line on stderr, no traceback, nothing on stdout."""
    assert result.exit_code == code, (result.output, result.exception)
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.stdout == ""
    assert message in result.stderr, result.stderr


CREATE = [
    "game",
    "create",
    "--player",
    "Ann <ann@example.org>",
    "--player",
    "bot",
    "--player",
    "Bob <bob@example.org>",
    "--option",
    "turn_order=strict",
    "--deadline",
    "24h",
    "--deadline",
    "vote=6h",
    "--timezone",
    "Europe/Rome",
]


def test_cli_game_create_and_show_print_one_json_object(stack: Stack) -> None:
    env = cli_env(stack)
    created = run(env, *CREATE, "--json", "--seed", "7")
    assert created.exit_code == 0, created.output
    assert created.stdout.count("\n") == 1
    out = json.loads(created.stdout)
    game_id = out["id"]
    assert [(s["colour"], s["player"], s["bot"]) for s in out["seats"]] == [
        ("yellow", {"name": "Ann", "email": "ann@example.org"}, None),
        ("red", None, "sensible"),
        ("blue", {"name": "Bob", "email": "bob@example.org"}, None),
    ]
    assert out["seats"][1]["link"] is None
    for seat in (out["seats"][0], out["seats"][2]):
        token = seat["link"].removeprefix("http://deadmail.test/s/")
        assert stack.client.get(f"/api/seat/{token}").json["seat"]["colour"] == seat["colour"]
    with stack.db.session() as session:
        game = session.get(Game, game_id)
        assert game is not None
        assert game.options["turn_order"] == "strict"
        assert game.tempo == {
            "durations": {"default": 86400, "vote": 21600},
            "timezone": "Europe/Rome",
            "avoid_quiet_hours": True,
            "close_decided_votes": True,  # on unless the organiser says otherwise
        }

    shown = run(env, "game", "show", str(game_id), "--json")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.count("\n") == 1
    status = json.loads(shown.stdout)
    assert (status["id"], status["status"], status["round"], status["phase"], status["outcome"]) == (
        game_id,
        "running",
        0,
        "setup",
        None,
    )
    # strict turn order: one placement at a time, from the Chief; the bot is never waited for
    assert [(o["colour"], o["player"], o["kind"]) for o in status["owed"]] == [("yellow", "Ann", "place")]
    assert status == stack.client.get(f"/api/games/{game_id}", headers=AUTH).json

    # after the window times out, show follows the game
    window = status["window"]
    with stack.db.session() as session:
        wid, deadline = session.execute(
            sa.select(Window.id, Window.deadline).where(Window.game_id == game_id, Window.number == window["number"])
        ).one()
    assert turns.advance_window(stack.db, wid, now=deadline) is True
    later = json.loads(run(env, "game", "show", str(game_id), "--json").stdout)
    # the bot's own placement window (2) was answered at once: Bob's is next
    assert later["window"]["number"] == window["number"] + 2
    assert [(o["colour"], o["player"], o["kind"]) for o in later["owed"]] == [("blue", "Bob", "place")]


def test_cli_shows_a_finished_games_outcome_and_plain_text(stack: Stack) -> None:
    env = cli_env(stack)
    created = run(env, "game", "create", "--player", "bot", "--player", "bot", "--player", "bot:random", "--json")
    assert created.exit_code == 0, created.output
    game_id = json.loads(created.stdout)["id"]
    status = json.loads(run(env, "game", "show", str(game_id), "--json").stdout)
    assert (status["status"], status["owed"]) == ("over", [])
    assert status["outcome"]["winners"]
    text = run(env, "game", "show", str(game_id))
    assert text.exit_code == 0
    assert text.stdout.startswith(f"game {game_id}: over, round ")
    assert f"winners: {', '.join(status['outcome']['winners'])}" in text.stdout


def test_cli_with_only_a_data_dir_uses_the_embedded_defaults(tmp_path: Path) -> None:
    env: dict[str, str | None] = {
        "DEADMAIL_DATA_DIR": str(tmp_path / "fresh"),
        "DATABASE_URL": None,
        "CELERY_BROKER_URL": None,
        "DEADMAIL_SECRET_KEY": None,
        "DEADMAIL_API_TOKEN": None,
        "DEADMAIL_BASE_URL": None,
    }
    created = run(env, *CREATE, "--json")
    assert created.exit_code == 0, created.output
    out = json.loads(created.stdout)
    assert out["seats"][0]["link"].startswith("http://127.0.0.1:8080/s/")
    assert (tmp_path / "fresh" / "deadmail.db").exists()
    assert (tmp_path / "fresh" / "secret_key").exists()
    shown = run(env, "game", "show", str(out["id"]), "--json")
    assert json.loads(shown.stdout)["status"] == "running"


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["game", "create", "--player", "Ann <ann@example.org>", "--player", "bot"], 1, "Error: 2 players"),
        ([*CREATE, "--player", "Ann <ann@example.org>"], 1, "Error: the same e-mail address is given for two seats"),
        ([*CREATE, "--player", "Dee <dee>"], 1, "Error: 'Dee <dee>' is neither 'Name <email>' nor 'bot'"),
        (
            [*CREATE, "--option", "turn_order=sideways"],
            1,
            "Error: option turn_order: 'sideways' is not one of batched, strict",
        ),
        ([*CREATE, "--option", "speed=fast"], 1, "Error: unknown option 'speed'"),
        ([*CREATE, "--option", "turn_order"], 1, "Error: --option 'turn_order': write key=value"),
        ([*CREATE, "--deadline", "soon"], 1, "Error: 'soon' is not a duration such as 24h, 90m, 2d or 30s"),
        ([*CREATE, "--deadline", "votes=6h"], 1, "Error: 'votes' is not a request kind"),
        ([*CREATE, "--timezone", "Mars/Olympus"], 1, "Error: 'Mars/Olympus' is not an IANA time zone"),
        (["game", "create", "--json"], 2, "Missing option '--player'"),
        ([*CREATE, "--seed", "seven"], 2, "'seven' is not a valid integer"),
        (["game", "show", "999999"], 1, "Error: there is no game 999999"),
        (["game", "show", "abc"], 2, "'abc' is not a valid integer"),
        (["game", "frobnicate"], 2, "No such command 'frobnicate'"),
    ],
)
def test_cli_errors_are_one_clear_line(stack: Stack, args: list[str], code: int, message: str) -> None:
    before = all_rows(stack.db)
    result = run(cli_env(stack), *args)
    assert_clean_error(result, code, message)
    if code == 1:
        assert len([line for line in result.stderr.splitlines() if line.strip()]) == 1
    assert all_rows(stack.db) == before


def test_cli_option_with_broken_json_is_a_clear_error(embedded: Stack) -> None:
    result = run(cli_env(embedded), *CREATE, "--option", "weapons={axe: 2")
    assert_clean_error(result, 1, "weapons")


def test_cli_with_an_unreachable_database_is_a_clear_error(tmp_path: Path) -> None:
    env: dict[str, str | None] = {
        "DEADMAIL_DATA_DIR": str(tmp_path / "data"),
        "DATABASE_URL": "postgresql+psycopg://postgres@127.0.0.1:1/nothing",
        "CELERY_BROKER_URL": None,
    }
    result = run(env, "game", "show", "1", "--json")
    assert_clean_error(result, 1, "Error: ")


def test_cli_closes_its_database_connections(stack: Stack) -> None:
    env = cli_env(stack)
    created, leaks = leaks_of(env, "game", "create", "--player", "bot", "--player", "bot", "--player", "bot", "--json")
    assert created.exit_code == 0, created.output
    assert leaks == []
    shown, leaks = leaks_of(env, "game", "show", str(json.loads(created.stdout)["id"]), "--json")
    assert shown.exit_code == 0, shown.output
    assert leaks == []


def test_cli_game_create_can_keep_decided_votes_open(embedded: Stack) -> None:
    """``--keep-decided-votes-open``: the tempo's close_decided_votes is false (a vote waits for every voter)."""
    created = run(cli_env(embedded), *CREATE, "--json", "--keep-decided-votes-open")
    assert created.exit_code == 0, created.output
    with embedded.db.session() as session:
        game = session.get(Game, json.loads(created.stdout)["id"])
        assert game is not None and game.tempo["close_decided_votes"] is False


def test_a_demo_that_loses_its_server_says_so_in_one_line(embedded: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    """``deadmail demo --auto`` against a ``deadmail up`` that stops mid-game: one line, no traceback."""
    from server.run import cli

    def lost(*_args: Any, **_kwargs: Any) -> dict[str, Any]:
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(cli, "run_auto", lost)
    result = run(cli_env(embedded), "demo", "--auto", "--players", "3")
    assert_clean_error(result, 1, "the demo lost its server")
    assert "did deadmail up stop?" in result.stderr


def test_the_demo_names_its_player_and_prints_the_mailbox_page(stack: Stack) -> None:
    """``deadmail demo --email you@example.org`` plays as "Player" (never "You": mails greet the player by
    name and the story tells of them in the third person), a named address as its name; it prints the mailbox
    page's address (the one ``deadmail up`` prints), not the mail folder."""
    env = cli_env(stack)
    made = run(env, "demo", "--email", "you@example.org", "--players", "3")
    assert made.exit_code == 0, made.output
    mailbox = f"{stack.settings.base_url}/mail/{mailbox_token(stack.settings.secret_key)}"
    assert f"your mail: {mailbox}\n" in made.stdout and str(stack.settings.mail_dir) not in made.stdout
    again = run(env, "demo", "--email", "Ann.Smith@example.org", "--players", "3")
    assert again.exit_code == 0, again.output
    with stack.db.session() as session:
        names = dict(session.execute(sa.select(Player.email, Player.display_name)).all())
        first = session.execute(sa.select(Outbox.id).order_by(Outbox.id)).scalars().first()
    assert names == {"you@example.org": "Player", "ann.smith@example.org": "Ann Smith"}
    assert first is not None
    message = compose(stack.db, first, mail_settings(stack.settings))
    assert message is not None and "you@example.org" in str(message["To"])
    mail = text_of(message)
    assert "Hello Player," in mail and "You (" not in mail
