"""Languages: gettext catalogs in translations/, Jinja rendering without a request, dates for a reader.

Mails are rendered by workers, outside any Flask request: ``render`` uses its own Jinja environment per language.
Pages use Flask-Babel (``init_app``). Python code translates with ``t = translations(lang); t.gettext("…")`` so that
``pybabel extract`` (babel.cfg) finds the strings. After adding or changing strings::

    pybabel extract -F babel.cfg -o translations/messages.pot --no-location --sort-output .
    pybabel update -i translations/messages.pot -d translations --no-fuzzy-matching --ignore-obsolete

then translate the new entries in translations/{it,pl}/LC_MESSAGES/messages.po (tests/server/test_i18n.py fails
while any is missing, fuzzy or has other placeholders than its msgid).
"""

from __future__ import annotations

import io
import os
import threading
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from babel.dates import format_date, format_datetime, format_time, format_timedelta
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations
from flask import Flask, g, request
from flask_babel import Babel, get_locale  # type: ignore[import-untyped,unused-ignore]
from jinja2 import Environment, FileSystemLoader, select_autoescape

from ..config import ROOT
from ..models import LANGUAGES
from ..models import pick_language as language
from ..services.tempo import zone

__all__ = [
    "LANGUAGES",
    "compile_catalogs",
    "environment",
    "format_when",
    "init_app",
    "language",
    "render",
    "translations",
    "zone",
]

TRANSLATIONS = ROOT / "translations"
TEMPLATES = ROOT / "templates"
DOMAIN = "messages"
#: The Babel locale used for dates: British English writes "Sunday, 23 November 2026" and a 24-hour clock.
DATE_LOCALES = {"en": "en_GB", "it": "it", "pl": "pl"}

_compile_lock = threading.Lock()


def compile_catalogs(directory: Path | None = None) -> list[Path]:
    """Compile each ``<lang>/LC_MESSAGES/messages.po`` whose .mo is missing or older; returns the .mo written.

    Fuzzy entries are left out (as ``pybabel compile`` does). Each .mo is written to a temporary file and renamed,
    so a process reading it never sees half a file.
    """
    directory = directory or TRANSLATIONS
    written = []
    with _compile_lock:
        for po in sorted(directory.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
            mo = po.with_suffix(".mo")
            if _fresh(po, mo):
                continue
            tmp = mo.with_name(f".{mo.name}.{os.getpid()}.{threading.get_ident()}.tmp")
            try:
                tmp.write_bytes(_compiled(po))
                os.replace(tmp, mo)
            except OSError:  # a read-only install: translations() compiles in memory instead
                tmp.unlink(missing_ok=True)
                continue
            written.append(mo)
    return written


def _fresh(po: Path, mo: Path) -> bool:
    return mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime


def _compiled(po: Path) -> bytes:
    with po.open("rb") as f:
        catalog = read_po(f, locale=po.parent.parent.name, domain=DOMAIN)
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


@cache
def translations(lang: str) -> Translations:
    """The catalog of ``lang`` (cached); English, and any language without a catalog, gives the msgids back."""
    lang = language(lang)
    if lang == "en":
        return Translations(domain=DOMAIN)
    compile_catalogs()
    po = TRANSLATIONS / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not po.exists():
        return Translations(domain=DOMAIN)
    mo = po.with_suffix(".mo")
    if _fresh(po, mo):
        with mo.open("rb") as f:
            return Translations(f, domain=DOMAIN)
    return Translations(io.BytesIO(_compiled(po)), domain=DOMAIN)


@cache
def environment(lang: str) -> Environment:
    """The Jinja environment of one language: templates/ with gettext, ngettext and {% trans %} installed."""
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        autoescape=select_autoescape(["html", "htm"], default_for_string=False, default=False),
        extensions=["jinja2.ext.i18n"],
        keep_trailing_newline=True,
    )
    env.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    env.globals["lang"] = language(lang)
    return env


def render(template_name: str, lang: str, **context: Any) -> str:
    """Render a template of templates/ in ``lang`` without a Flask request (workers render mails)."""
    return environment(language(lang)).get_template(template_name).render(**context)


# --- Flask-Babel for pages --------------------------------------------------------------------------------------


def _select_locale() -> str:
    chosen = getattr(g, "language", None)
    if chosen:
        return language(chosen)
    return request.accept_languages.best_match(LANGUAGES) or "en"


def _select_timezone() -> str | None:
    name = getattr(g, "timezone", None)
    return zone(name).key if name else None


def _page_language() -> dict[str, str]:
    """``page_language`` for templates (base.html's ``<html lang>``): the language the page is rendered in."""
    locale = get_locale()
    return {"page_language": str(locale) if locale else "en"}


def init_app(app: Flask) -> None:
    """Flask-Babel for pages: the locale a view put in ``flask.g.language``, else the browser's best match.

    Templates get ``page_language``, the language of the page being rendered.
    """
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    app.config.setdefault("BABEL_DEFAULT_LOCALE", "en")
    app.config.setdefault("BABEL_DEFAULT_TIMEZONE", "UTC")
    compile_catalogs()
    Babel(app, locale_selector=_select_locale, timezone_selector=_select_timezone)
    app.context_processor(_page_language)


# --- dates ------------------------------------------------------------------------------------------------------


def _aware(moment: datetime) -> datetime:
    """Naive datetimes are UTC (as the database stores them)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def format_short(instant: datetime, tz_name: str | None, lang: str) -> str:
    """``instant`` in a few letters for a reader ("Tue 18:00", "mar 18:00", "wt. 18:00"): a mail's subject."""
    lang = language(lang)
    local = _aware(instant).astimezone(zone(tz_name))
    return format_datetime(local, "EEE HH:mm", locale=DATE_LOCALES[lang])


def format_when(instant: datetime, now: datetime, tz_name: str | None, lang: str) -> tuple[str, str]:
    """``instant`` for a reader: ("Sunday, 23 November 2026 at 14:00 CET", "in 7 hours") in their language and zone."""
    lang = language(lang)
    locale = DATE_LOCALES[lang]
    tz = zone(tz_name)
    local = _aware(instant).astimezone(tz)
    date = format_date(local, "full", locale=locale)
    time = f"{format_time(local, 'short', tzinfo=tz, locale=locale)} {local.tzname()}"
    t = translations(lang)
    absolute = t.gettext("%(date)s at %(time)s") % {"date": date, "time": time}
    delta = _aware(instant) - _aware(now)
    if abs(delta) < timedelta(minutes=1):
        relative = t.gettext("now")
    else:
        relative = format_timedelta(delta, threshold=1, add_direction=True, locale=locale)
    return absolute, relative
