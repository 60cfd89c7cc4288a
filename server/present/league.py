"""League rounds shown: a player's table in their fixtures mail, and the league organiser's pages (the
league, a season, a round's tables), in the reader's language. Plain data in, plain data out: no database."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from datetime import datetime
from typing import Any

from babel import Locale
from babel.dates import format_time, get_day_names

from ..models import LANGUAGES, StallJSON, TempoJSON
from ..services.channel.channels import ChannelShown
from ..services.inputs import one_line
from ..services.leagues import scoring
from ..services.leagues.rounds import EntryItem, LeagueOverview, RoundShown, SeasonOverview, unseated_reason
from ..services.leagues.seasons import TABLE_SIZES
from ..services.presets import PRESETS
from ..text import glossary
from ..text.i18n import DATE_LOCALES, format_when, translations
from ..text.i18n import language as pick
from ..text.i18n import zone as tz_of
from ..text.refusals import refusal


def clock(zone: str, now: datetime, lang: str) -> str:
    """The local time now in ``zone``: "18:05 CET"."""
    tz = tz_of(zone)
    local = now.astimezone(tz)
    return f"{format_time(local, 'short', tzinfo=tz, locale=DATE_LOCALES[pick(lang)])} {local.tzname()}"


def opponent_line(lang: str, name: str, zone: str, now: datetime) -> str:
    """ "Bea: Europe/Rome (now 18:05 CET)"."""
    t = translations(lang)
    return t.gettext("%(name)s: %(zone)s (now %(time)s)") % {"name": name, "zone": zone, "time": clock(zone, now, lang)}


def tempo_text(lang: str, tempo: TempoJSON) -> str:
    """The game's tempo: its preset's name, or the time for each decision."""
    t = translations(lang)
    preset = PRESETS.get(tempo.get("preset", ""))
    if preset is not None:
        return t.gettext("Tempo: %(preset)s.") % {"preset": t.gettext(preset.title)}
    hours = tempo["durations"].get("default", 86400) // 3600
    return t.ngettext("Tempo: %(num)d hour for each decision.", "Tempo: %(num)d hours for each decision.", hours) % {
        "num": hours
    }


def estimate_text(lang: str, figures: dict[str, Any]) -> str:
    """ "The game should take about 12 days (9 games in 10 within 15)."."""
    t = translations(lang)
    median, p90 = round(float(figures.get("days_median") or 0)), round(float(figures.get("days_p90") or 0))
    return t.gettext("The game should take about %(days)s days (9 games in 10 within %(most)s).") % {
        "days": max(median, 1),
        "most": max(p90, 1),
    }


def league_page(lang: str, league: LeagueOverview) -> dict[str, object]:
    """The league organiser's page: the league's settings, and its seasons with their counts."""
    t = translations(lang)
    preset = PRESETS.get(league.preset or "")
    return {
        **asdict(league),
        "preset_name": t.gettext(preset.title) if preset else t.gettext("plain (24 hours for each decision)"),
        "scoring_name": scoring_name(lang, league.scoring or ""),
        "language_name": Locale.parse(pick(league.language or "en")).get_display_name(DATE_LOCALES[pick(lang)]),
        "seasons": [{**asdict(s), "status_name": status_name(lang, s.status, "season")} for s in league.seasons],
    }


def channel_state(lang: str, channel: ChannelShown | None, zone: str, now: datetime) -> dict[str, object] | None:
    """A league's webhook channel as its organiser's page shows it: its address, whether it posts or is paused (and
    since when, in the league's zone), its failed tries in a row, the last error and the posts waiting."""
    if channel is None:
        return None
    paused = None if channel.paused_at is None else format_when(channel.paused_at, now, zone, lang)[0]
    return {
        "url": channel.url,
        "paused": paused,
        "failures": channel.failures,
        "last_error": None if channel.last_error is None else one_line(channel.last_error)[:300],
        "waiting": channel.waiting,
    }


def scoring_name(lang: str, system: str) -> str:
    """A scoring system's name in the reader's language (``scoring`` systems: placement, victory_points, wins)."""
    t = translations(lang)
    names = {
        "placement": t.gettext("placement points scaled to the table's size"),
        "victory_points": t.gettext("the game's victory points"),
        "wins": t.gettext("wins only"),
    }
    return names.get(system, system)


def status_name(lang: str, status: str, of: str) -> str:
    """The status of a season, a league round or a sign-up (``of``: "season", "round", "entry"), each worded for
    its own noun (Italian and Polish agree adjectives with it); a game's is the glossary's."""
    if of == "game":
        return glossary.status_name(lang, status)
    t = translations(lang)
    names = {
        "season": {
            "signup": t.pgettext("a season", "taking sign-ups"),
            "running": t.pgettext("a season", "running"),
            "over": t.pgettext("a season", "over"),
        },
        "round": {
            "planned": t.pgettext("a league round", "planned"),
            "started": t.pgettext("a league round", "started"),
            "over": t.pgettext("a league round", "over"),
        },
        "entry": {
            "pending": t.pgettext("a sign-up", "waiting for confirmation"),
            "confirmed": t.pgettext("a sign-up", "confirmed"),
            "withdrawn": t.pgettext("a sign-up", "withdrawn"),
        },
    }
    return str(names.get(of, {}).get(status, status))


def season_page(lang: str, season: SeasonOverview, tz: str, now: datetime) -> dict[str, object]:
    """A season: its entries with their status, its rounds with their status and start, and the notice of a due
    round that could not be seated (``unseated``: its number, the reason and since when; None)."""
    return {
        **asdict(season),
        "unseated": unseated_notice(lang, season.unseated, tz, now),
        "status_name": status_name(lang, season.status, "season"),
        "entries": [{**asdict(e), "status_name": status_name(lang, e.status, "entry")} for e in season.entries],
        "rounds": [
            {
                **asdict(r),
                "status_name": status_name(lang, r.status, "round"),
                "starts": None if r.starts_at is None else format_when(r.starts_at, now, tz, lang)[0],
            }
            for r in season.rounds
        ],
    }


def unseated_notice(lang: str, stall: StallJSON | None, tz: str, now: datetime) -> dict[str, object] | None:
    """A season's stall (``Season.unseated``) shown: ``round``, ``reason`` (translated), ``since`` (in ``tz``)."""
    if not stall:
        return None
    reason = unseated_reason(stall)
    try:
        since = format_when(datetime.fromisoformat(stall["since"]), now, tz, lang)[0]
    except ValueError:
        since = ""
    return {"round": stall["round"], "reason": refusal(reason, lang), "since": since}


def round_page(lang: str, rnd: RoundShown, divisions: Mapping[int, str | None], now: datetime) -> dict[str, object]:
    """A round: each table's players with their zone, division (``divisions``: by player id) and local time, and
    the hours all of them are awake."""
    t = translations(lang)
    tables = []
    for number, table in enumerate(rnd["tables"], start=1):
        tables.append(
            {
                "number": number,
                "players": [
                    {**p, "division": divisions.get(p["id"]), "clock": clock(p["zone"], now, lang)}
                    for p in table["players"]
                ],
                "awake": t.ngettext(
                    "%(num)d hour a day when everyone is awake",
                    "%(num)d hours a day when everyone is awake",
                    table["awake"],
                )
                % {"num": table["awake"]},
            }
        )
    played = [{**game, "status_name": status_name(lang, game["status"], "game")} for game in rnd["games"]]
    return {**rnd, "status_name": status_name(lang, rnd["status"], "round"), "tables": tables, "games": played}


def tie_break_name(lang: str, name: str) -> str:
    """A tie-break's name in the reader's language (``scoring.TIE_BREAKS``)."""
    t = translations(lang)
    names = {
        "victory_points": t.gettext("more victory points"),
        "wins": t.gettext("more wins"),
        "average_placement": t.gettext("better average placement"),
        "head_to_head": t.gettext("head-to-head results"),
    }
    return names.get(name, name)


def forfeit_name(lang: str, rule: str) -> str:
    """A forfeit rule's name in the reader's language (``scoring.FORFEITS``)."""
    t = translations(lang)
    names = {
        "last": t.gettext("placed last at the table"),
        "zero": t.gettext("no points for the game"),
        "as_played": t.gettext("scored as the game ended"),
    }
    return names.get(rule, rule)


WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def league_form(lang: str, values: dict[str, Any], error: str | None) -> dict[str, object]:
    """templates/league/new.html's context: every field's choices in the reader's language; ``values`` refills the
    form after a refusal."""
    t = translations(lang)
    return {
        "values": values,
        "error": error,
        "languages": [(code, str(Locale.parse(code).get_display_name(code)).capitalize()) for code in LANGUAGES],
        "sizes": list(range(TABLE_SIZES[0], TABLE_SIZES[1] + 1)),
        "systems": [(s, scoring_name(lang, s)) for s in scoring.SYSTEMS],
        "tie_breaks": [(b, tie_break_name(lang, b)) for b in scoring.TIE_BREAKS],
        "forfeits": [(f, forfeit_name(lang, f)) for f in scoring.FORFEITS],
        "presets": [(p.name, t.gettext(p.title)) for p in PRESETS.values()],
    }


def season_form(lang: str, values: dict[str, Any], zone: str, error: str | None) -> dict[str, object]:
    """templates/league/new_season.html's context: the weekdays in the reader's language, the league's zone."""
    days = get_day_names("wide", locale=DATE_LOCALES[pick(lang)])
    return {
        "values": values,
        "error": error,
        "zone": zone,
        "weekdays": [(k, days[k].capitalize()) for k in range(7)],
    }


def entry_rows(lang: str, entries: list[EntryItem], zone: str, now: datetime) -> list[dict[str, object]]:
    """A season's sign-ups for its organiser: name, status, when confirmed (nothing else of them)."""
    return [
        {
            "name": e.name,
            "status": e.status,
            "status_name": status_name(lang, e.status, "entry"),
            "confirmed": None if e.confirmed_at is None else format_when(e.confirmed_at, now, zone, lang)[0],
            "division": e.division,
        }
        for e in entries
    ]


def swap_groups(tables: list[dict[str, Any]]) -> list[dict[str, object]]:
    """The players who may change tables, by division (each division plays at its own tables, so a swap across
    divisions is never offered): a group only when its division sits at two tables or more."""
    groups: dict[str, dict[str, Any]] = {}
    for table in tables:
        for p in table["players"]:
            key = str(p.get("division") or "")
            group = groups.setdefault(key, {"division": p.get("division"), "players": [], "tables": set()})
            group["players"].append({**p, "table": table["number"]})
            group["tables"].add(table["number"])
    return [
        {"division": g["division"], "players": g["players"]}
        for key, g in sorted(groups.items(), key=lambda kv: (kv[0] == "", len(kv[0]), kv[0]))
        if len(g["tables"]) > 1
    ]
