"""Paper cuts of a new user's first hour, server side: the board says in words which location is under
attack and which are in danger, and why Cachou is closed; the legend does not say "you" twice; time zones are
offered by region and city; the tempo presets describe themselves; the estimate says how long it took."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.data import Phase
from engine.view import spectator_view
from server.present import board, public
from tests.conftest import Stack
from tests.support import post_form

from .test_board import figure_of, legend_text, locations, played_until, texts, title

FIVE = ["red", "yellow", "blue", "green", "black"]


def attack_views(players: list[str], seeds: range) -> list[dict[str, Any]]:
    """Spectator views of real games of sensible bots at each window of phase F whose attack is under way."""
    from engine.bots import SensibleBot

    found = []
    for seed in seeds:
        game = engine.new_game(players, seed=seed)
        bots = {p: SensibleBot(seed + i) for i, p in enumerate(game.players)}
        while not game.over and game.round <= 3:
            if game.phase == Phase.ATTACK:
                view = spectator_view(game)
                if public.attack_under_way(view) is not None:
                    found.append(view)
            req = game.pending()[0]
            game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    return found


@pytest.mark.rule("F-2", "F-3")
def test_every_location_in_danger_and_the_one_under_attack_say_so_in_words() -> None:
    """Each location in danger says "IN DANGER" in the room, whatever its width (the shops' half rooms once showed
    only a sign); the location whose attack is fought says "UNDER ATTACK", in the picture, its title and the mail's
    table, and the legend explains it."""
    seen = {"half": 0, "attacked": 0}
    for view in attack_views(FIVE, range(8)):
        root = figure_of(view, reader=None)
        current = public.attack_under_way(view)
        rows = {row.number: row for row in board.table("en", view).rows}
        for loc, group in locations(root).items():
            classes = (group.get("class") or "").split()
            danger = public.in_danger(view, loc)
            assert ("IN DANGER" in texts(group, "danger-text")) == danger, loc
            assert ("in danger" in rows[loc].marks) == danger
            attacked = loc == current
            assert ("attacked" in classes) == attacked
            assert ("UNDER ATTACK" in texts(group, "attack-text")) == attacked
            assert ("under attack now" in title(group)) == attacked
            assert ("under attack now" in rows[loc].marks) == attacked
            seen["half"] += danger and loc in (1, 2, 3, 5)
            seen["attacked"] += attacked
        assert "under attack now" in legend_text(root)
    assert all(seen.values()), seen


@pytest.mark.rule("SET-4")
@pytest.mark.parametrize(
    ("lang", "words", "why"),
    [
        ("en", "closed with 3 or 4 players", "with 3 or 4 players"),
        ("it", "chiusa con 3 o 4 giocatori", "con 3 o 4 giocatori"),
        ("pl", "zamknięta przy 3 lub 4 graczach", "przy 3 lub 4 graczach"),
    ],
)
def test_cachou_closed_with_few_players_says_why_on_the_board_and_in_the_mail_table(
    lang: str, words: str, why: str
) -> None:
    view = spectator_view(played_until(["red", "yellow", "blue", "green"], 3, 1, Phase.DESTINATIONS))
    cachou = locations(figure_of(view, lang, reader=None))[2]
    assert texts(cachou, "closed-why") == [why]
    assert words in title(cachou)
    row = board.table(lang, view).rows[1]
    assert row.number == 2 and row.closed and row.closed_text == words
    # with five players Cachou is open; a location the zombies closed says so (E-3)
    five = spectator_view(played_until(FIVE, 3, 1, Phase.DESTINATIONS))
    assert not texts(locations(figure_of(five, lang, reader=None))[2], "closed-why")


@pytest.mark.parametrize("name", ["You", "you", " YOU "])
def test_the_legend_does_not_say_you_twice_for_a_player_named_you(name: str) -> None:
    view = engine.view(played_until(["red", "yellow", "blue"], 3, 1, Phase.DESTINATIONS), "red")
    legend = legend_text(figure_of_named(view, {"red": name, "yellow": "Ann"}))
    assert "(Red)" in legend and "(you)" not in legend
    legend = legend_text(figure_of_named(view, {"red": "Bruno", "yellow": "You"}))
    assert "Bruno (Red) (you)" in legend  # another player named You does not hide the reader's mark


def figure_of_named(view: dict[str, Any], names: dict[str, str]) -> Any:
    import xml.etree.ElementTree as ET

    return ET.fromstring(str(board.board_svg(view, "en", "red", names)))


# --- time zones: one select of regions and cities, in every form ---------------------------------------------------


def test_the_zones_offered_are_canonical_cities_grouped_by_region() -> None:
    from server.text import zones

    groups = dict(zones.zone_groups())
    assert list(groups)[:3] == ["Europe", "Americas", "Asia"]
    offered = zones.zone_names()
    assert "UTC" in offered and 300 < len(offered) < 500  # not the ~600 names of the tz database
    for legacy in ("Factory", "localtime", "posixrules", "W-SU", "Etc/GMT+3", "Asia/Calcutta", "America/Buenos_Aires"):
        assert legacy not in offered
    assert not [z for z in offered if z.startswith("Etc/") or ("/" not in z and z != "UTC")]
    assert ("Europe/Rome", "Rome") in groups["Europe"]
    assert ("America/Argentina/Buenos_Aires", "Buenos Aires (Argentina)") in groups["Americas"]
    assert [c for _z, c in groups["Europe"]] == sorted((c for _z, c in groups["Europe"]), key=str.casefold)


def test_every_form_asking_for_a_zone_offers_regions_and_cities_and_keeps_an_old_stored_zone(
    organiser: Stack,
) -> None:
    """The create page, the preferences, a league's sign-up, the mailbox and a new league: one select
    (templates/_zones.html) with a group per region; the create page, the sign-up and a new league let the browser's
    zone be chosen (data-zone-guess), and a stored legacy zone ("W-SU") still shows selected; the server still takes
    any zone it knows."""
    from sqlalchemy import update

    from server.models import Player

    from .test_league_pages import open_league
    from .test_mailbox import mailbox_url, send_game_mail
    from .test_prefs import one_player

    _game, player_id, token, _seat = one_player(organiser)
    with organiser.db.session() as session:
        session.execute(update(Player).where(Player.id == player_id).values(timezone="W-SU"))
    _league, invitation = open_league(organiser)
    send_game_mail(organiser)  # the mailbox shows its form once it holds mail
    pages = {
        "new": organiser.client.get("/o/new").get_data(as_text=True),
        "prefs": organiser.client.get(f"/p/{token}").get_data(as_text=True),
        "signup": organiser.client.get(f"/l/{invitation}").get_data(as_text=True),
        "mailbox": organiser.client.get(mailbox_url(organiser)).get_data(as_text=True),
        "league": organiser.client.get("/o/leagues/new").get_data(as_text=True),
    }
    for name, page in pages.items():
        assert page.count('class="zone-select"') == 1, name
        assert '<optgroup label="Europe">' in page and '<option value="Europe/Rome"' in page, name
        assert ">Factory<" not in page and "posixrules" not in page and "Etc/GMT" not in page, name
    assert '<option value="W-SU" selected>W-SU</option>' in pages["prefs"]
    assert all("data-zone-guess" in pages[name] for name in ("new", "signup", "league"))
    assert "data-zone-guess" not in pages["prefs"]  # a zone is stored: it is not guessed over
    assert '<option value="UTC" selected>UTC</option>' in pages["new"]  # without JavaScript: UTC
    form = {"players": "Ann <ann@example.org>\nBob <bob@example.org>\nbot", "timezone": "Asia/Calcutta"}
    assert post_form(organiser.client, organiser.app, "/o/new", form).status_code == 303  # (then the created page)


# --- the create page: presets and the estimate ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "session", "lengths"),
    [
        ("en", "session", {"week": "About two weeks.", "play-hours": "About four days.", "relaxed": "weeks."}),
        (
            "it",
            "session",
            {"week": "Circa due settimane.", "play-hours": "Circa quattro giorni.", "relaxed": "settimane"},
        ),
        ("pl", "sesj", {"week": "Około dwóch tygodni.", "play-hours": "Około czterech dni.", "relaxed": "tygodni"}),
    ],
)
def test_each_tempo_preset_is_described_by_its_own_words_and_length(
    organiser: Stack, lang: str, session: str, lengths: dict[str, str]
) -> None:
    """The create page pairs each preset's title with its own description (a <dt> and its <dd>): the week's speaks
    of 12 hours and no session, the play hours' of 20:30 and sessions, and each says how long a game takes."""
    import re

    from server.services import presets
    from server.text.i18n import translations

    page = organiser.client.get("/o/new", headers={"Accept-Language": lang}).get_data(as_text=True)
    pairs = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", page, re.S))
    t = translations(lang)
    shown = {name: pairs[str(t.gettext(p.title)).replace("'", "&#39;")] for name, p in presets.PRESETS.items()}
    assert "12" in shown["week"] and session not in shown["week"] and "20:30" not in shown["week"]
    assert "20:30" in shown["play-hours"] and session in shown["play-hours"]
    assert "20:30" not in shown["relaxed"] and session not in shown["relaxed"]
    for name, words in lengths.items():
        assert words in shown[name], (name, shown[name])


def test_the_estimate_says_whole_days_and_how_long_it_took_without_javascript(
    organiser: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without JavaScript the Estimate button posts the form: the page comes back with the figures in whole days and
    says how long working them out took (it may take many seconds)."""
    import re

    from server.services.play import estimate

    monkeypatch.setattr(estimate, "ESTIMATE_GAMES", 12)
    form = {"players": "Ann <ann@example.org>\nBob <bob@example.org>\nCy <cy@example.org>", "estimate": "1"}
    reply = post_form(organiser.client, organiser.app, "/o/new", {**form, "preset": "week"})
    page = reply.get_data(as_text=True)
    assert reply.status_code == 200
    assert re.search(r"About \d+ days; 9 games in 10 end within \d+ days\.", page), page
    assert re.search(r"Worked out in \d+ seconds?\.", page)
    assert 'id="estimate-busy"' in page and 'hx-disabled-elt="#new-game-actions button"' in page
    refused = post_form(organiser.client, organiser.app, "/o/new", {**form, "players": "Ann <ann@example.org>"})
    text = refused.get_data(as_text=True)
    assert refused.status_code == 400 and "No estimate:" in text and "Not created:" not in text


# --- the seat page once every answer is in -----------------------------------------------------------------------


def test_once_every_answer_is_in_the_seat_page_asks_again_within_seconds(stack: Stack) -> None:
    """The window's last answer: the page the answer redirects to (``?saved=N``) and its live fragment poll every
    2 s (not 30) and, without JavaScript, reload themselves, until the worker has moved the game on; then the page
    polls as usual again."""
    import re

    from server.services.play import seats, turns
    from server.text.grammar import commands_for, parse_reply
    from tests.support import create, engine_of, open_window, seat_ids

    from .test_seat_page import links

    stack.app.config["DEADMAIL_LINKS_PER_MINUTE"] = 100_000
    game_id = create(stack.db, 3, seed=5).game_id
    tokens, ids = links(stack, game_id), seat_ids(stack.db, game_id)
    window = open_window(stack.db, game_id)
    assert window is not None
    page = stack.client.get(f"/s/{tokens['red']}").get_data(as_text=True)
    assert f'hx-trigger="refresh, every {seats.POLL_OTHERWISE}s"' in page and 'http-equiv="refresh"' not in page
    eng = engine_of(stack.db, game_id)
    for request in eng.pending():
        view = engine.view(eng, request.player)
        command = commands_for(request.to_json(), view, "en")[0]
        answer = parse_reply(command, request.to_json(), view, "en")
        turns.submit_answer(stack.db, ids[request.player], request.kind, answer, window_number=window.number)
    for path in (f"/s/{tokens['red']}?saved={window.number}", f"/s/{tokens['red']}/live"):
        page = stack.client.get(path).get_data(as_text=True)
        assert f'hx-trigger="refresh, every {seats.POLL_MOVING_ON}s"' in page, path
    page = stack.client.get(f"/s/{tokens['red']}?saved={window.number}").get_data(as_text=True)
    assert re.search(r'<noscript><meta http-equiv="refresh" content="3"></noscript>', page)
    assert turns.advance_window(stack.db, window.id)  # what the worker does
    page = stack.client.get(f"/s/{tokens['red']}?saved={window.number}").get_data(as_text=True)
    assert f'hx-trigger="refresh, every {seats.POLL_OTHERWISE}s"' in page and 'http-equiv="refresh"' not in page
