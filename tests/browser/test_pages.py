"""The pages in a real browser (Debian's headless Chromium): players open their links and answer by clicking, with
and without JavaScript, on a desktop and a phone; forged, revoked and cross-site requests are refused; hostile text
is shown as text and never runs."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import pytest
import sqlalchemy as sa

import engine
from engine.bots import RandomBot
from server.models import Player, RequestRow, Seat, Window, utcnow
from server.run.queue import Queue
from server.services.links import mailbox_token, player_token
from server.services.play import games, turns
from server.text import glossary, sentences
from server.text.grammar import commands_for
from tests.support import engine_of, open_window, play_window, request_of, seat_ids

from ..waiting import wait_for
from .conftest import EMBEDDED, Live, expect, from_the_list, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Dialog, Page

pytestmark = EMBEDDED

HOSTILE = "<img src=x onerror=alert(1)>"
API_TOKEN = "test-api-token"  # tests/conftest.py's DEADMAIL_API_TOKEN
#: bounded waits for what the worker does (seconds)
WORKER_S = 30.0


# --- helpers -----------------------------------------------------------------------------------------------------


@dataclass
class Made:
    game_id: int
    #: colour -> (seat id, the seat's link)
    seats: dict[str, tuple[int, str]]
    #: the colours in seat order (the first is the first name's)
    colours: list[str]


def make_game(live: Live, seed: int, names: list[str] | None = None, tag: str = "") -> Made:
    """A game of people only (3 by default), created as the API does: its first mails are queued for the worker
    (sent once one runs)."""
    names = names or ["Ann", "Bruno", "Ola"]
    tag = tag or str(seed)
    players = [games.PlayerSpec(name=name, email=f"p{i}.{tag}@example.org") for i, name in enumerate(names)]
    settings = live.stack.settings
    created = games.create_game(live.stack.db.with_tasks(Queue(settings)), games.GameSpec(players=players, seed=seed))
    ids = seat_ids(live.stack.db, created.game_id)
    links = games.seat_links(live.stack.db, created.game_id, settings.secret_key, live.url)
    found = {seat["colour"]: (ids[seat["colour"]], seat["link"]) for seat in links}
    return Made(created.game_id, found, list(found))


def window_number(live: Live, game_id: int) -> int | None:
    """The number of the game's open window (None once the game is over)."""
    window = open_window(live.stack.db, game_id)
    return None if window is None else window.number


def stored_answer(live: Live, seat_id: int) -> Any:
    """The seat's answer in the open window (None while unanswered)."""
    found = request_of(live.stack.db, seat_id)
    return None if found is None or found[1].answered_at is None else found[1].answer


def no_dialogs(page: Page) -> list[str]:
    """Collect every alert/confirm/prompt the page opens (a script that ran); the test asserts the list is empty."""
    opened: list[str] = []

    def record(dialog: Dialog) -> None:
        opened.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", record)
    return opened


def no_horizontal_scroll(page: Page) -> None:
    """The page does not scroll sideways; if it does, the failure names the elements wider than the window."""
    from .test_tour import horizontal_scroll

    why = horizontal_scroll(page)
    assert why is None, why


# --- one-tap links and the pages that exist for every game --------------------------------------------------------


def one_tap_url(live: Live, made: Made, colour: str) -> tuple[str, str]:
    """A one-tap link of the seat (as its mail has them) and the command it answers."""
    link = made.seats[colour][1]
    eng = engine_of(live.stack.db, made.game_id)
    view = engine.view(eng, colour)
    request = next(r.to_json() for r in eng.pending() if r.player == colour)
    command = commands_for(request, view, "en")[-1]
    return f"{link}/do?w={window_number(live, made.game_id)}&c={quote(command)}", command


def test_a_one_tap_link_confirms_then_answers_with_and_without_javascript(
    served: Live, desktop: BrowserContext, nojs: BrowserContext
) -> None:
    made = make_game(served, seed=5)
    for context, colour in ((desktop, "red"), (nojs, "blue")):
        page = context.new_page()
        url, _command = one_tap_url(served, made, colour)
        page.goto(url)
        seat_id = made.seats[colour][0]
        assert stored_answer(served, seat_id) is None  # opening the link changes nothing
        expect(page.get_by_role("button", name="Confirm")).to_be_visible()
        page.get_by_role("button", name="Confirm").click()
        page.wait_for_url(re.compile(r"/s/[^/]+\?saved=\d+$"))
        answer = stored_answer(served, seat_id)
        assert answer is not None
        eng = engine_of(served.stack.db, made.game_id)
        request = next(r.to_json() for r in eng.pending() if r.player == colour)
        expect(page.get_by_role("status")).to_contain_text("Your answer is saved")
        expect(page.locator("p.current-answer")).to_contain_text(sentences.describe_answer("en", request, answer))


def test_forms_posted_with_a_broken_or_missing_csrf_token_are_refused(served: Live, desktop: BrowserContext) -> None:
    made = make_game(served, seed=6)
    url, _command = one_tap_url(served, made, "red")
    page = desktop.new_page()
    page.goto(url)
    page.locator("input[name=csrf_token]").evaluate("(input) => { input.value = 'forged' + input.value.slice(6); }")
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.get_by_role("button", name="Confirm").click()
    assert posted.value.status == 400
    expect(page.get_by_role("heading", name="Form not accepted")).to_be_visible()
    assert stored_answer(served, made.seats["red"][0]) is None

    # a page elsewhere posts the same fields without the token, while the player's session exists
    url, command = one_tap_url(served, made, "red")
    page.goto(url)
    action = url.split("?", 1)[0]
    window = window_number(served, made.game_id)
    page.set_content(
        f'<form method="post" action="{action}"><input name="w" value="{window}">'
        f'<input name="c" value="{command}"><button>go</button></form>'
    )
    with page.expect_response(lambda r: r.request.method == "POST") as posted:
        page.get_by_role("button", name="go").click()
    assert posted.value.status == 400
    expect(page.get_by_role("heading", name="Form not accepted")).to_be_visible()
    assert stored_answer(served, made.seats["red"][0]) is None

    # the player page's forms: the decision and the table talk
    page.goto(made.seats["red"][1])
    for form, button in (("form.decision-form", "Answer"), ("article.chat-channel[data-channel=all] form", "Send")):
        page.goto(made.seats["red"][1])
        target = page.locator(form)
        if button == "Answer":
            from_the_list(target)
            target.locator("input[type=radio]").first.check()
        else:
            target.get_by_role("textbox").fill("hello")
        target.locator("input[name=csrf_token]").evaluate("(input) => { input.value = 'x' + input.value; }")
        with page.expect_response(lambda r: r.request.method == "POST") as posted:
            target.get_by_role("button", name=button).click()
        assert posted.value.status == 400
        expect(page.get_by_role("heading", name="Form not accepted")).to_be_visible()
    assert stored_answer(served, made.seats["red"][0]) is None
    page.goto(made.seats["red"][1])
    expect(page.locator("#chat p.chat-text")).to_have_count(0)

    # and the same page with the token answers (the refusals above were about the token only)
    page.goto(url)
    page.get_by_role("button", name="Confirm").click()
    page.wait_for_url(re.compile(r"\?saved=\d+$"))
    assert stored_answer(served, made.seats["red"][0]) is not None


def test_forged_and_revoked_links_say_so(served: Live, desktop: BrowserContext) -> None:
    made = make_game(served, seed=7)
    page = desktop.new_page()
    seat_id, link = made.seats["red"]
    forged = link[:-4] + ("AAAA" if not link.endswith("AAAA") else "BBBB")
    response = page.goto(forged)
    assert response is not None and response.status == 403
    expect(page.get_by_role("heading", name="Link not valid")).to_be_visible()
    expect(page.get_by_text("check that you copied all of it")).to_be_visible()

    response = page.goto(link)
    assert response is not None and response.status == 200
    url, _command = one_tap_url(served, made, "red")
    # the organiser resends the link and revokes the old ones, on the game's page
    page.goto(f"{served.url}/o/login")
    page.get_by_label("Organiser token").fill(API_TOKEN)
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{served.url}/o/games/{made.game_id}")
    page.locator("#revoke-colour").select_option("red")
    page.get_by_role("button", name="Revoke and send a new link").click()
    page.get_by_role("button", name="Yes, revoke the links").click()  # what cannot be undone is confirmed first
    expect(page.get_by_role("status")).to_be_visible()
    with served.stack.db.session() as session:
        seat = session.get(Seat, seat_id)
        assert seat is not None and seat.link_generation == 2
    for old in (link, url):
        response = page.goto(old)
        assert response is not None and response.status == 403
        expect(page.get_by_role("heading", name="Link not valid")).to_be_visible()
        expect(page.get_by_text("replaced by a newer one")).to_be_visible()
    assert stored_answer(served, seat_id) is None


def test_a_hostile_display_name_is_shown_as_text_and_never_runs(served: Live, desktop: BrowserContext) -> None:
    made = make_game(served, seed=8, names=[HOSTILE, "Bruno", "Ola"])
    with served.stack.db.session() as session:
        player = session.execute(sa.select(Player).where(Player.display_name == HOSTILE)).scalar_one()
        token = player_token(served.stack.settings.secret_key, player.id, player.link_generation)
    page = desktop.new_page()
    opened = no_dialogs(page)
    page.goto(f"{served.url}/p/{token}")
    expect(page.get_by_text(HOSTILE, exact=False).first).to_be_visible()
    assert page.locator("img[src=x]").count() == 0
    for url in (made.seats[made.colours[1]][1], f"{served.url}/o/login"):  # another player's page, the organiser's
        page.goto(url)
        if url.endswith("/o/login"):
            page.get_by_label("Organiser token").fill(API_TOKEN)
            page.get_by_role("button", name="Log in").click()
            page.goto(f"{served.url}/o/games/{made.game_id}")
            expect(page.get_by_text(HOSTILE).first).to_be_visible()  # the organiser sees the name, as text
        assert page.locator("img[src=x]").count() == 0
        assert HOSTILE not in page.content()
    assert opened == []


def test_the_mailbox_lists_the_mails_and_their_links_open_the_pages(live: Live, desktop: BrowserContext) -> None:
    made = make_game(live, seed=9)
    page = desktop.new_page()
    opened = no_dialogs(page)
    box = f"{live.url}/mail/{mailbox_token(live.stack.settings.secret_key)}"
    mail_dir = live.stack.settings.mail_dir
    wait_for(lambda: mail_dir.is_dir() and len(list(mail_dir.glob("*.eml"))) >= 3, WORKER_S, "the first mails")
    page.goto(box)
    rows = page.locator(".mail-card")  # the mailbox lists its mails as cards
    expect(rows).to_have_count(3)
    rows.filter(has_text="p0.9@example.org").get_by_role("link").click()
    # signed links carry the time they were made: the mail's link opens the same seat (payload [seat, generation])
    payload = made.seats[made.colours[0]][1].rsplit("/", 1)[1].split(".")[0]
    frame = page.frame_locator("iframe")
    link = frame.locator(f'a[href^="{live.url}/s/{payload}."]:not([href*="/do"])')
    expect(link).to_have_count(1)
    with page.expect_navigation():
        link.click()
    assert re.fullmatch(rf"{re.escape(live.url)}/s/{payload}\.[^/?]+\?via=mail", page.url)  # mail reached them
    expect(page.locator("svg.board")).to_be_visible()
    assert page.get_by_role("heading").first.inner_text()
    assert opened == []


# --- a game created by the organiser in the browser, and a round played by clicking -------------------------------


class _Tokens(HTMLParser):
    """The character tokens of the board picture: (colour, character, location) of each ``g.token``."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str | None] = []
        self.found: set[tuple[str, str, str | None]] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "g":
            return
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if "location" in classes:
            self.stack.append(a.get("data-location"))
        else:
            self.stack.append(self.stack[-1] if self.stack else None)
        if "token" in classes:
            self.found.add((str(a.get("data-colour")), str(a.get("data-character")), self.stack[-1]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "g" and self.stack:
            self.stack.pop()


def board_tokens(page: Page) -> set[tuple[str, str, str | None]]:
    expect(page.locator("svg.board")).to_have_count(1)
    parser = _Tokens()
    parser.feed(page.content())
    return parser.found


def seat_colours(page: Page) -> dict[str, str]:
    """colour -> link, from the organiser's list of seats (inputs ``link-<colour>``)."""
    out = {}
    for field in page.locator("input[id^=link-]").all():
        out[str(field.get_attribute("id")).removeprefix("link-")] = str(field.input_value())
    return out


def check_no_secrets(live: Live, game_id: int, colour: str, page: Page, links: dict[str, str]) -> None:
    """The page of ``colour`` holds nothing of another player's: their links, their cards (in the hand and the
    decision), and their stored answers in the open window (unless the same words are one of this seat's choices)."""
    html = page.content()
    for other, link in links.items():
        if other != colour:
            assert link.rsplit("/", 1)[1] not in html, f"{colour}'s page holds {other}'s link"
    eng = engine_of(live.stack.db, game_id)
    mine = {glossary.card_name("en", c) for c in eng.hands[colour]}
    hand = page.locator("section.hand").inner_text()
    assert all(name in hand for name in mine), f"{colour}'s own cards {mine} are not all shown"
    requests = {r.player: r.to_json() for r in eng.pending()}
    for card in {c for p, hand in eng.hands.items() if p != colour for c in hand}:
        name = glossary.card_name("en", card)
        if name in mine or card in (requests.get(colour, {}).get("cards") or []):
            continue
        for region in ("section.hand", "section.decision"):
            text = page.locator(region).inner_text()
            assert name not in text, f"{colour}'s {region} names {name}, a card only another player holds"
    own = set(page.locator("section.decision label").all_text_contents())  # folded under the picker too
    with live.stack.db.session() as session:
        rows = session.execute(
            sa.select(RequestRow, Seat.colour)
            .join(Window, Window.id == RequestRow.window_id)
            .join(Seat, Seat.id == RequestRow.seat_id)
            .where(Window.game_id == game_id, Window.status == "open", RequestRow.answered_at.is_not(None))
        ).all()
        answers = [(c, row.payload, row.answer) for row, c in rows if c != colour]
    for other, payload, answer in answers:
        said = sentences.describe_answer("en", payload, answer)
        if not any(said in label for label in own):
            assert said not in html, f"{colour}'s page shows {other}'s answer: {said}"
    if eng.dice is not None and colour not in eng.dice["seen_by"]:
        assert page.locator("p.dice").count() == 0


def answer_by_clicking(page: Page, index: int) -> str:
    """Pick the ``index``-th choice of the decision form (wrapping) and answer; returns the choice's words."""
    form = page.locator("form.decision-form")
    from_the_list(form)
    choices = form.locator("label.choice:not([hidden])")
    count = choices.count()
    assert count >= 1
    choice = choices.nth(index % count)
    words = choice.locator("span").inner_text()
    choice.locator("input[type=radio]").check()
    asked = form.get_attribute("id")  # "decision-<window>"
    with page.expect_response(re.compile(r"\?saved=\d+$")) as saved:
        form.get_by_role("button", name="Answer").click()
    page.wait_for_url(re.compile(r"\?saved=\d+$"))
    expect(page.get_by_role("status")).to_contain_text("Your answer is saved")
    # the page the server sent after saving shows the answer (read from the response: the page's live refresh may
    # already show the next decision), unless that was the window's last answer and the worker moved on first
    served = saved.value.text()
    if f'id="{asked}"' not in served:
        return words
    shown = re.findall(r'<p class="current-answer">(.*?)</p>', served, re.S)
    assert shown and words.split(" ", 1)[1][:20] in html.unescape(shown[0]), shown
    return words


def reload_the_created_page(organiser: Page, live: Live, game_id: int, links: dict[str, str]) -> None:
    """Reloading the created page, or going back to it and forth, creates no other game (the form's POST
    was redirected to it: POST/redirect/GET); it shows the same seats."""
    assert organiser.url == f"{live.url}/o/games/{game_id}/created"
    organiser.reload()
    organiser.go_back()
    organiser.go_forward()
    expect(organiser.get_by_role("heading", level=1)).to_have_text(f"Game {game_id} is created")
    seats = {colour: link.split(".")[0] for colour, link in links.items()}  # the same seats (signed anew each second)
    assert {colour: link.split(".")[0] for colour, link in seat_colours(organiser).items()} == seats
    organiser.goto(f"{live.url}/o/")
    expect(organiser.get_by_text("Browser night")).to_have_count(1)


@pytest.mark.long(12)
def test_an_organiser_creates_a_game_and_the_players_play_a_round_by_clicking(
    live: Live,
    desktop: BrowserContext,
    phone: BrowserContext,
    nojs: BrowserContext,
    new_context: Callable[[], BrowserContext],
) -> None:
    organiser = desktop.new_page()
    opened = no_dialogs(organiser)
    organiser.goto(f"{live.url}/o/login")
    organiser.get_by_label("Organiser token").fill(API_TOKEN)
    organiser.get_by_role("button", name="Log in").click()
    organiser.goto(f"{live.url}/o/new")
    organiser.get_by_label("Title (optional)").fill("Browser night")
    organiser.get_by_label("Players, one a line").fill(
        "Ann <ann@example.org>\nBruno <bruno@example.org>\nOla <ola@example.org>"
    )
    organiser.get_by_role("button", name="Create the game").click()
    expect(organiser.get_by_role("heading", level=1)).to_contain_text("is created")
    game_id = int(re.findall(r"\d+", organiser.get_by_role("heading", level=1).inner_text())[0])
    links = seat_colours(organiser)
    assert len(links) == 3 and all(link.startswith(f"{live.url}/s/") for link in links.values())
    reload_the_created_page(organiser, live, game_id, links)

    # one player on a desktop, one on a phone, one with JavaScript turned off
    colours = list(links)
    contexts = dict(zip(colours, (new_context(), phone, nojs), strict=True))
    pages = {c: contexts[c].new_page() for c in colours}
    for page in pages.values():
        opened += no_dialogs(page)
    before = {}
    first = window_number(live, game_id)
    for colour, page in pages.items():
        page.goto(links[colour])
        expect(page.get_by_role("heading", level=1)).to_contain_text("Browser night")
        before[colour] = board_tokens(page)
        check_no_secrets(live, game_id, colour, page, links)
    no_horizontal_scroll(pages[colours[1]])

    deciding = [c for c in colours if pages[c].locator("form.decision-form").count() == 1]
    assert deciding, "nobody has a decision in the first window"
    for i, colour in enumerate(deciding):
        answer_by_clicking(pages[colour], i)
        for other in colours:  # a stored answer shows on nobody else's page
            pages[other].reload()
            check_no_secrets(live, game_id, other, pages[other], links)
    wait_for(lambda: window_number(live, game_id) != first, WORKER_S, "the worker to advance the first window")

    for colour, page in pages.items():
        page.reload()
        after = board_tokens(page)
        assert after != before[colour], "the board picture did not change"
        check_no_secrets(live, game_id, colour, page, links)
    eng = engine_of(live.stack.db, game_id)
    table = eng.position()["characters"]
    placed = {(c, ch, str(loc)) for c, chars in table.items() for ch, loc in chars.items() if loc is not None}
    assert board_tokens(pages[colours[0]]) == placed  # the picture is the table
    screenshot(pages[colours[0]], "round-desktop")
    screenshot(pages[colours[1]], "round-phone")
    organiser.goto(f"{live.url}/o/games/{game_id}")
    expect(organiser.get_by_role("heading", level=1)).to_be_visible()
    assert opened == []


HOSTILE_CHAT = "<script>alert('chat')</script><img src=x onerror=alert(2)> & <b>bold</b>"


def test_a_hostile_chat_message_is_shown_as_text_and_never_runs(
    served: Live, desktop: BrowserContext, new_context: Callable[[], BrowserContext]
) -> None:
    made = make_game(served, seed=11)
    author, reader = made.colours[0], made.colours[1]
    page = desktop.new_page()
    opened = no_dialogs(page)
    page.goto(made.seats[author][1])
    public = page.locator("article.chat-channel[data-channel=all]")
    public.get_by_role("textbox").fill(HOSTILE_CHAT)
    public.get_by_role("button", name="Send").click()
    expect(page.locator("#chat").get_by_role("status")).to_contain_text("Your message is posted")
    other = new_context().new_page()
    opened += no_dialogs(other)
    other.goto(made.seats[reader][1])
    for shown in (page, other):
        message = shown.locator("article.chat-channel[data-channel=all] p.chat-text")
        expect(message).to_have_text(HOSTILE_CHAT)  # the very characters, as text
        assert shown.locator("#chat img, #chat script, #chat b").count() == 0
        assert "&lt;script&gt;" in shown.content()
    assert opened == []


def test_the_replay_steps_round_by_round_once_the_game_is_over(
    served: Live, desktop: BrowserContext, nojs: BrowserContext
) -> None:
    made = make_game(served, seed=12)
    link = made.seats[made.colours[0]][1]
    page = desktop.new_page()
    response = page.goto(f"{link}/replay")
    assert response is not None and response.status == 409  # nothing of it while the game runs
    expect(page.get_by_role("heading", name="Game still running")).to_be_visible()
    assert page.locator("svg.board").count() == 0

    windows, dice_checked = 0, False
    links = {colour: seat_link for colour, (_seat_id, seat_link) in made.seats.items()}
    while window_number(served, made.game_id) is not None:  # everyone answers like a random bot, to the end
        eng = engine_of(served.stack.db, made.game_id)
        if not dice_checked and eng.dice is not None and set(eng.players) - set(eng.dice["seen_by"]):
            # the zombie dice are rolled: only who saw them sees them; a secret destination stays with its author
            dice_checked = True
            first = eng.pending()[0]
            seat_id = made.seats[first.player][0]
            answer = RandomBot(1).decide(eng, first)
            turns.submit_answer(served.stack.db, seat_id, first.kind, answer, window_number=eng.window_no)
            for colour in eng.players:
                page.goto(links[colour])
                check_no_secrets(served, made.game_id, colour, page, links)
                seen = colour in eng.dice["seen_by"]
                expect(page.locator("p.dice")).to_have_count(1 if seen else 0)
                if seen:
                    expect(page.locator("p.dice")).to_contain_text(", ".join(map(str, eng.dice["values"])))
        play_window(served.stack.db, made.game_id, 12, utcnow())
        windows += 1
        assert windows < 400
    assert dice_checked
    assert engine_of(served.stack.db, made.game_id).over

    page = nojs.new_page()  # plain links: no script needed to step through it
    page.goto(f"{link}/replay")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Replay")
    seen_rounds, answers, private = [], 0, 0
    for _ in range(30):
        current = page.locator("nav.replay-rounds [aria-current=page]").inner_text()
        assert current not in seen_rounds
        seen_rounds.append(current)
        expect(page.locator("svg.board")).to_have_count(1)
        answers += page.locator("ol.replay-answers li").count()
        private += page.locator("ol.replay-events li.private").count()
        step = page.locator("section.replay-round nav.replay-steps").first.locator("a[rel=next]")
        if step.count() == 0:
            break
        step.click()
    assert seen_rounds[0] == "Setup" and len(seen_rounds) >= 3
    assert seen_rounds == page.locator("nav.replay-rounds li").all_inner_texts()
    assert answers >= windows  # every answer is revealed, and every private event
    assert private > 0
    step_event_by_event(desktop.new_page(), link)


def step_event_by_event(page: Page, link: str) -> None:
    """The replay event by event (issue 28): the → key starts stepping through a round, → and ← go on and back,
    the buttons too; each step names its event and marks it in the round's story."""
    page.goto(f"{link}/replay?round=1")
    heading = page.locator("#replay-mall-title")
    expect(heading).to_have_text("The mall at the end of this round")
    page.keyboard.press("ArrowRight")
    expect(heading).to_have_text(re.compile(r"^Event (\d+) of (\d+)$"))
    first = int(heading.inner_text().split()[1])
    for number in (first + 1, first + 2):
        page.keyboard.press("ArrowRight")
        expect(heading).to_have_text(re.compile(rf"^Event {number} of "))
    current = page.locator("ol.replay-events li.current")
    expect(current).to_have_count(1)
    expect(page.locator("p.replay-now")).to_have_text(current.locator("a").inner_text())
    page.keyboard.press("ArrowLeft")
    expect(heading).to_have_text(re.compile(rf"^Event {first + 1} of "))
    page.get_by_role("link", name="Next event").click()
    expect(heading).to_have_text(re.compile(rf"^Event {first + 2} of "))
    page.get_by_role("link", name="Previous event").click()
    expect(heading).to_have_text(re.compile(rf"^Event {first + 1} of "))
    expect(page.locator("svg.board")).to_have_count(1)
