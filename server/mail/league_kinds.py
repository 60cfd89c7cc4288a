"""Each kind of mail about a league: a sign-up to confirm, an invitation, a round's table, a round's results, a
season's end, a round that could not be seated; and a league's (or a game's) webhook channel paused. Each fills a
``Draft`` for one outbox row, or returns None when nothing is left to tell."""

from __future__ import annotations

from typing import Any

from ..models import Outbox
from ..present import league as league_shown
from ..present import standings as shown_standings
from ..present.seat import cap, game_label
from ..services.inputs import one_line
from ..services.leagues import promotion, rounds, standings
from ..services.links import confirm_token, league_token, seat_token
from ..services.mailflow import mail_rows
from ..text.glossary import colour_name
from ..text.refusals import refusal
from .drafts import MAX_USER_TEXT, Draft
from .kinds import Composer


def league_confirm(composer: Composer, row: Outbox) -> Draft | None:
    """A sign-up to a league season, to confirm by its link; skipped once it is not pending any more."""
    found = mail_rows.pending_sign_up(composer.session, row.payload.get("entry"))
    if found is None:
        return None
    entry, t, settings = found.entry, composer.t, composer.settings
    words = {"league": cap(one_line(found.league.name), MAX_USER_TEXT), "season": found.season.number}
    draft = Draft("league_confirm", words)
    draft.greeting = str((entry.applicant or {}).get("name") or "")  # (the row's name may be empty or another)
    draft.notes.append(t.gettext("If you did not sign up, ignore this mail: nobody takes part without confirming."))
    token = confirm_token(settings.secret_key, entry.id, entry.confirm_generation)
    url = f"{settings.base_url}/l/confirm/{token}"
    draft.actions.append({"text": t.gettext("Confirm your sign-up"), "url": url})
    return draft


def league_fixtures(composer: Composer, row: Outbox) -> Draft | None:
    """A league round's table (``services.leagues.rounds``): opponents and their zones, the tempo, the estimate and
    the link to the seat; skipped once the seat is not the reader's any more."""
    found = mail_rows.fixture(composer.session, row.payload.get("seat"), row.payload.get("round"), composer.player.id)
    if found is None:
        return None
    seat, lang, t, settings = found.seat, composer.lang, composer.t, composer.settings
    game = seat.game
    label = game_label(lang, game.id, game.title)
    draft = Draft("league_fixtures", {"label": label, "colour": colour_name(lang, seat.colour)})
    if found.round is not None and found.season is not None:
        where = {"season": found.season.number, "round": found.round.number, "table": row.payload.get("table") or 1}
        draft.notes.append(t.gettext("Season %(season)s, round %(round)s, table %(table)s.") % where)
    opponents = [
        league_shown.opponent_line(
            lang, cap(one_line(s.player.display_name), MAX_USER_TEXT), s.player.timezone or "UTC", composer.now
        )
        for s in game.seats
        if s.player is not None and s.id != seat.id
    ]
    draft.notes += [t.gettext("At your table:"), *opponents]
    draft.notes.append(league_shown.tempo_text(lang, game.tempo))
    draft.notes.append(league_shown.estimate_text(lang, dict(row.payload.get("estimate") or {})))
    url = f"{settings.base_url}/s/{seat_token(settings.secret_key, seat.id, seat.link_generation)}"
    draft.actions.append({"text": t.gettext("Open your seat"), "url": url})
    return draft


def _season_words(found: mail_rows.InSeason) -> dict[str, Any]:
    return {"league": cap(one_line(found.league.name), MAX_USER_TEXT), "season": found.season.number}


def _standings_link(composer: Composer, draft: Draft, found: mail_rows.InSeason) -> None:
    url = f"{composer.prefs_url}/season/{found.season.id}"
    draft.actions.append({"text": composer.t.gettext("See the standings and every game of the season"), "url": url})


def league_results(composer: Composer, row: Outbox) -> Draft | None:
    """A round of a league season is over: the reader's games of the round, then the standings."""
    found = mail_rows.league_round(composer.session, row.payload.get("round"))
    if found is None:
        return None
    session, lang = composer.session, composer.lang
    draft = Draft("league_results", {**_season_words(found.of), "round": found.round.number})
    games = standings.round_games(session, found.round.id, composer.player.id)
    draft.notes += shown_standings.round_lines(lang, games)
    draft.notes += shown_standings.lines(lang, standings.standings_in(session, found.of.season.id, composer.now))
    _standings_link(composer, draft, found.of)
    return draft


def season_end(composer: Composer, row: Outbox) -> Draft | None:
    """The season is over: the reader's final place, their division next season, the final standings."""
    found = mail_rows.season(composer.session, row.payload.get("season"))
    if found is None:
        return None
    lang, t, player_id = composer.lang, composer.t, composer.player.id
    table = standings.standings_in(composer.session, found.season.id, composer.now)
    mine = shown_standings.row_of(table, player_id)
    draft = Draft("season_end", _season_words(found))
    if mine is not None:
        place = {"rank": mine["rank"], "points": shown_standings.number(lang, mine["points"])}
        said = t.ngettext(
            "You finished in place %(rank)s with %(points)s league point.",
            "You finished in place %(rank)s with %(points)s league points.",
            shown_standings.plural_of(mine["points"]),
        )
        draft.notes.append(said % place)
    moved = promotion.promoted_and_relegated(found.season, table).get(player_id)
    if moved is not None and mine is not None:
        up = int(moved) < int(mine["division"] or 0)
        text = t.gettext("Promoted: next season you play in division %(name)s.")
        if not up:
            text = t.gettext("Relegated: next season you play in division %(name)s.")
        draft.notes.append(text % {"name": moved})
    draft.notes += shown_standings.lines(lang, table)
    _standings_link(composer, draft, found)
    return draft


def league_invite(composer: Composer, row: Outbox) -> Draft | None:
    """An invitation to a league: its current invitation link (a revoked one is never mailed)."""
    league = mail_rows.league(composer.session, row.payload.get("league"))
    if league is None:
        return None
    t, settings = composer.t, composer.settings
    draft = Draft("league_invite", {"league": cap(one_line(league.name), MAX_USER_TEXT)})
    draft.notes.append(t.gettext("If you do not want to play, ignore this mail: nothing happens without you."))
    token = league_token(settings.secret_key, "invite", league.id, league.invite_generation)
    url = f"{settings.base_url}/l/{token}"
    draft.actions.append({"text": t.gettext("See the league and sign up"), "url": url})
    return draft


def round_unseated(composer: Composer, row: Outbox) -> Draft | None:
    """To the league's organiser: the season's next round could not be seated, and why, with the season's page
    (``rounds.sweep``); skipped once a round was seated after all."""
    found = mail_rows.season(composer.session, row.payload.get("season"))
    stall = None if found is None else found.season.unseated
    if found is None or stall is None:
        return None
    t, settings, season, league = composer.t, composer.settings, found.season, found.league
    draft = Draft("round_unseated", {**_season_words(found), "round": stall["round"]})
    reason = rounds.unseated_reason(stall)
    draft.notes.append(refusal(reason, composer.lang))
    draft.notes.append(
        t.gettext(
            "The round starts by itself as soon as it can be seated (a player confirms, comes back or stops "
            "skipping it); you may also change the season on its page."
        )
    )
    token = league_token(settings.secret_key, "organiser", league.id, league.organiser_generation)
    url = f"{settings.base_url}/lo/{token}/season/{season.id}"
    draft.actions.append({"text": t.gettext("Open the season's page"), "url": url})
    return draft


def channel_paused(composer: Composer, row: Outbox) -> Draft | None:
    """To a channel's organiser: its webhook address failed too often and is paused (``services.channel.posts``),
    with the last error and, for a league's, the league's page where it is resumed; skipped once it was resumed or
    removed."""
    found = mail_rows.channel(composer.session, row.payload.get("channel"))
    if found is None or found.channel.paused_at is None:
        return None
    t, settings, channel = composer.t, composer.settings, found.channel
    if found.league is not None:
        what = cap(one_line(found.league.name), MAX_USER_TEXT)
    elif found.game is not None:
        what = game_label(composer.lang, found.game.id, found.game.title)
    else:
        return None
    draft = Draft("channel_paused", {"what": what, "count": channel.failures})
    if channel.last_error:
        draft.notes.append(t.gettext("The last error: %(error)s") % {"error": cap(one_line(channel.last_error), 300)})
    draft.notes.append(
        t.gettext("Check the address (the chat's settings may have removed the webhook), then resume it.")
    )
    if found.league is not None:
        league = found.league
        token = league_token(settings.secret_key, "organiser", league.id, league.organiser_generation)
        draft.actions.append({"text": t.gettext("Open the league's page"), "url": f"{settings.base_url}/lo/{token}"})
    return draft
