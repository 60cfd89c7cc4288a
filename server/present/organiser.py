"""What an organiser is shown: the game page (the board as a spectator sees it, who owes what, never the answers;
deadlines and pauses in the game's zone; the seats and their links; the placings once it is over), the list of
games, and the new-game form's choices."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from babel.dates import format_date, format_time

import engine
from engine.data import COLOURS, DEFAULT_WEAPONS, KINDS
from engine.options import CHOICES

from ..services.attendance import substitutes
from ..services.lobby import moderation
from ..services.play import estimate as estimates
from ..services.play import organise
from ..services.play.estimate import MODEL, Model, hours_text
from ..services.play.games import SeatLink
from ..services.play.reliability import SeatFigures
from ..services.play.tenures import Tenure
from ..services.presets import PRESETS
from ..text import glossary
from ..text.i18n import DATE_LOCALES, format_when, language, translations, zone
from . import reliability as reliable
from .board import board_svg
from .seat import game_label, presence_line, tiebreak_sentence
from .seat import standings as seat_standings

#: "extend by" choices, in hours.
EXTEND_HOURS = (1, 3, 6, 12, 24, 48, 72)


def local_input(instant: datetime, tz: str) -> str:
    """An instant as a datetime-local value in the game's zone."""
    return instant.astimezone(zone(tz)).strftime("%Y-%m-%dT%H:%M")


def seats(lang: str, links: list[SeatLink]) -> list[dict[str, object]]:
    """The seats of ``games.seat_links`` with their colours' names and players' names."""
    return [
        {
            **seat,
            "colour_name": glossary.colour_name(lang, seat["colour"]),
            "name": None if seat["player"] is None else seat["player"]["name"],
        }
        for seat in links
    ]


def game_page(
    lang: str,
    data: organise.Overview,
    links: list[SeatLink],
    now: datetime,
    offers: dict[str, list[str]] | None = None,
    figures: dict[str, SeatFigures] | None = None,
) -> dict[str, object]:
    """templates/organiser/game.html's context from ``organise.overview``, ``games.seat_links``, ``offers`` (colour ->
    the links of its invitations still open, ``substitutes.pending``) and the people's reliability
    (``reliability.of_game``: colour -> figures in this game and overall)."""
    figures = figures or {}

    def reliability_of(colour: str) -> dict[str, object] | None:
        seat = figures.get(colour)
        if seat is None:
            return None
        return {"game": reliable.shown(lang, seat.game), "overall": reliable.shown(lang, seat.overall)}

    tz = str(data["timezone"])

    def when(instant: datetime | None) -> dict[str, str] | None:
        if instant is None:
            return None
        absolute, relative = format_when(instant, now, tz, lang)
        return {"absolute": absolute, "relative": relative, "local": local_input(instant, tz)}

    by_colour = {row["colour"]: row["link"] for row in links}
    window = data["window"]
    table = data["table"]
    return {
        "game": data,
        # the mall as a spectator sees it: nothing secret (``organise.overview``)
        "board": board_svg(table, lang, None, {seat["colour"]: seat["player"] for seat in data["seats"]}),
        "standings": standings(lang, table.get("outcome"), data["seats"]),
        "tiebreak": tiebreak_sentence(lang),
        "status_name": glossary.status_name(lang, data["status"]),
        "phase_name": glossary.phase_name(lang, data["phase"]) if data["phase"] else "",
        "seats": [
            {
                **seat,
                "name": seat["player"],
                "colour_name": glossary.colour_name(lang, seat["colour"]),
                "link": by_colour.get(seat["colour"]),
                "offers": (offers or {}).get(seat["colour"], []),
                "reliability": reliability_of(seat["colour"]),
                "presence_text": None
                if seat["presence"] is None
                else presence_line(lang, seat["colour"], seat["presence"], now, tz),
            }
            for seat in data["seats"]
        ],
        "tenures": tenures(lang, data["tenures"], tz, now),
        "requests": [
            {
                **r,
                "colour_name": glossary.colour_name(lang, r["colour"]),
                "kind_name": glossary.kind_name(lang, r["kind"]),
            }
            for r in data["requests"]
        ],
        "deadline": when(window["deadline"]) if window else None,
        "paused_until": when(data["paused_until"]),
        "pause_default": local_input(now + timedelta(days=1), tz),
        "extend_hours": EXTEND_HOURS,
        "tz": tz,
        "reliability_about": reliable.about(lang),
    }


def standings(
    lang: str, outcome: engine.Outcome | None, seats: list[organise.OrganisedSeat]
) -> list[dict[str, object]]:
    """The final places of a game that is over (``seat.standings``, END-3), each row saying whether a bot played
    the seat; empty while it runs."""
    if not outcome:
        return []
    names = {seat["colour"]: None if seat["bot"] else seat["player"] for seat in seats}
    bots = {seat["colour"]: seat["bot"] for seat in seats}
    rows = seat_standings(lang, outcome, [seat["colour"] for seat in seats], None, names)
    return [{**row, "bot": bots[row["colour"]]} for row in rows]


def games_list(lang: str, rows: list[organise.Listed]) -> list[dict[str, object]]:
    return [{**row, "code": row["status"], "status": glossary.status_name(lang, row["status"])} for row in rows]


def option_labels(lang: str) -> dict[str, str]:
    t = translations(lang)
    return {
        "turn_order": t.gettext("Turn order"),
        "sprint_timing": t.gettext("Sprint timing"),
        "attack_tie_pool": t.gettext("Second attack tie drawn among"),
        "zombie_player": t.gettext("Zombie player"),
        "attack_cards": t.gettext("Who may play cards in an attack"),
        "first_chief": t.gettext("First Chief"),
        "batched": t.gettext("batched (everyone at once where the rules allow)"),
        "strict": t.gettext("strict (one player after another)"),
        "on_move": t.gettext("on the player's own move"),
        "after_moves": t.gettext("after every character has moved"),
        "present": t.gettext("the colours present"),
        "tied": t.gettext("only the tied colours"),
        "next_round": t.gettext("the next round"),
        "every_round": t.gettext("every round"),
        "everyone": t.gettext("everyone"),
        "random": t.gettext("drawn at random"),
    }


def option_hints(lang: str) -> dict[str, str]:
    """One line under each rules option of the new-game form, saying what it changes (RULES.md section G)."""
    t = translations(lang)
    return {
        "turn_order": t.gettext(
            "Batched is faster by mail: the steps “once around the table” are asked of everyone together."
        ),
        "sprint_timing": t.gettext(
            "When a Sprint card moves a character again: on its own move, or in one Sprint round after every move."
        ),
        "attack_tie_pool": t.gettext(
            "After a second tied vote in an attack, the colour that loses a character is drawn among these."
        ),
        "zombie_player": t.gettext(
            "A player with no character left places an extra zombie: once, in the next round, or every round."
        ),
        "attack_cards": t.gettext(
            "Who may play cards before an attack vote: the colours at the location, or everyone."
        ),
        "first_chief": t.gettext("Online there is no “oldest player”: draw the first Chief of Security, or name one."),
    }


def new_game_form(lang: str, values: dict[str, Any], error: str | None) -> dict[str, object]:
    """templates/organiser/new.html's context: every option and its choices, colours, weapons, request kinds and
    time zones; ``values`` refills the form after a refusal."""
    return {
        "values": values,
        "error": error,
        "choices": CHOICES,
        "option_labels": option_labels(lang),
        "option_hints": option_hints(lang),
        # the weapon table, folded, opens when the form comes back with a weapon changed
        "weapons_changed": any(
            str(values.get(f"weapon_{w}") or kills) != str(kills) for w, kills in DEFAULT_WEAPONS.items()
        ),
        "colours": [(c, glossary.colour_name(lang, c)) for c in COLOURS],
        "weapons": [(w, glossary.card_name(lang, w)) for w in DEFAULT_WEAPONS],
        "default_weapons": DEFAULT_WEAPONS,
        "kinds": KINDS,
        "presets": [
            (p.name, translations(lang).gettext(p.title), translations(lang).gettext(p.description))
            for p in PRESETS.values()
        ],
        "estimate": None,
        "estimate_model": MODEL,
        "estimate_games": estimates.ESTIMATE_GAMES,  # (read when asked: tests simulate fewer)
        "estimate_recorded": estimates.RECORDED,
        "estimate_reading": hours_text(Model().reading),
    }


def short_when(instant: datetime, tz: str, lang: str) -> str:
    """``instant`` in a few characters, in the game's zone: "24 Nov 2026, 06:47"."""
    local = instant.astimezone(zone(tz))
    locale = DATE_LOCALES[language(lang)]
    return f"{format_date(local, 'medium', locale=locale)}, {format_time(local, 'short', locale=locale)}"


def tenures(lang: str, by_colour: dict[str, list[Tenure]], tz: str, now: datetime) -> list[dict[str, object]]:
    """The seats' tenures (``services.play.tenures.of_game``), one line each, in seating order, with dates in the game's
    zone."""

    def day(instant: datetime | None) -> str | None:  # short: a column of a table that must fit a phone
        return None if instant is None else short_when(instant, tz, lang)

    return [
        {
            **tenure,
            "colour": colour,
            "colour_name": glossary.colour_name(lang, colour),
            "since": day(tenure["from"]),
            "until": day(tenure["to"]),
        }
        for colour, rows in by_colour.items()
        for tenure in rows
    ]


def invitation(lang: str, data: substitutes.Invited) -> dict[str, object]:
    """templates/invitation.html's context from ``substitutes.look``: public facts only."""
    return {
        "label": game_label(lang, data["game"], data["title"]),
        "colour_name": glossary.colour_name(lang, data["colour"]),
        "round": data["round"],
        "phase_name": glossary.phase_name(lang, data["phase"]) if data["phase"] else "",
        "players": [
            {**p, "colour_name": glossary.colour_name(lang, p["colour"]), "offered": p["colour"] == data["colour"]}
            for p in data["players"]
        ],
    }


def offered_seat(lang: str, seat: substitutes.Offered) -> dict[str, object]:
    """templates/organiser/offer.html's seat, from ``substitutes.offerable``."""
    return {
        **seat,
        "label": game_label(lang, seat["game"], seat["title"]),
        "colour_name": glossary.colour_name(lang, seat["colour"]),
    }


def confirmation(
    lang: str, what: str, data: organise.Overview, colour: str | None = None, by: str | None = None, person: str = ""
) -> dict[str, object]:
    """templates/organiser/confirm.html's question before what cannot be undone: ``what`` is "replace" (the seat
    ``colour`` goes to a bot of kind ``by``, or to ``person``, "Name <address>"), "revoke" (the seat's links) or
    "abandon"; ``data`` is ``organise.overview``."""
    t = translations(lang)
    seat = next((s for s in data["seats"] if s["colour"] == colour), None)
    held = ""
    if seat is not None:
        name = glossary.colour_name(lang, seat["colour"])
        if seat["bot"]:
            held = t.gettext("The %(colour)s seat, played by a bot (%(kind)s).") % {"colour": name, "kind": seat["bot"]}
        else:
            held = t.gettext("The %(colour)s seat, played by %(name)s.") % {"colour": name, "name": seat["player"]}
    if what == "replace":
        bots = {"sensible": t.gettext("a bot that plays sensibly"), "random": t.gettext("a bot that plays at random")}
        lines = [
            held,
            t.gettext("It goes to: %(newcomer)s.") % {"newcomer": bots.get(by or "", person)},
            t.gettext("Its old links stop working: whoever held them can no longer play it."),
        ]
        if person:
            lines.append(t.gettext("The newcomer gets the seat's link by e-mail."))
        title, button = t.gettext("Replace a player?"), t.gettext("Yes, replace the player")
    elif what == "revoke":
        lines = [
            held,
            t.gettext("Every link of the seat stops working, those in mails already sent too."),
            t.gettext("Its player gets a new link by e-mail."),
        ]
        title, button = t.gettext("Revoke a player's links?"), t.gettext("Yes, revoke the links")
    else:
        lines = [
            t.gettext("The game ends for everyone, with no winner."),
            t.gettext("The decision open now is closed without being applied, and mail not yet sent is dropped."),
        ]
        title, button = t.gettext("Abandon the game?"), t.gettext("Yes, abandon the game")
    return {
        "title": title,
        "button": button,
        "lines": [line for line in lines if line],
        "game_label": game_label(lang, int(data["id"]), data["title"] or ""),
    }


# --- moderating players' own games ------------------------------------------------------------------------------------


def proposal_status_name(lang: str, status: str) -> str:
    """A player's own game's status: "forming", "started", "cancelled" (``models.ProposalStatus``)."""
    t = translations(lang)
    names = {
        "forming": t.gettext("taking players"),
        "started": t.gettext("started"),
        "cancelled": t.gettext("cancelled"),
    }
    return names.get(status, status)


def creators_list(lang: str, found: list[moderation.Creator]) -> list[dict[str, object]]:
    """templates/organiser/players.html's "who created what", from ``moderation.creators``: each creator with their
    games, a started one naming its game (the template links it to the game's page)."""
    t = translations(lang)
    return [
        {
            "name": creator.name,
            "email": creator.email,
            "suspended": creator.suspended,
            "games": [
                {
                    "title": title,
                    "label": title or t.gettext("untitled"),
                    "status": status,
                    "status_name": proposal_status_name(lang, status),
                    "game_id": game_id,
                }
                for _proposal, title, status, game_id in creator.games
            ],
        }
        for creator in found
    ]


def suspension_confirmation(lang: str, found: moderation.Found) -> dict[str, object]:
    """templates/organiser/confirm.html's question before suspending a player (``moderation.look``)."""
    t = translations(lang)
    lines = [
        t.gettext("%(name)s <%(email)s> may not create or join games any more, nor accept invitations.")
        % {"name": found.name or found.email, "email": found.email}
    ]
    if found.forming:
        lines.append(
            t.ngettext(
                "The %(num)d game they created and that is still taking players is cancelled; its players are told.",
                "The %(num)d games they created and that are still taking players are cancelled; their players are "
                "told.",
                found.forming,
            )
            % {"num": found.forming}
        )
    if found.running:
        lines.append(
            t.ngettext(
                "Their seat in %(num)d running game is offered to a substitute; the game goes on.",
                "Their seats in %(num)d running games are offered to substitutes; the games go on.",
                len(found.running),
            )
            % {"num": len(found.running)}
        )
    else:
        lines.append(t.gettext("They hold no seat in a running game."))
    lines.append(t.gettext("Lifting the suspension later lets them play again, but gives nothing of this back."))
    return {
        "title": t.gettext("Suspend a player?"),
        "button": t.gettext("Yes, suspend the player"),
        "lines": lines,
        "game_label": found.name or found.email,
    }


def suspension_done(lang: str, found: moderation.Found, done: moderation.Suspended) -> dict[str, object]:
    """What a suspension did, for templates/organiser/players.html: the seats offered, each naming its game (the
    template links it to the game's page)."""
    t = translations(lang)
    return {
        "notice": t.gettext("%(email)s is suspended.") % {"email": found.email},
        "offered": [
            {"game_id": game_id, "colour_name": glossary.colour_name(lang, colour)} for game_id, colour in done.offered
        ],
    }
