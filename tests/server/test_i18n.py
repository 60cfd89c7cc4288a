"""server/text/i18n.py and the catalogs: rendering per language, Polish plurals, dates across DST changes,
Flask-Babel."""

from __future__ import annotations

import gettext
import io
import os
import re
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask, g, render_template_string

from server.text import i18n

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = {lang: ROOT / "translations" / lang / "LC_MESSAGES" / "messages.po" for lang in ("it", "pl")}
PLACEHOLDER = re.compile(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[sdifr]|\{(\w+)\}")


def _po(lang: str) -> Catalog:
    with CATALOGS[lang].open("rb") as f:
        return read_po(f, locale=lang)


def _placeholders(text: str) -> set[str]:
    return {a or b for a, b in PLACEHOLDER.findall(text)}


# --- languages and catalogs -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("it", "it"),
        ("IT", "it"),
        ("pl-PL", "pl"),
        ("pl_PL", "pl"),
        (" en ", "en"),
        ("de", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_language_normalises_and_defaults_to_english(value: object, expected: str) -> None:
    assert i18n.language(value) == expected


def test_english_gives_the_msgids_back() -> None:
    t = i18n.translations("en")
    assert t.gettext("The game is over.") == "The game is over."
    assert t.ngettext("%(num)d zombie leaves %(place)s.", "%(num)d zombies leave %(place)s.", 2).startswith(
        "%(num)d zombies"
    )


@pytest.mark.parametrize("lang", ["it", "pl"])
def test_every_msgid_is_translated_and_none_is_fuzzy(lang: str) -> None:
    catalog = _po(lang)
    assert not catalog.fuzzy, f"{lang}: the catalog header is marked fuzzy"
    assert len(catalog) > 50
    for message in catalog:
        if not message.id:
            continue
        assert not message.fuzzy, f"{lang}: fuzzy entry {message.id!r}"
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        if isinstance(message.id, tuple):
            assert len(forms) == catalog.num_plurals, f"{lang}: {message.id[0]!r} needs {catalog.num_plurals} forms"
        assert all(form and form.strip() for form in forms), f"{lang}: untranslated {message.id!r}"


@pytest.mark.parametrize("lang", ["it", "pl"])
def test_placeholders_are_the_same_in_msgid_and_msgstr(lang: str) -> None:
    for message in _po(lang):
        if not message.id or not all(message.string if isinstance(message.string, tuple) else [message.string]):
            continue  # untranslated: the test above says so
        if isinstance(message.id, tuple):
            singular, plural = (_placeholders(m) for m in message.id)
            forms = list(message.string)
            for form in forms:
                assert _placeholders(form) <= singular | plural, f"{lang}: {form!r} has a placeholder not in the msgid"
            assert _placeholders(forms[-1]) == plural, f"{lang}: {forms[-1]!r} must use {sorted(plural)}"
        else:
            expected = _placeholders(message.id)
            assert _placeholders(message.string) == expected, f"{lang}: {message.string!r} must use {sorted(expected)}"


def test_plural_forms_headers() -> None:
    assert _po("it").num_plurals == 2
    polish = _po("pl")
    assert polish.num_plurals == 3
    assert "n%10>=2 && n%10<=4" in polish.plural_expr


@pytest.mark.parametrize("lang", ["it", "pl"])
def test_catalogs_compile_and_load(lang: str) -> None:
    buffer = io.BytesIO()
    write_mo(buffer, _po(lang))
    buffer.seek(0)
    loaded = gettext.GNUTranslations(buffer)
    assert loaded.gettext("The game is over.") != "The game is over."


def test_compile_catalogs_writes_missing_or_stale_mo_only(tmp_path: Path) -> None:
    for lang, po in CATALOGS.items():
        target = tmp_path / lang / "LC_MESSAGES"
        target.mkdir(parents=True)
        shutil.copy(po, target / "messages.po")
    written = i18n.compile_catalogs(tmp_path)
    assert sorted(p.parent.parent.name for p in written) == ["it", "pl"]
    assert i18n.compile_catalogs(tmp_path) == []  # fresh: nothing to do
    po = tmp_path / "pl" / "LC_MESSAGES" / "messages.po"
    mo = po.with_suffix(".mo")
    stale = mo.stat().st_mtime - 10
    os.utime(mo, (stale, stale))
    assert i18n.compile_catalogs(tmp_path) == [mo]
    with mo.open("rb") as f:
        assert gettext.GNUTranslations(f).gettext("The game is over.") == "Koniec gry."


def test_a_read_only_install_compiles_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for lang, po in CATALOGS.items():
        (tmp_path / lang / "LC_MESSAGES").mkdir(parents=True)
        shutil.copy(po, tmp_path / lang / "LC_MESSAGES" / "messages.po")

    def refuse(*args: object) -> None:
        raise PermissionError("read-only file system")

    monkeypatch.setattr(i18n, "TRANSLATIONS", tmp_path)
    monkeypatch.setattr(i18n.os, "replace", refuse)
    i18n.translations.cache_clear()
    try:
        assert i18n.compile_catalogs(tmp_path) == []
        assert i18n.translations("pl").gettext("The game is over.") == "Koniec gry."
        assert not list(tmp_path.rglob("*.mo")) and not list(tmp_path.rglob("*.tmp"))
    finally:
        i18n.translations.cache_clear()


def test_every_string_in_the_code_and_templates_is_in_the_catalogs() -> None:
    """pybabel extract with babel.cfg: a string added without a catalog update fails here."""
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    extracted = {message for _, _, message, _, _ in extract_from_dir(str(ROOT), method_map, options_map)}
    assert len(extracted) > 50
    for lang in CATALOGS:
        known = {m.id for m in _po(lang) if m.id}
        missing = sorted(str(m) for m in extracted - known)
        assert not missing, f"{lang}: run pybabel extract/update and translate: {missing[:10]}"


# --- plurals ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "word"), [(1, "głos"), (2, "głosy"), (5, "głosów"), (22, "głosy"), (25, "głosów")])
def test_polish_has_three_plural_forms(n: int, word: str) -> None:
    t = i18n.translations("pl")
    text = t.ngettext("%(voter)s → %(colour)s (%(num)d vote)", "%(voter)s → %(colour)s (%(num)d votes)", n)
    assert text % {"voter": "Czerwony", "colour": "Niebieski", "num": n} == f"Czerwony → Niebieski ({n} {word})"


@pytest.mark.parametrize(("n", "verb"), [(1, "opuszcza"), (2, "opuszczają"), (5, "opuszcza"), (22, "opuszczają")])
def test_polish_zombie_plurals(n: int, verb: str) -> None:
    t = i18n.translations("pl")
    text = t.ngettext("%(num)d zombie leaves %(place)s.", "%(num)d zombies leave %(place)s.", n)
    assert text % {"num": n, "place": "4 (Parking)"} == f"{n} zombie {verb} lokację 4 (Parking)."


# --- rendering --------------------------------------------------------------------------------------------------

TEMPLATE = (
    '{{ _("The game is over.") }}|'
    '{{ ngettext("%(num)d zombie leaves %(place)s.", "%(num)d zombies leave %(place)s.", n, place=place) }}|'
    "{{ name }}|{{ lang }}"
)


@pytest.fixture
def templates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "mail").mkdir()
    for suffix in ("html", "txt"):
        (tmp_path / "mail" / f"probe.{suffix}").write_text(TEMPLATE, encoding="utf-8")
    monkeypatch.setattr(i18n, "TEMPLATES", tmp_path)
    i18n.environment.cache_clear()
    yield tmp_path
    i18n.environment.cache_clear()


@pytest.mark.parametrize(
    ("lang", "over", "zombies"),
    [
        ("en", "The game is over.", "5 zombies leave Parking (4)."),
        ("it", "La partita è finita.", "5 zombie lasciano la locazione Parking (4)."),
        ("pl", "Koniec gry.", "5 zombie opuszcza lokację Parking (4)."),
    ],
)
def test_render_translates_each_language(templates: Path, lang: str, over: str, zombies: str) -> None:
    text = i18n.render("mail/probe.txt", lang, n=5, place="Parking (4)", name="<b>x</b>")
    assert text == f"{over}|{zombies}|<b>x</b>|{lang}"


def test_render_escapes_html_only(templates: Path) -> None:
    html = i18n.render("mail/probe.html", "pl", n=1, place="<i>4</i>", name="<b>x</b>")
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>" not in html
    assert "1 zombie opuszcza lokację &lt;i&gt;4&lt;/i&gt;." in html
    text = i18n.render("mail/probe.txt", "pl", n=1, place="<i>4</i>", name="<b>x</b>")
    assert "<b>x</b>" in text


def test_trans_block_with_plural(templates: Path) -> None:
    source = "{% trans count=n %}{{ count }} zombie{% pluralize %}{{ count }} zombies{% endtrans %}"
    env = i18n.environment("en")
    assert env.from_string(source).render(n=1) == "1 zombie"
    assert env.from_string(source).render(n=3) == "3 zombies"


# --- dates ------------------------------------------------------------------------------------------------------

NOW = datetime(2026, 11, 23, 6, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("lang", "absolute", "relative"),
    [
        ("en", "Monday, 23 November 2026 at 14:00 CET", "in 7 hours"),
        ("it", "lunedì 23 novembre 2026 alle 14:00 CET", "tra 7 ore"),
        ("pl", "poniedziałek, 23 listopada 2026 o 14:00 CET", "za 7 godzin"),
    ],
)
def test_format_when_in_seven_hours(lang: str, absolute: str, relative: str) -> None:
    assert i18n.format_when(NOW + timedelta(hours=7), NOW, "Europe/Rome", lang) == (absolute, relative)


@pytest.mark.parametrize(("lang", "relative"), [("en", "2 hours ago"), ("it", "2 ore fa"), ("pl", "2 godziny temu")])
def test_format_when_in_the_past(lang: str, relative: str) -> None:
    assert i18n.format_when(NOW - timedelta(hours=2), NOW, "Europe/Rome", lang)[1] == relative


@pytest.mark.parametrize(
    ("zone", "before", "after"),
    [
        # Europe/Rome springs forward on Sunday 29 March 2026 at 01:00 UTC (02:00 CET -> 03:00 CEST)
        ("Europe/Rome", "Sunday, 29 March 2026 at 01:30 CET", "Sunday, 29 March 2026 at 03:30 CEST"),
        # America/New_York falls back on Sunday 1 November 2026 at 06:00 UTC (02:00 EDT -> 01:00 EST)
        ("America/New_York", "Sunday, 1 November 2026 at 01:30 EDT", "Sunday, 1 November 2026 at 01:30 EST"),
    ],
)
def test_format_when_across_a_dst_change(zone: str, before: str, after: str) -> None:
    change = (
        datetime(2026, 3, 29, 1, 0, tzinfo=UTC) if zone == "Europe/Rome" else datetime(2026, 11, 1, 6, 0, tzinfo=UTC)
    )
    now = change - timedelta(hours=6, minutes=30)
    early = i18n.format_when(change - timedelta(minutes=30), now, zone, "en")
    late = i18n.format_when(change + timedelta(minutes=30), now, zone, "en")
    assert early == (before, "in 6 hours")
    assert late == (after, "in 7 hours")  # an hour apart in real time, whatever the wall clocks say


def test_a_day_across_the_change_is_still_a_day() -> None:
    now = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)  # 13:00 CET on Saturday
    absolute, relative = i18n.format_when(now + timedelta(days=1), now, "Europe/Rome", "it")
    assert (absolute, relative) == ("domenica 29 marzo 2026 alle 14:00 CEST", "tra 1 giorno")


@pytest.mark.parametrize("zone", ["Mars/Olympus", "", "../../etc/passwd", "Europe", None, "x" * 500])
def test_bad_time_zones_fall_back_to_utc(zone: str | None) -> None:
    assert i18n.format_when(NOW + timedelta(hours=7), NOW, zone, "en") == (
        "Monday, 23 November 2026 at 13:00 UTC",
        "in 7 hours",
    )


def test_naive_datetimes_are_utc_and_now_is_now() -> None:
    naive = NOW.replace(tzinfo=None)
    assert i18n.format_when(naive, naive, "Asia/Tokyo", "pl") == (
        "poniedziałek, 23 listopada 2026 o 15:00 JST",
        "teraz",
    )


# --- Flask-Babel ------------------------------------------------------------------------------------------------


@pytest.fixture
def app() -> Flask:
    app = Flask(__name__)
    i18n.init_app(app)

    @app.before_request
    def choose() -> None:
        from flask import request

        if "lang" in request.args:
            g.language = request.args["lang"]
        if "tz" in request.args:
            g.timezone = request.args["tz"]

    @app.get("/")
    def page() -> str:
        from flask_babel import get_locale, get_timezone

        return render_template_string('{{ _("The game is over.") }}|{{ tz }}', tz=str(get_timezone())) + (
            f"|{get_locale()}"
        )

    return app


@pytest.mark.parametrize(
    ("header", "query", "expected"),
    [
        ("it-IT,it;q=0.9,en;q=0.5", "", "La partita è finita.|UTC|it"),
        ("pl", "", "Koniec gry.|UTC|pl"),
        ("de-DE", "", "The game is over.|UTC|en"),
        ("it", "?lang=pl&tz=Europe/Warsaw", "Koniec gry.|Europe/Warsaw|pl"),
        ("it", "?lang=xx&tz=Nowhere/Land", "The game is over.|UTC|en"),
    ],
)
def test_pages_follow_the_view_choice_then_the_browser(app: Flask, header: str, query: str, expected: str) -> None:
    response = app.test_client().get("/" + query, headers={"Accept-Language": header})
    assert response.get_data(as_text=True) == expected
