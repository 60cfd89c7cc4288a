"""The ``deadmail`` command."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import click
import waitress
from flask import Flask
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from engine.shapes import JSONObject

from ..config import Settings, prepare_data_dir, remember_served_url
from ..db import Database
from ..mail.inbound import serve
from ..models import utcnow
from ..services import inputs, presets
from ..services.errors import ShownError
from ..services.leagues import api, promotion, recorded, seasons, standings
from ..services.leagues import rounds as league_rounds
from ..services.links import LinkError, mailbox_token
from ..services.play import estimate, games
from ..services.play.seats import rotate_link
from ..services.tempo import check_timezone, parse_duration, parse_play_hours
from ..web.app import create_app
from .demo import player_name, run_auto
from .migrate import upgrade
from .processes import Supervised, announce_up, local_url, private_umask, running_up, withdraw_up
from .queue import Queue

if TYPE_CHECKING:
    from .live import Background


def web_app(settings: Settings | None = None) -> Flask:
    """The web app of this installation's settings, its database handing work to the task queue."""
    settings = settings or prepare_data_dir(Settings.from_env())
    return create_app(settings, Database(settings.database_url, tasks=Queue(settings)))


def _settings() -> Settings:
    try:
        return prepare_data_dir(Settings.from_env())
    except ValueError as exc:  # e.g. a malformed DEADMAIL_SMTP_URL: one line, not a traceback
        raise click.ClickException(str(exc)) from None


@click.group()
def main() -> None:
    """deadmail: Mall of Horror by e-mail and web links."""


@main.command()
def migrate() -> None:
    """Create the database or bring it to the latest schema."""
    settings = _settings()
    upgrade(settings.database_url)
    click.echo(f"database ready: {settings.database_url}")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8080, show_default=True, type=int)
def up(host: str, port: int) -> None:
    """Start everything on this machine: database, web server, live server (port + 1), worker and beat (the embedded
    default)."""
    private_umask()  # the data folder's files are the owner's only, the worker's too
    settings = _settings()
    if not os.environ.get("DEADMAIL_BASE_URL"):  # links, made here or by other commands, point where we listen
        settings = replace(settings, base_url=f"http://{host}:{port}")
        remember_served_url(settings.data_dir, settings.base_url)
    click.echo("preparing the database …", err=True)
    upgrade(settings.database_url)
    pages = None
    if not settings.live_url:  # open seat pages listen on the next port (or any free one when it is taken)
        pages = _live_server(settings, host, port + 1)
        settings = replace(settings, live_url=f"{urlsplit(settings.base_url).scheme}://{host}:{pages.port}")
    try:  # bound before anything starts: a port in use is told at once, and nothing is left running
        server = waitress.create_server(web_app(settings), host=host, port=port, threads=8)
    except OSError as exc:
        if pages is not None:
            pages.stop()
        raise click.ClickException(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}): is a deadmail up already running there? "
            "Another port: deadmail up --port 8081"
        ) from exc
    click.echo("starting the worker …", err=True)
    worker = Supervised(settings)
    for stopped_by in (signal.SIGTERM, signal.SIGHUP):  # a service manager, a closed terminal: like Ctrl+C
        signal.signal(stopped_by, _interrupt)
    announced = announce_up(settings, local_url(host, port))  # ``deadmail demo --auto`` plays here
    try:
        click.echo(f"deadmail is running at http://{host}:{port}/  (links use {settings.base_url})")
        click.echo(f"data: {settings.data_dir}   mail is written to {settings.mail_dir}")
        if not settings.smtp_url:
            click.echo(f"Mail (files): {settings.base_url}/mail/{mailbox_token(settings.secret_key)}")
        click.echo(
            f"organisers: {settings.base_url}/o/  (token in {settings.data_dir / 'api_token'}, or DEADMAIL_API_TOKEN)"
        )
        click.echo("create a game to play:  deadmail demo --email you@example.org      stop: Ctrl+C")
        sys.stdout.flush()
        server.run()  # until Ctrl+C (waitress stops its threads and returns)
    finally:
        for stopped_by in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # stopping: a second Ctrl+C waits for it
            signal.signal(stopped_by, signal.SIG_IGN)
        withdraw_up(announced)
        worker.stop()
        if pages is not None:
            pages.stop()
        server.close()
        click.echo("stopped", err=True)


@main.command(name="live")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8081, show_default=True, type=int)
def live_server(host: str, port: int) -> None:
    """Serve open seat pages their games' changes (Server-Sent Events); set DEADMAIL_LIVE_URL to where browsers
    reach it."""
    settings = _settings()
    click.echo(f"live server at http://{host}:{port}/live/  (pages reach it at {settings.live_url or 'nowhere yet'})")
    sys.stdout.flush()
    from .live import serve as serve_live

    serve_live(settings, Database(settings.database_url), host, port)


def _live_server(settings: Settings, host: str, port: int) -> Background:
    """The live server of ``deadmail up`` on ``port``, or on any free port when that one is taken."""
    from . import live  # (here: aiohttp is for the live server only, not every command)

    try:
        return live.Background(settings, Database(settings.database_url), host, port).start()
    except OSError:
        return live.Background(settings, Database(settings.database_url), host, 0).start()


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


@main.command()
@click.option("--port", default=2525, show_default=True, type=int)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--lmtp", is_flag=True, help="speak LMTP (behind Postfix or another MTA) instead of SMTP")
def inbound(port: int, host: str, lmtp: bool) -> None:
    """Listen for replies by mail (to signed addresses at DEADMAIL_REPLY_DOMAIN) and apply them."""
    settings = _settings()
    if not settings.reply_domain:
        raise click.ClickException("set DEADMAIL_REPLY_DOMAIN: replies are taken only at that domain")

    def progress(line: str) -> None:
        click.echo(line)
        sys.stdout.flush()

    signal.signal(signal.SIGTERM, _interrupt)
    with database(settings) as db:
        try:
            serve(settings, db, (host, port), lmtp, progress)
        except KeyboardInterrupt:
            click.echo("stopping …", err=True)
        except OSError as exc:
            raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from None


@main.group()
def game() -> None:
    """Create and inspect games."""


@game.command("create")
@click.option("--player", "players", multiple=True, required=True, help="'Name <email>' or 'bot' (3 to 6 times)")
@click.option("--option", "options", multiple=True, help="a RULES.md section G option, key=value")
@click.option("--deadline", "deadlines", multiple=True, help="24h for every request, or kind=6h")
@click.option("--timezone", default="UTC", show_default=True, help="the game's IANA time zone")
@click.option("--no-quiet-hours", is_flag=True, help="deadlines may fall in players' quiet hours")
@click.option("--last-call", default=None, help="when one player is left to answer, their time shrinks to this (4h)")
@click.option("--play-hours", default=None, help="daily sessions, such as 'Mon-Sun 20:30-22:00 Europe/Rome'")
@click.option("--play-deadline", default="10m", show_default=True, help="with --play-hours: time to answer")
@click.option(
    "--keep-decided-votes-open", is_flag=True, help="a vote waits for every voter even once its outcome is decided"
)
@click.option("--preset", default=None, type=click.Choice(sorted(presets.PRESETS)), help="a tempo preset")
@click.option(
    "--autopilot-after",
    type=click.IntRange(0, 20),
    default=None,
    help="missed deadlines in a row that put a seat on autopilot (0: never; default 2)",
)
@click.option(
    "--absence",
    type=click.Choice(["autopilot", "extend"]),
    default=None,
    help="what a declared absence does: autopilot (default) or extend the player's deadlines",
)
@click.option("--absence-budget", default=None, help="with --absence extend: the most a seat's deadlines wait (3d)")
@click.option("--seed", type=int, default=None)
@click.option("--title", default="")
@click.option("--estimate", is_flag=True, help="print how long the game would take; create nothing")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def game_create(**given: Any) -> None:
    """Create and start a game; prints its id and each seat's colour, player and signed link (with --estimate,
    only how long it would take)."""
    settings = _settings()
    as_json = given["as_json"]
    last_call, play_hours = given["last_call"], given["play_hours"]
    try:
        spec = games.GameSpec(
            players=[games.parse_player(p) for p in given["players"]],
            options=_options(given["options"]),
            deadlines=presets.explicit_deadlines(given["deadlines"]),
            timezone=check_timezone(given["timezone"]),
            avoid_quiet_hours=not given["no_quiet_hours"],
            seed=given["seed"],
            title=given["title"],
            preset=given["preset"],
            last_call=None if last_call is None else parse_duration(last_call),
            play_hours=None if play_hours is None else parse_play_hours(play_hours, given["play_deadline"]),
            close_decided_votes=False if given["keep_decided_votes_open"] else None,
            absences=games.absence_options(
                {
                    "autopilot_after": given["autopilot_after"],
                    "absence": given["absence"],
                    "absence_budget": given["absence_budget"],
                }
            ),
        )
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    if given["estimate"]:
        _estimate(settings, spec, as_json)
        return
    with database(settings) as db:
        try:
            created = games.create_game(db, spec)
        except games.GameError as exc:
            raise click.ClickException(str(exc)) from None
        seats = games.seat_links(db, created.game_id, settings.secret_key, settings.base_url)
    if as_json:
        click.echo(json.dumps({"id": created.game_id, "seats": seats}))
        return
    click.echo(f"game {created.game_id} started")
    for seat in seats:
        who = f"{seat['player']['name']} <{seat['player']['email']}>" if seat["player"] else f"bot ({seat['bot']})"
        click.echo(f"  {seat['colour']:7} {who}\n          {seat['link'] or ''}")


def _estimate(settings: Settings, spec: games.GameSpec, as_json: bool) -> None:
    if not as_json:
        click.echo(f"simulating {estimate.ESTIMATE_GAMES} games …", err=True)
    with database(settings) as db:
        try:
            figures = games.estimate_game(db, spec)
        except games.GameError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(figures))
        return
    click.echo(
        f"about {figures['days_median']:g} days (9 games in 10: at most {figures['days_p90']:g}), "
        f"{figures['windows_median']:g} decisions; {figures['defaulted_share']:.0%} of answers would be defaulted"
    )
    click.echo(f"model: {figures['model']}")


@game.command("show")
@click.argument("game_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def game_show(game_id: int, as_json: bool) -> None:
    """A game's status, round, phase, who still owes what, and the outcome."""
    with database(_settings()) as db:
        try:
            status = games.game_status(db, game_id)
        except games.GameError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(status))
        return
    click.echo(f"game {status['id']}: {status['status']}, round {status['round']}, phase {status['phase']}")
    for owed in status["owed"]:
        click.echo(f"  waiting for {owed['colour']} ({owed['player']}): {owed['kind']}")
    if status["outcome"]:
        click.echo(f"  winners: {', '.join(status['outcome']['winners'])}")


@game.command("link")
@click.argument("game_id", type=int)
@click.argument("colour")
@click.option("--rotate", is_flag=True, help="revoke the seat's earlier links and print a new one")
def game_link(game_id: int, colour: str, rotate: bool) -> None:
    """Print a seat's signed link (with --rotate, after revoking every earlier one)."""
    settings = _settings()
    with database(settings) as db:
        try:
            if rotate:
                rotate_link(db, game_id, colour)
            seats = games.seat_links(db, game_id, settings.secret_key, settings.base_url)
        except LinkError as exc:
            raise click.ClickException(str(exc)) from None
    link = next((s["link"] for s in seats if s["colour"] == colour and s["link"]), None)
    if link is None:
        raise click.ClickException(f"game {game_id} has no seat {colour!r} played by a person")
    click.echo(link)


@main.command()
@click.option("--email", default="you@example.org", show_default=True, help="your e-mail: the mail goes there")
@click.option("--name", default=None, help="your name at the table  [default: from your address, or Player]")
@click.option("--players", default=4, show_default=True, type=click.IntRange(3, 6))
@click.option("--auto", is_flag=True, help="play a whole game of bots through HTTP, broker, worker and database")
@click.option("--deadline", default="5s", show_default=True, help="with --auto: every request's deadline")
@click.option("--seed", type=int, default=None)
def demo(email: str, name: str | None, players: int, auto: bool, deadline: str, seed: int | None) -> None:
    """Start a game against bots at once (or, with --auto, watch bots play one through the whole system)."""
    settings = _settings()
    if auto:
        try:
            parse_duration(deadline)  # refused before a server starts
        except ShownError as exc:
            raise click.BadParameter(str(exc), param_hint="--deadline") from None
        private_umask()  # as ``deadmail up``: it starts a web server and a worker on the data folder
        try:
            played = run_auto(settings, players, deadline, seed, progress=sys.stderr)
        except OSError as exc:  # the server went away mid-game (a deadmail up stopped)
            raise click.ClickException(f"the demo lost its server ({exc}): did deadmail up stop?") from exc
        click.echo(json.dumps(played))
        return
    spec = games.GameSpec(
        players=[games.PlayerSpec(name=name or player_name(email), email=email.lower())]
        + [games.PlayerSpec(bot="sensible") for _ in range(players - 1)],
        seed=seed,
    )
    with database(settings) as db:
        try:
            created = games.create_game(db, spec)
        except games.GameError as exc:
            raise click.ClickException(str(exc)) from None
        link = games.seat_links(db, created.game_id, settings.secret_key, settings.base_url)[0]["link"]
    click.echo(f"game {created.game_id}: you play against {players - 1} bots. Open your seat:\n\n    {link}\n")
    if running_up(settings) is None:
        click.echo("deadmail up is not running on this data folder: start it (deadmail up) to open the link")
    if settings.smtp_url:
        click.echo(f"your mail is sent to {email.lower()}")
    else:  # the page ``deadmail up`` prints: the mail written to files, read in the browser
        click.echo(f"your mail: {settings.base_url}/mail/{mailbox_token(settings.secret_key)}")


def _options(pairs: tuple[str, ...]) -> JSONObject:
    options: JSONObject = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise games.GameError(f"--option {pair!r}: write key=value, e.g. turn_order=strict")
        value = value.strip()
        try:
            options[key.strip()] = inputs.parse_json(value) if value.startswith("{") else value
        except inputs.InputError as exc:
            raise games.GameError(f"--option {key.strip()}: {value[:80]!r}: {exc}") from None
    return options


@main.group()
def league() -> None:
    """Leagues: seasons of games under the same rules."""


@league.command("create")
@click.option("--name", required=True, help="the league's name (at most 80 characters)")
@click.option("--language", default="en", show_default=True, help="en, it or pl")
@click.option("--timezone", default="UTC", show_default=True, help="the league's IANA time zone")
@click.option("--size", "table_size", default=5, show_default=True, type=int, help="players per table, 3 to 6")
@click.option("--option", "options", multiple=True, help="a RULES.md section G option, key=value")
@click.option("--preset", default=None, help="the tempo preset of the league's games")
@click.option("--scoring", default="placement", show_default=True, help="placement, victory_points or wins")
@click.option("--tie-break", "tie_breaks", multiple=True, help="in order: victory_points, wins, average_placement, …")
@click.option("--forfeit", default="last", show_default=True, help="last, zero or as_played")
@click.option("--public", "standings_public", is_flag=True, help="standings visible to anyone with the public link")
@click.option("--email", "organiser_email", default=None, help="the organiser's address (a round not seated)")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object: the id and each link's token and url")
def league_create(as_json: bool, **given: Any) -> None:
    """Create a league; prints its links' addresses (invite, organiser, public) and what to do next."""
    settings = _settings()
    chosen = list(given.pop("tie_breaks"))
    try:
        spec = seasons.LeagueSpec(**given | {"options": _options(given["options"])})
        spec.tie_breaks = chosen or spec.tie_breaks
        with database(settings) as db:
            league_id = seasons.create_league(db, spec, now=utcnow())
            tokens = {which: seasons.league_link(db, settings.secret_key, league_id, which) for which in seasons.LINKS}
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    links = {k: {"token": t, "url": seasons.link_url(settings.base_url, k, t)} for k, t in tokens.items()}
    text = "\n".join(
        [
            f"league {league_id} created",
            f"organiser (its pages; keep it to yourself): {links['organiser']['url']}",
            f"invitation (players sign up there once a season takes sign-ups): {links['invite']['url']}",
            f"public (standings when public, calendar): {links['public']['url']}",
            f"next: create a season (deadmail season create --league {league_id} …, or from the organiser link),"
            " then invite players (deadmail league invite)",
        ]
    )
    _league_out({"id": league_id, "links": links}, as_json, text)


def _league_out(data: object, as_json: bool, text: str) -> None:
    click.echo(json.dumps(data) if as_json else text)


@league.command("invite")
@click.option("--league", "league_id", required=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@click.argument("addresses", nargs=-1, required=True)
def league_invite(league_id: int, as_json: bool, addresses: tuple[str, ...]) -> None:
    """Mail each address the league's invitation link, in the league's language (held until a season of the league
    takes sign-ups, then mailed)."""
    try:
        with database(_settings()) as db:
            mailed = seasons.invite(db, league_id, list(addresses), utcnow())
            held = set(seasons.held_invitations(db, league_id)) & set(mailed)
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    text = f"league {league_id}: an invitation is on its way to " + ", ".join(mailed)
    if held:
        text = f"league {league_id}: no season takes sign-ups yet; the invitations wait until one does: " + ", ".join(
            mailed
        )
    _league_out({"league": league_id, "invited": mailed, "held": bool(held)}, as_json, text)


def _link_options(command: Callable[..., None]) -> Callable[..., None]:
    """--league, --kind and --json of ``league link`` and ``league revoke``."""
    command = click.option("--json", "as_json", is_flag=True, help="print one JSON object")(command)
    command = click.option("--kind", "which", required=True, type=click.Choice(seasons.LINKS), help="its kind")(command)
    return click.option("--league", "league_id", required=True, type=int)(command)


def _current_link(league_id: int, which: str, as_json: bool, *, revoke: bool) -> None:
    """Print the league's link of kind ``which`` (revoked first, with ``revoke``): its URL, or one JSON object."""
    settings = _settings()
    try:
        with database(settings) as db:
            if revoke:
                seasons.revoke(db, league_id, which)
            token = seasons.league_link(db, settings.secret_key, league_id, which)
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    url = seasons.link_url(settings.base_url, which, token)
    said = f"the earlier {which} links of league {league_id} no longer work; the new one:\n{url}" if revoke else url
    _league_out({"league": league_id, "kind": which, "token": token, "url": url}, as_json, said)


@league.command("link")
@_link_options
def league_link(league_id: int, which: str, as_json: bool) -> None:
    """Print the league's current link of a kind (invite: sign-ups; organiser; public: standings, calendar)."""
    _current_link(league_id, which, as_json, revoke=False)


@league.command("revoke")
@_link_options
def league_revoke(league_id: int, which: str, as_json: bool) -> None:
    """Revoke the league's link of a kind: earlier links of that kind stop working; prints the new one."""
    _current_link(league_id, which, as_json, revoke=True)


class Instant(click.ParamType[datetime]):
    """An ISO 8601 time given on the command line (no offset: UTC), in UTC, read by ``inputs.instant``: a usage
    error (exit 2, one line) when it is not one or not in ``inputs.YEARS``."""

    name = "time"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> datetime:
        if isinstance(value, datetime):
            return value
        try:
            return inputs.instant(str(value), "the time", naive=UTC)
        except inputs.InputError as exc:
            unread = exc.msgid == inputs.BAD_INSTANT
            self.fail(f"{str(value)[:40]!r}: give a time such as 2031-03-01T18:00" if unread else str(exc), param, ctx)


SIGNUP_CLOSES = "when sign-ups close: 2031-03-01T18:00+01:00 (no offset: UTC), in the years 2000 to 2999"


@main.group()
def season() -> None:
    """A league's seasons."""


@season.command("create")
@click.option("--league", "league_id", required=True, type=int)
@click.option("--signup-closes", required=True, type=Instant(), help=SIGNUP_CLOSES)
@click.option("--rounds", required=True, type=int, help="1 to 52")
@click.option("--schedule", default="when_over", show_default=True, type=click.Choice(seasons.SCHEDULES))
@click.option("--weekday", type=int, default=None, help="with --schedule fixed: 0 (Monday) to 6 (Sunday)")
@click.option(
    "--time", "clock", default=None, help="with --schedule fixed: the round start, HH:MM in the league's zone"
)
@click.option("--max-players", type=int, default=None, help="at most this many confirmed players (default: no limit)")
@click.option("--divisions", type=int, default=None, help="divisions by rating, 1 to 20 (default: none)")
@click.option("--promote", type=int, default=0, show_default=True, help="players promoted and relegated, 0 to 20")
def season_create(
    league_id: int,
    signup_closes: datetime,
    rounds: int,
    schedule: str,
    weekday: int | None,
    clock: str | None,
    **sizes: int | None,
) -> None:
    """Create the league's next season; prints one JSON object: its id and number."""
    settings = _settings()
    rule = None if schedule == "when_over" else {"weekday": weekday, "time": clock}
    try:
        with database(settings) as db:
            season_id = seasons.create_season(
                db, league_id, signup_closes, rounds, schedule, rule, now=utcnow(), sizes=seasons.Sizes(**sizes)
            )
            number = seasons.season_number(db, season_id)
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(json.dumps({"id": season_id, "league": league_id, "number": number}))


def _standings_text(shown: api.StandingsJSON) -> str:
    """The standings as lines: each division's rows, then the substitutes'."""
    season = shown["season"]
    lines = [f"season {season['number']} of league {season['league']} ({season['status']})"]
    groups = [(f"division {d['name']}" if d["name"] else "standings", d["rows"]) for d in shown["divisions"]]
    for title, rows in [*groups, ("substitutes", shown["substitutes"])]:
        if not rows and title == "substitutes":
            continue
        lines.append(f"{title}:")
        lines += [
            f"  {r['rank']}. {r['name']} (player {r['player']}): {r['points']:g} points, {r['games']} games, "
            f"{r['wins']} wins, {'-' if r['victory_points'] is None else r['victory_points']} victory points, "
            "average place " + ("-" if r["average_place"] is None else f"{r['average_place']:.2f}")
            for r in rows
        ]
        if not rows:
            lines.append("  no result yet")
    return "\n".join(lines)


@season.command("standings")
@click.option("--season", "season_id", required=True, type=int)
@click.option("--csv", "as_csv", is_flag=True, help="print the standings as CSV")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object: the divisions' rows, the substitutes'")
def season_standings(season_id: int, as_csv: bool, as_json: bool) -> None:
    """Print a season's standings: per division, rank, player, points, games, wins, victory points, average place."""
    if as_csv and as_json:
        raise click.UsageError("give --csv or --json, not both")
    try:
        with database(_settings()) as db:
            if as_csv:
                click.echo(standings.csv(db, season_id), nl=False)
                return
            shown = api.standings_json(db, season_id, emails=True)
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    _said(as_json, shown, _standings_text(shown))


@season.command("next")
@click.option("--season", "season_id", required=True, type=int)
@click.option("--signup-closes", required=True, type=Instant(), help=SIGNUP_CLOSES)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object: the new season's id and number")
def season_next(season_id: int, signup_closes: datetime, as_json: bool) -> None:
    """Create the next season of a finished one: its players carried over, each mailed to confirm; promotion and
    relegation between divisions."""
    try:
        with database(_settings()) as db:
            created = promotion.next_season(db, season_id, signup_closes, utcnow())
            league_id, number = api.season_league(db, created), seasons.season_number(db, created)
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    text = f"season {number} of league {league_id} created (id {created}): its players are mailed to confirm"
    _said(as_json, {"id": created, "league": league_id, "number": number}, text)


def _points(text: str) -> dict[str, int]:
    """``--points red=12,blue=9``: victory points per colour; a clear message for any other text."""
    points: dict[str, int] = {}
    for part in text.split(","):
        colour, equals, value = (piece.strip() for piece in part.partition("="))
        if not (colour and equals and value.isdigit() and len(value) <= 6) or colour in points:
            raise click.ClickException(
                f"--points {text[:60]!r}: give each colour once with its victory points, such as red=12,blue=9"
            )
        points[colour] = int(value)
    return points


@season.command("record")
@click.option("--game", "game_id", required=True, type=int)
@click.option("--points", required=True, help="victory points per colour: red=12,blue=9,…")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
def season_record(game_id: int, points: str, as_json: bool) -> None:
    """Record the result of an abandoned league game: every colour's victory points."""
    given = _points(points)
    try:
        with database(_settings()) as db:
            recorded.record_result(db, game_id, given, utcnow())
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    _said(as_json, {"game": game_id, "recorded": True, "points": given}, f"the result of game {game_id} is recorded")


@main.group("round")
def round_group() -> None:
    """A season's rounds: plan (preview the tables), swap two players, start."""


def _said(as_json: bool, data: object, text: str) -> None:
    click.echo(json.dumps(data) if as_json else text)


def _tables_text(db: Database, tables: list[list[int]]) -> str:
    """ "  table 1: Ann (4), Bruno (7), Ola (9)": each player's name and the id ``round swap`` takes."""
    named = league_rounds.names(db, (pid for table in tables for pid in table))
    lines = []
    for t, table in enumerate(tables, 1):
        lines.append(f"  table {t}: " + ", ".join(f"{named.get(pid, '?')} ({pid})" for pid in table))
    return "\n".join(lines)


@round_group.command("plan")
@click.option("--season", "season_id", required=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object: the round's id and tables")
def round_plan(season_id: int, as_json: bool) -> None:
    """Plan the season's next round (or plan its planned round again): the tables, by name and player id."""
    try:
        with database(_settings()) as db:
            round_id = league_rounds.plan(db, season_id, utcnow())
            tables = league_rounds.tables(db, round_id)
            text = f"round {round_id} planned:\n{_tables_text(db, tables)}"
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    _said(as_json, {"round": round_id, "tables": tables}, text)


@round_group.command("swap")
@click.option("--round", "round_id", required=True, type=int)
@click.argument("first", type=int)
@click.argument("second", type=int)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object: the round's id and new tables")
def round_swap(round_id: int, first: int, second: int, as_json: bool) -> None:
    """Swap two players (by id) between the tables of a planned round."""
    try:
        with database(_settings()) as db:
            tables = league_rounds.swap(db, round_id, first, second)
            text = f"players {first} and {second} swapped:\n{_tables_text(db, tables)}"
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    _said(as_json, {"round": round_id, "tables": tables}, text)


@round_group.command("start")
@click.option("--round", "round_id", required=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="print one JSON object: the round's id and its games' ids")
def round_start(round_id: int, as_json: bool) -> None:
    """Start a planned round: one game per table, each player mailed their table."""
    try:
        with database(_settings()) as db:
            game_ids = league_rounds.start(db, round_id, utcnow())
    except ShownError as exc:
        raise click.ClickException(str(exc)) from None
    text = f"round {round_id} started: games {', '.join(map(str, game_ids))}"
    _said(as_json, {"round": round_id, "games": game_ids}, text)


@contextmanager
def database(settings: Settings) -> Iterator[Database]:
    """The migrated database for one command, closed afterwards; a clear message when it cannot be reached. Its
    after-commit work (a new game's mail, a reply's advance) goes to the task queue."""
    try:
        upgrade(settings.database_url)
    except OperationalError as exc:
        where = make_url(settings.database_url).render_as_string(hide_password=True)
        raise click.ClickException(f"cannot reach the database {where}: {str(exc.orig).splitlines()[0]}") from None
    db = Database(settings.database_url, tasks=Queue(settings))
    try:
        yield db
    finally:
        db.dispose()
