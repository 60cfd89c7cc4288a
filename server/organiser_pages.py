"""The organiser's pages (/o/…): create a game, see who owes what, extend, pause, replace, resend, abandon.

Access: logging in with the organiser API token (``session["organiser"]``) opens every game; a game's organiser
link (/o/link/<token>, shown when it is created) opens that game only (``session["organiser_games"]``). The
views are thin: every change is one call of server/services/organise.py. A GET never changes anything.
"""

from __future__ import annotations

import hmac
from datetime import datetime, timedelta
from typing import Any

from flask import Blueprint, abort, current_app, g, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_limiter.util import get_remote_address
from limits import parse as parse_limit
from sqlalchemy import select

from engine.data import COLOURS, DEFAULT_WEAPONS, KINDS
from engine.options import CHOICES

from . import i18n, narrate
from .app import dm
from .models import Game, utcnow
from .services import games, organise
from .services.links import LinkError, organiser_token, read_organiser_token
from .services.prefs import zone_choices

bp = Blueprint("organiser", __name__, url_prefix="/o")

#: login attempts taken per client and minute.
LOGIN_LIMIT = "10 per minute"
#: the longest text taken from a form field.
MAX_FIELD = 4000
#: "extend by" choices, in hours.
EXTEND_HOURS = (1, 3, 6, 12, 24, 48, 72)
COMMON_ZONES = (
    "UTC",
    "Europe/London",
    "Europe/Lisbon",
    "Europe/Paris",
    "Europe/Berlin",
    "Europe/Rome",
    "Europe/Madrid",
    "Europe/Warsaw",
    "Europe/Athens",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Asia/Shanghai",
    "Asia/Tokyo",
    "Australia/Sydney",
)


@bp.after_request
def no_store(response: Any) -> Any:
    """The organiser's pages show secret links: never kept by a browser or proxy cache."""
    response.headers["Cache-Control"] = "no-store"
    return response


def _field(name: str, limit: int = MAX_FIELD) -> str:
    return str(request.form.get(name, ""))[:limit]


def _message(title: str, message: str, status: int) -> Any:
    return render_template("message.html", title=title, message=message), status


# --- access ------------------------------------------------------------------------------------------------------


def _logged_in() -> bool:
    return session.get("organiser") is True


def _may_open(game_id: int) -> bool:
    return _logged_in() or game_id in (session.get("organiser_games") or [])


def _login_allowed() -> bool:
    """Flask-Limiter's storage counts the attempts (Redis in production, memory embedded)."""
    limiters = current_app.extensions.get("limiter") or ()
    for limiter in limiters:
        return bool(
            limiter.limiter.hit(parse_limit(LOGIN_LIMIT), dm().settings.queue, "organiser-login", get_remote_address())
        )
    return True


@bp.get("/login")
def login_form() -> Any:
    return render_template("organiser/login.html", error=None, next=_next_url())


def _next_url() -> str:
    target = str(request.values.get("next", ""))[:300]
    return target if target.startswith("/o/") and not target.startswith("//") else ""


@bp.post("/login")
def login() -> Any:
    if not _login_allowed():
        return _message(_("Too many attempts"), _("Too many login attempts: wait a minute and try again."), 429)
    token = _field("token", 512).strip()
    expected = dm().settings.api_token
    if not token or not expected or not hmac.compare_digest(token.encode(), expected.encode()):
        error = _("This is not the organiser token.")
        return render_template("organiser/login.html", error=error, next=_next_url()), 401
    session["organiser"] = True
    return redirect(_next_url() or url_for("organiser.index"), code=303)


@bp.get("/logout")
def logout_form() -> Any:
    return render_template("organiser/logout.html")


@bp.post("/logout")
def logout() -> Any:
    session.pop("organiser", None)
    session.pop("organiser_games", None)
    return redirect(url_for("organiser.login_form"), code=303)


@bp.get("/link/<token>")
def organiser_link(token: str) -> Any:
    s = dm().settings
    try:
        game_id = read_organiser_token(s.secret_key, token, s.link_max_age)
    except LinkError as exc:
        return _message(_("Link not valid"), exc.translated(_), 403)
    opened = [i for i in (session.get("organiser_games") or []) if isinstance(i, int)][-19:]
    if game_id not in opened:
        session["organiser_games"] = [*opened, game_id]
    return redirect(url_for("organiser.game", game_id=game_id), code=303)


def _refused() -> Any:
    if not _logged_in():
        if request.method == "GET":  # the login form, which comes back here
            return render_template("organiser/login.html", error=None, next=request.path), 401
        return _message(_("Not allowed"), _("Log in as the organiser first."), 401)
    return _message(_("Not allowed"), _("This page is for the game's organiser."), 403)


# --- creating a game -----------------------------------------------------------------------------------------------


def _zones() -> tuple[list[str], list[str]]:
    return zone_choices(COMMON_ZONES)


def _create_context(values: dict[str, Any], error: str | None) -> dict[str, Any]:
    lang = i18n.language(str(getattr(g, "language", "") or "en"))
    common, others = _zones()
    return {
        "values": values,
        "error": error,
        "choices": CHOICES,
        "option_labels": _option_labels(),
        "colours": [(c, narrate.colour_name(lang, c)) for c in COLOURS],
        "weapons": [(w, narrate.card_name(lang, w)) for w in DEFAULT_WEAPONS],
        "default_weapons": DEFAULT_WEAPONS,
        "kinds": KINDS,
        "common_zones": common,
        "other_zones": others,
    }


def _option_labels() -> dict[str, str]:
    return {
        "turn_order": _("Turn order"),
        "sprint_timing": _("Sprint timing"),
        "attack_tie_pool": _("Second attack tie drawn among"),
        "zombie_player": _("Zombie player"),
        "attack_cards": _("Who may play cards in an attack"),
        "first_chief": _("First Chief"),
        "batched": _("batched (everyone at once where the rules allow)"),
        "strict": _("strict (one player after another)"),
        "on_move": _("on the player's own move"),
        "after_moves": _("after every character has moved"),
        "present": _("the colours present"),
        "tied": _("only the tied colours"),
        "next_round": _("the next round"),
        "every_round": _("every round"),
        "everyone": _("everyone"),
        "random": _("drawn at random"),
    }


@bp.get("/")
def index() -> Any:
    if not _logged_in():
        return _refused()
    with dm().db.session() as db_session:
        rows = db_session.execute(
            select(Game.id, Game.title, Game.status, Game.round).order_by(Game.id.desc()).limit(100)
        ).all()
    listed = [{"id": r.id, "title": r.title, "status": _status_name(r.status), "round": r.round} for r in rows]
    return render_template("organiser/index.html", games=listed)


@bp.get("/new")
def new_game() -> Any:
    if not _logged_in():
        return _refused()
    return render_template("organiser/new.html", **_create_context({}, None))


def _spec_json(form: Any) -> dict[str, Any]:
    players = [line.strip() for line in str(form.get("players", ""))[:MAX_FIELD].splitlines() if line.strip()]
    options: dict[str, Any] = {}
    for name in CHOICES:
        value = form.get(f"option_{name}")
        if value:
            options[name] = str(value)[:32]
    chief = form.get("option_first_chief")
    if chief:
        options["first_chief"] = str(chief)[:16]
    weapons: dict[str, int] = {}
    for weapon, default in DEFAULT_WEAPONS.items():
        raw = str(form.get(f"weapon_{weapon}", "") or default)[:3]
        try:
            weapons[weapon] = int(raw)
        except ValueError:
            raise games.GameError(_("%(weapon)s: the zombies killed must be a number.", weapon=weapon)) from None
    if weapons != DEFAULT_WEAPONS:
        options["weapons"] = weapons
    deadlines = [str(form.get("deadline", "") or "24h")[:20]]
    deadlines += [line.strip() for line in str(form.get("deadlines", ""))[:1000].replace(",", "\n").splitlines()]
    return {
        "title": str(form.get("title", ""))[:120],
        "players": players,
        "options": options,
        "deadlines": [d for d in deadlines if d],
        "timezone": str(form.get("timezone", "UTC"))[:64],
        "avoid_quiet_hours": form.get("avoid_quiet_hours") == "1",
        "organiser": str(form.get("organiser_email", "")).strip()[:320] or None,
    }


@bp.post("/new")
def create() -> Any:
    if not _logged_in():
        return _refused()
    values = {k: str(v)[:MAX_FIELD] for k, v in request.form.items() if k != "csrf_token"}
    try:
        spec = games.spec_from_json(_spec_json(request.form))
        created = games.create_game(dm().db, spec)
    except games.GameError as exc:
        return render_template("organiser/new.html", **_create_context(values, exc.translated(_))), 400
    for outbox_id in created.outbox_ids:
        dm().queue.send_mail(outbox_id)
    return _created_page(created.game_id)


def _created_page(game_id: int) -> Any:
    s = dm().settings
    link = f"{s.base_url}{url_for('organiser.organiser_link', token=organiser_token(s.secret_key, game_id))}"
    seats = games.seat_links(dm().db, game_id, s.secret_key, s.base_url)
    lang = _lang()
    for seat in seats:
        seat["colour_name"] = narrate.colour_name(lang, seat["colour"])
        seat["name"] = seat["player"]["name"] if seat["player"] else None
    return render_template("organiser/created.html", game_id=game_id, organiser_link=link, seats=seats), 201


def _lang() -> str:
    from flask_babel import get_locale  # type: ignore[import-untyped,unused-ignore]

    return i18n.language(str(get_locale() or "en"))


# --- one game ------------------------------------------------------------------------------------------------------


def _kind_name(kind: str) -> str:
    names = {
        "place": _("placing a character"),
        "cards": _("playing cards"),
        "vote": _("the vote"),
        "victim": _("choosing the victim"),
        "truck": _("sharing the truck cards"),
        "announce": _("announcing a destination"),
        "destination": _("choosing a destination"),
        "move": _("moving a character"),
        "zombie": _("placing a zombie"),
    }
    return names.get(kind, _("a decision"))


def _status_name(status: str) -> str:
    return {"running": _("running"), "over": _("over"), "abandoned": _("abandoned")}.get(status, status)


def _game_page(game_id: int, *, error: str | None = None, status: int = 200) -> Any:
    try:
        data = organise.owed(dm().db, game_id)
    except organise.OrganiseError:
        abort(404)
    now = utcnow()
    tz = str(data["timezone"])
    g.timezone = tz
    lang = _lang()

    def when(instant: datetime | None) -> dict[str, str] | None:
        if instant is None:
            return None
        absolute, relative = i18n.format_when(instant, now, tz, lang)
        return {"absolute": absolute, "relative": relative, "local": _local_input(instant, tz)}

    s = dm().settings
    links = {row["colour"]: row["link"] for row in games.seat_links(dm().db, game_id, s.secret_key, s.base_url)}
    seats = [
        {
            **seat,
            "name": seat["player"],
            "colour_name": narrate.colour_name(lang, seat["colour"]),
            "link": links.get(seat["colour"]),
        }
        for seat in data["seats"]
    ]
    requests = [
        {**r, "colour_name": narrate.colour_name(lang, r["colour"]), "kind_name": _kind_name(r["kind"])}
        for r in data["requests"]
    ]
    window = data["window"]
    notice = _notice(str(request.args.get("done", ""))[:20])
    page = render_template(
        "organiser/game.html",
        game=data,
        status_name=_status_name(data["status"]),
        phase_name=narrate.phase_name(lang, data["phase"]) if data["phase"] else "",
        seats=seats,
        requests=requests,
        deadline=when(window["deadline"]) if window else None,
        paused_until=when(data["paused_until"]),
        pause_default=_local_input(now + timedelta(days=1), tz),
        extend_hours=EXTEND_HOURS,
        error=error,
        notice=notice,
        tz=tz,
    )
    return page, status


def _local_input(instant: datetime, tz: str) -> str:
    """An instant as a datetime-local value in the game's zone."""
    return instant.astimezone(i18n.zone(tz)).strftime("%Y-%m-%dT%H:%M")


def _from_local(text: str, tz: str) -> datetime:
    """A datetime-local value, read in the game's zone; OrganiseError when it is not one."""
    try:
        local = datetime.strptime(text.strip()[:16], "%Y-%m-%dT%H:%M")
    except ValueError:
        raise organise.OrganiseError(_("Give a date and time such as 2030-01-31T18:00.")) from None
    return local.replace(tzinfo=i18n.zone(tz))


def _notice(done: str) -> str | None:
    return {
        "extended": _("The deadline was moved."),
        "paused": _("The game is paused."),
        "resumed": _("The game goes on."),
        "replaced": _("The seat has a new player."),
        "unchanged": _("Nothing changed: the seat already has that player."),
        "resent": _("The link will be sent by e-mail."),
        "abandoned": _("The game is abandoned."),
    }.get(done)


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> Any:
    if not _may_open(game_id):
        return _refused()
    return _game_page(game_id)


def _done(game_id: int, what: str) -> Any:
    return redirect(url_for("organiser.game", game_id=game_id, done=what), code=303)


def _game_timezone(game_id: int) -> str:
    with dm().db.session() as db_session:
        found = db_session.get(Game, game_id)
        if found is None:
            abort(404)
        return str((found.tempo or {}).get("timezone", "UTC"))


def _operation(game_id: int, run: Any) -> Any:
    """Run one organiser operation for a POSTed form: its page on success, the game page with the reason if not."""
    if not _may_open(game_id):
        return _refused()
    try:
        return run(_game_timezone(game_id))
    except (organise.OrganiseError, games.GameError, LinkError) as exc:
        return _game_page(game_id, error=exc.translated(_), status=409)


@bp.post("/games/<int:game_id>/extend")
def extend(game_id: int) -> Any:
    def run(tz: str) -> Any:
        until = _field("until", 40).strip()
        if until:
            organise.extend_deadline(dm().db, game_id, until=_from_local(until, tz))
        else:
            try:
                hours = int(_field("hours", 4) or "0")
            except ValueError:
                hours = 0
            if hours not in EXTEND_HOURS:
                raise organise.OrganiseError(_("Choose how much later, or give the new deadline."))
            organise.extend_deadline(dm().db, game_id, by=timedelta(hours=hours))
        return _done(game_id, "extended")

    return _operation(game_id, run)


@bp.post("/games/<int:game_id>/pause")
def pause(game_id: int) -> Any:
    def run(tz: str) -> Any:
        organise.pause(dm().db, game_id, _from_local(_field("until", 40), tz))
        return _done(game_id, "paused")

    return _operation(game_id, run)


@bp.post("/games/<int:game_id>/resume")
def resume(game_id: int) -> Any:
    def run(_tz: str) -> Any:
        organise.resume(dm().db, game_id, kick=dm().queue.advance)
        return _done(game_id, "resumed")

    return _operation(game_id, run)


@bp.post("/games/<int:game_id>/replace")
def replace(game_id: int) -> Any:
    def run(_tz: str) -> Any:
        colour = _field("colour", 16)
        by = _field("by", 16)
        if by in games.BOT_KINDS:
            result = organise.replace_seat(dm().db, game_id, colour, bot=by, kick=dm().queue.advance)
        elif by == "person":
            name, email = _field("name", 80).strip(), _field("email", 320).strip()
            spec = games.parse_player(f"{name} <{email}>" if name else email)
            result = organise.replace_seat(dm().db, game_id, colour, player=spec, kick=dm().queue.advance)
        else:
            raise organise.OrganiseError(_("Choose a bot or a person."))
        for outbox_id in result.outbox_ids:
            dm().queue.send_mail(outbox_id)
        return _done(game_id, "replaced" if result.changed else "unchanged")

    return _operation(game_id, run)


@bp.post("/games/<int:game_id>/resend")
def resend(game_id: int) -> Any:
    def run(_tz: str) -> Any:
        outbox_id = organise.resend_link(dm().db, game_id, _field("colour", 16), rotate=_field("rotate", 4) == "1")
        dm().queue.send_mail(outbox_id)
        return _done(game_id, "resent")

    return _operation(game_id, run)


@bp.post("/games/<int:game_id>/abandon")
def abandon(game_id: int) -> Any:
    def run(_tz: str) -> Any:
        if _field("confirm", 4) != "1":
            raise organise.OrganiseError(_("Tick the box to confirm that the game ends for everyone."))
        organise.abandon(dm().db, game_id)
        return _done(game_id, "abandoned")

    return _operation(game_id, run)
