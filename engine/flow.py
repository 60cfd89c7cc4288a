"""The order of play (RULES.md B-RND to B-END, H-2, H-3) as one generator.

The generator yields *windows*: lists of requests open at the same time (H-1), in seating order from the Chief.
The caller sends back a dict ``{player: parsed answer}`` once every request of the window is answered; it answers
the forced ones (H-2, H-5) itself, without asking, with ``forced_answers``, and sends the answers back at once when
every request of a window is forced (or the window is empty).

The phases yield their windows themselves, or through at most a few helpers (``once_around``, the votes): every
level of ``yield from`` is passed through at each request and each answer.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any, Required, TypedDict

from .data import (
    CARDS,
    CHARACTERS,
    LOCATIONS,
    PARKING,
    SECURITY,
    START_PHASES,
    WEAPONS,
    ZOMBIE_SUPPLY,
    Kind,
    Phase,
)
from .requests import MoveChoice, ParsedAnswer, Placement, Play, Request, RequestContext, answer_json, forced
from .rules import (
    attack_threshold,
    condemned_now,
    eligible_colours,
    extra_zombie_targets,
    from_chief,
    game_over,
    has_room,
    is_full,
    legal_destinations,
    living,
    next_chief,
    occupied,
    present_colours,
    resolve_vote,
    revote_weight,
    scores,
    strength,
    tally,
    visible_at,
    vote_weight,
    winners,
    zombie_players,
    zombies_get_in,
)
from .shapes import MoveOption, PlaceOption, RequestInfo

if TYPE_CHECKING:
    from .game import Game

#: yields a window of requests, is sent ``{player: parsed answer}`` (see engine.requests for each kind's type).
Flow = Generator[list[Request], dict[str, Any], Any]


def play(g: Game, start: Phase | None = None) -> Flow:
    """The whole game from wherever ``g`` stands: setup, or the start of a phase of a round (``start``: default
    ``g.phase``). The start of a round is announced to ``g.round_starts`` (``Game.snapshot``)."""
    start = start or g.phase
    if start == Phase.SETUP:
        yield from setup(g)
        start = Phase.TRUCK
    while True:  # a round (B-RND), from its phase ``start``
        if start == Phase.TRUCK:
            g.round_starts()
        step = START_PHASES.index(start)
        g.emit("round_started", round=g.round, phase=start)
        if step == 0:
            yield from truck(g)
        if step <= 1:
            yield from chief(g)
        if step <= 2:
            yield from arrival(g)
            yield from destinations(g)
            yield from moves(g)
        yield from attack(g)
        g.hidden.clear()  # F-10 / R-35
        g.destinations = {}
        g.moved = {}
        if game_over(g):
            finish(g)
            return
        g.round += 1
        start = Phase.TRUCK


def forced_answers(g: Game, requests: list[Request]) -> tuple[dict[str, ParsedAnswer], list[Request]]:
    """A window the flow yields, split into the answers given without asking (H-2, H-5: told to their player alone)
    and the requests to ask, in the window's order."""
    answers: dict[str, ParsedAnswer] = {}
    waiting = []
    for req in requests:
        options = req.options
        if options is None or (len(options) > 1 and req.kind != "victim"):
            # cards and truck requests (every forced answer is an option), and a choice among options: asked
            # (only a victim request is forced with more than one option, by a standing order)
            waiting.append(req)
            continue
        is_forced, value = forced(g, req, g.standing)
        if is_forced:
            answers[req.player] = value
            g.emit(
                "answer_auto", to=(req.player,), player=req.player, kind=req.kind, answer=answer_json(req.kind, value)
            )
        else:
            waiting.append(req)
    return answers, waiting


def once_around(
    g: Game,
    players: list[str],
    make: Callable[[Game, str], Request | None],
    apply: Callable[[Game, Request, Any], None],
    closed: Callable[[], bool] | None = None,
) -> Flow:
    """H-3: a step that goes once around the table from the Chief.

    ``strict`` asks one player at a time, each seeing what the earlier ones did, and stops early once ``closed()``
    says so (F-6); ``batched`` asks everyone at once and applies the answers in order from the Chief.
    ``make(g, player)`` returns None for a player with nothing to decide; ``apply(g, request, answer)``.
    """
    if g.options.strict:
        for p in players:
            if closed is not None and closed():
                return
            req = make(g, p)
            if req is not None:
                answers = yield [req]
                apply(g, req, answers[p])
        return
    requests = [r for p in players if (r := make(g, p)) is not None]
    if requests:
        answers = yield requests
        for req in requests:
            apply(g, req, answers[req.player])


# --- setup (B-SET) ---------------------------------------------------------------------------------------------


def setup(g: Game) -> Flow:
    """SET-5 placement (strict: one at a time; batched: placement rounds, H-3), then SET-6."""
    assert g.unplaced is not None
    while True:
        order = [p for p in from_chief(g) if g.unplaced[p]]
        if not order:
            break
        # one placement round; batched: everyone rolls (in order from the Chief) and is asked at once (H-3)
        yield from once_around(g, order, place_request, apply_place)
    g.unplaced = None
    values = [g.roll() for _ in range(4)]
    placed = [v for v in values if v not in g.closed]
    for v in placed:
        g.zombies[v] += 1
    g.emit("initial_zombies", dice=values, ignored=[v for v in values if v in g.closed])
    g.round = 1


def place_request(g: Game, player: str) -> Request:
    """SET-5: two dice; a full or closed die location is unusable; with none usable, any open location with room."""
    assert g.unplaced is not None
    dice = (g.roll(), g.roll())
    g.emit("placement_dice", player=player, dice=list(dice))
    spots = [d for d in sorted(set(dice)) if has_room(g, d)]
    if not spots:
        spots = [loc for loc in LOCATIONS if has_room(g, loc)]
    chars: list[str] = [c for c in CHARACTERS if c in g.unplaced[player]]
    options: list[PlaceOption] = [{"character": c, "location": loc} for c in chars for loc in spots]
    return Request(player, Kind.PLACE, options, {"dice": list(dice)}, {"unplaced": chars, "spots": spots, "dice": dice})


def apply_place(g: Game, req: Request, answer: Placement) -> None:
    """H-3 batched placement: chosen location, else the other die, else the fallback, else the Parking."""
    assert g.unplaced is not None
    character, loc, fallback = answer
    if not has_room(g, loc):
        other = [d for d in req.ctx["dice"] if d != loc and has_room(g, d)]
        if other:
            loc = other[0]
        elif fallback is not None and has_room(g, fallback):
            loc = fallback
        else:
            loc = PARKING
    g.put(req.player, character, loc)
    g.unplaced[req.player].remove(character)
    g.emit("placed", player=req.player, character=character, location=loc)


# --- the phases of a round (B-RND, played by ``play``) ---------------------------------------------------------


def truck(g: Game) -> Flow:
    """Phase A (A-1 to A-6)."""
    g.phase = Phase.TRUCK
    g.chief_elected = False  # DEF-7: reset at the start of every round
    if not g.deck:
        g.emit("truck_skipped", reason="deck_empty")
        return
    if not occupied(g, PARKING):
        g.emit("truck_skipped", reason="parking_empty")
        return
    winner = yield from vote_with_cards(g, PARKING, "truck")
    if winner is None:
        g.emit("truck_skipped", reason="tie")  # A-6 / VOT-8
        return
    yield from search_truck(g, winner)


def search_truck(g: Game, searcher: str) -> Flow:
    """A-3 / A-4 / A-5: keep one, give one to another living player, the third to the bottom."""
    cards = g.deck[:3]
    recipients = [p for p in g.seating[searcher][1:] if g.chars[p]]
    if len(cards) == 1 or not recipients:
        keep, give, to = cards[0], None, None
        g.emit("answer_auto", to=(searcher,), player=searcher, kind=Kind.TRUCK, answer={"keep": keep})
    else:
        req = Request(searcher, Kind.TRUCK, None, {"cards": list(cards)}, {"recipients": recipients})
        answers = yield [req]
        keep, give, to = answers[searcher]
    del g.deck[: len(cards)]
    rest = list(cards)
    rest.remove(keep)
    g.hands[searcher].append(keep)
    if give is not None and to is not None:
        rest.remove(give)
        g.hands[to].append(give)
        g.emit("gift_received", to=(to, searcher), player=to, card=give, giver=searcher)
    g.deck.extend(rest)
    g.emit("truck_searched", player=searcher, drew=len(cards), gave_to=to)
    g.emit("truck_cards", to=(searcher,), player=searcher, cards=cards, kept=keep, gave=give, bottom=rest)


def chief(g: Game) -> Flow:
    """Phase B (B-1 to B-4)."""
    g.phase = Phase.CHIEF
    g.chief_elected = False
    if SECURITY in g.closed or not occupied(g, SECURITY):
        g.emit("no_election", chief=g.chief)  # B-1
        return
    winner = yield from vote_with_cards(g, SECURITY, "chief")
    if winner is None:
        g.emit("no_election", chief=g.chief, reason="tie")  # B-3
        return
    g.chief = winner
    g.chief_elected = True
    g.emit("chief_elected", chief=winner)


def arrival(g: Game) -> Flow:
    """Phase C: a secret roll; only an elected Chief sees it (C-2); then the camera window (C-3)."""
    g.phase = Phase.ARRIVAL
    values = [g.roll() for _ in range(4)]
    seen = [g.chief] if g.chief_elected else []
    g.dice = {"values": values, "seen_by": seen}
    g.emit("zombie_dice_rolled", to=tuple(seen), values=values)
    yield from card_window(g, "arrival", None, [p for p in living(g) if p not in seen])


def destinations(g: Game) -> Flow:
    """Phase D: the elected Chief announces first (D-1), the others choose in secret (D-2), then zombies (D-5)."""
    g.phase = Phase.DESTINATIONS
    g.destinations = {}
    movers = living(g)
    if g.chief_elected and g.chief in movers:
        movers.remove(g.chief)
        req = location_request(g, g.chief, Kind.ANNOUNCE)
        if req is not None:
            answers = yield [req]
            g.destinations[g.chief] = answers[g.chief]
            g.emit("destination_announced", player=g.chief, location=answers[g.chief])
    requests = [r for p in movers if (r := location_request(g, p, Kind.DESTINATION)) is not None]
    open_ = [loc for loc in LOCATIONS if loc not in g.closed]
    zombies = [Request(z, Kind.ZOMBIE, list(open_)) for z in zombie_players(g, g.options.zombie_player)]
    if g.options.strict:
        answers = yield requests
        for zreq in zombies:  # one at a time, each seeing the earlier ones (H-3)
            placed = yield [zreq]
            place_zombie(g, zreq.player, placed[zreq.player])
    else:
        # Zombie players are not the ones choosing destinations and see none of them: one window (H-3).
        seats = from_chief(g)
        both = sorted(requests + zombies, key=lambda r: seats.index(r.player))  # in seating order from the Chief
        answers = yield both
        for zreq in zombies:
            place_zombie(g, zreq.player, answers[zreq.player])
    for req in requests:
        g.destinations[req.player] = answers[req.player]


def place_zombie(g: Game, player: str, loc: int | None) -> None:
    """D-5: an eliminated player's zombie, public; none after a timeout (H-4)."""
    if loc is None:
        g.emit("zombie_not_placed", player=player)
    else:
        g.zombies[loc] += 1
        g.emit("zombie_placed", player=player, location=loc)
        check_supply(g)


def location_request(g: Game, player: str, kind: Kind) -> Request | None:
    options = legal_destinations(g, player)
    if not options:
        g.emit("no_destination", player=player)  # the player skips the move
        return None
    info: RequestInfo = {}
    if g.dice is not None and player in g.dice["seen_by"]:
        info["dice"] = list(g.dice["values"])
    return Request(player, kind, options, info)


def moves(g: Game) -> Flow:
    """Phase E: reveal (E-1), dice (E-2), condemnation (E-3), moves from the Chief (E-4 to E-6)."""
    g.phase = Phase.MOVES
    g.emit("destinations_revealed", destinations=dict(g.destinations))
    assert g.dice is not None
    values = g.dice["values"]
    for v in values:
        if v not in g.closed:
            g.zombies[v] += 1
    g.emit("zombie_dice_revealed", values=list(values), ignored=[v for v in values if v in g.closed])
    g.dice = None
    for loc in condemned_now(g):
        g.closed.add(loc)
        g.emit("condemned", location=loc, zombies_removed=g.zombies[loc])
        g.zombies[loc] = 0
    check_supply(g)
    g.moved = {}
    movers = [p for p in from_chief(g) if p in g.destinations]
    yield from once_around(g, movers, move_request, apply_move)
    if g.options.sprint_timing == "after_moves":
        yield from card_window(g, "sprint", None, [p for p in movers if p in g.moved])


def move_request(g: Game, player: str) -> Request:
    target = g.destinations[player]
    mine = g.chars[player]
    options: list[MoveOption] = [{"character": c} for c in CHARACTERS if c in mine and mine[c] != target]
    can_sprint = g.options.sprint_timing == "on_move" and "sprint" in g.hands[player]
    return Request(player, Kind.MOVE, options, {"destination": target}, {"can_sprint": can_sprint})


def apply_move(g: Game, req: Request, answer: MoveChoice) -> None:
    player = req.player
    character, sprint, if_full = answer
    target = g.destinations[player]
    if sprint is not None:
        if not if_full or target in g.closed or is_full(g, target):
            discard(g, player, "sprint")
            g.emit("card_played", player=player, card="sprint", character=character, location=sprint)
            target = sprint
        else:
            g.emit("card_kept", to=(player,), player=player, card="sprint", reason="destination_has_room")
    g.moved[player] = character
    settle(g, player, character, target)


def settle(g: Game, player: str, character: str, target: int) -> None:
    """E-4 (c): a closed or full target sends the character to the Parking (where one already there stays)."""
    origin = g.chars[player][character]
    blocked = target != origin and (target in g.closed or is_full(g, target))
    end = PARKING if blocked else target
    g.put(player, character, end)
    g.emit("moved", player=player, character=character, origin=origin, target=target, location=end)


# --- attacks (B-F) ---------------------------------------------------------------------------------------------


def attack(g: Game) -> Flow:
    """Phase F: extra zombies (F-1), then locations 1 to 6 (F-2)."""
    g.phase = Phase.ATTACK
    most, pinups = extra_zombie_targets(g)
    for loc in (most, pinups):
        if loc is not None:
            g.zombies[loc] += 1
    g.emit("extra_zombies", most_characters=most, most_pinups=pinups)
    check_supply(g)
    for loc in LOCATIONS:
        if loc in g.closed:
            continue
        if loc == PARKING:
            yield from attack_parking(g)
        elif zombies_get_in(g, loc):  # F-3: else no attack there
            yield from attack_location(g, loc)


def attack_location(g: Game, loc: int) -> Flow:
    """F-3 to F-6, at a location the zombies get into."""
    g.hardware = 0
    g.threats = {}
    g.emit("attack", location=loc, zombies=g.zombies[loc], strength=strength(g, loc))
    yield from card_window(g, "attack", loc, attack_entitled(g, loc))
    if not zombies_get_in(g, loc):
        g.emit("attack_held", location=loc, zombies=g.zombies[loc], threshold=attack_threshold(g, loc))
    elif not (targets := eligible_colours(g, loc)):
        g.emit("attack_no_target", location=loc)  # F-4.3: all hidden, the zombies stay
    else:
        loser = yield from attack_vote(g, loc, targets)
        eat(g, loser, loc, (yield [victim_request(g, loser, loc)]))
        g.emit("zombies_left", location=loc, zombies=g.zombies[loc])
        g.zombies[loc] = 0
    g.hardware = 0


def attack_parking(g: Game) -> Flow:
    """F-7 / F-8: every zombie feeds, one vote each; then the Parking is cleared."""
    while g.zombies[PARKING] > 0 and eligible_colours(g, PARKING):
        g.threats = {}  # a Threat counts for one vote only
        g.emit("attack", location=PARKING, zombies=g.zombies[PARKING], strength=0)
        yield from card_window(g, "attack", PARKING, attack_entitled(g, PARKING))
        targets = eligible_colours(g, PARKING)
        if g.zombies[PARKING] == 0 or not targets:
            break
        loser = yield from attack_vote(g, PARKING, targets)
        eat(g, loser, PARKING, (yield [victim_request(g, loser, PARKING)]))
        g.zombies[PARKING] -= 1
    if g.zombies[PARKING]:
        g.emit("zombies_left", location=PARKING, zombies=g.zombies[PARKING])
        g.zombies[PARKING] = 0


def attack_entitled(g: Game, loc: int) -> list[str]:
    """VOT-6 / R-2: players present at the location (option attack_cards=everyone: every living player)."""
    return living(g) if g.options.attack_cards == "everyone" else present_colours(g, loc)


def attack_vote(g: Game, loc: int, targets: list[str]) -> Flow:
    """The losing colour of an attack; a second tie draws a colour at random (VOT-8 / R-10)."""
    if len(targets) == 1:
        g.emit("vote_uncontested", location=loc, colour=targets[0])
        return targets[0]
    winner, tied = yield from hold_vote(g, loc, targets)
    if winner is not None:
        return winner
    pool = targets if g.options.attack_tie_pool == "present" else tied
    colour = g.rng.choice(pool)
    g.emit("random_colour", location=loc, pool=list(pool), colour=colour)
    return colour


def victim_request(g: Game, player: str, loc: int) -> Request:
    """VOT-9: the losing colour chooses its victim among its non-hidden characters there."""
    visible = visible_at(g, player, loc)
    options = [c for c in CHARACTERS if c in visible]
    return Request(player, Kind.VICTIM, options, {"location": loc})


def eat(g: Game, player: str, loc: int, answers: dict[str, str]) -> None:
    """VOT-9: the victim chosen (``victim_request``) is eaten."""
    character = answers[player]
    g.take(player, character)
    g.emit("eaten", player=player, character=character, location=loc)
    if not g.chars[player]:  # F-9 / ELM-1
        g.eliminated[player] = g.round
        g.emit("eliminated", player=player)
        if g.chief == player:  # B-5 / R-23
            g.chief_elected = False
            g.chief = next_chief(g, player)
            if g.chief != player:
                g.emit("chief_passed", chief=g.chief)


# --- votes and card windows (B-VOT) ---------------------------------------------------------------------------


def vote_with_cards(g: Game, loc: int, window: str) -> Flow:
    """Phases A and B: a Threat window, then the vote; no window when one colour is eligible (VOT-5, H-2)."""
    g.threats = {}
    targets = eligible_colours(g, loc)
    if len(targets) == 1:
        g.emit("vote_uncontested", location=loc, colour=targets[0])
        return targets[0]
    present = present_colours(g, loc)
    yield from card_window(g, window, loc, present)
    winner, _ = yield from hold_vote(g, loc, targets, present)
    return winner


def hold_vote(g: Game, loc: int, candidates: list[str], present: list[str] | None = None) -> Flow:
    """VOT-1 to VOT-7: the first vote, then at most one re-vote among the tied colours. ``present``: the colours
    present at ``loc`` (``present_colours``) when the caller has them."""
    if present is None:
        present = present_colours(g, loc)
    first = {p: vote_weight(g, p, loc) for p in present}
    winner, tied = reveal_votes(g, loc, candidates, first, False, (yield vote_requests(loc, candidates, first, False)))
    if winner is not None:
        return winner, [winner]
    weights = {p: revote_weight(g, p, loc, first) for p in from_chief(g)}
    return reveal_votes(g, loc, tied, weights, True, (yield vote_requests(loc, tied, weights, True)))


def vote_requests(loc: int, candidates: list[str], weights: dict[str, int], revote: bool) -> list[Request]:
    """One vote's window: every voter with a weight (H-2: a weight of 0 is not asked)."""
    vote = Kind.VOTE
    return [
        Request(p, vote, list(candidates), {"location": loc, "revote": revote, "weight": w})
        for p, w in weights.items()
        if w > 0
    ]


def reveal_votes(
    g: Game,
    loc: int,
    candidates: list[str],
    weights: dict[str, int],
    revote: bool,
    answers: dict[str, str | None],
) -> tuple[str | None, list[str]]:
    """VOT-3 / VOT-4: the answers to a vote's window (``vote_requests``) revealed and counted."""
    voters = [p for p, w in weights.items() if w > 0]
    votes = {p: answers[p] for p in voters}
    totals = tally(votes, weights)
    g.emit(
        "votes_revealed",
        location=loc,
        revote=revote,
        votes=votes,
        weights={p: weights[p] for p in voters},
        totals=totals,
    )
    return resolve_vote(candidates, totals)


def card_window(g: Game, window: str, loc: int | None, entitled: list[str]) -> Flow:
    """VOT-6 / C-3 / H-3: once around from the Chief; strict asks one at a time, batched all at once."""

    def safe() -> bool:  # F-6: in strict order the attack window closes once the location is safe
        return window == "attack" and loc is not None and not zombies_get_in(g, loc)

    # once_around's own generator, returned rather than delegated to (``yield from``): one level fewer to pass
    # through at every request and answer; it starts at the first request, as this function's would
    return once_around(g, entitled, lambda game, p: cards_request(game, p, window, loc), apply_plays, safe)


def cards_request(g: Game, player: str, window: str, loc: int | None) -> Request | None:
    """The cards ``player`` may play in this window; None when there is none (H-2)."""
    hand = g.hands[player]
    if not hand:
        return None
    ctx: RequestContext = {}
    if window != "attack":  # truck, chief, arrival, sprint: one card may be played
        card = _WINDOW_CARD[window]
        if card not in hand:
            return None
        if window == "sprint":
            ctx["moved"] = g.moved[player]
        shown_loc = None if window in ("arrival", "sprint") else loc
        return Request(player, Kind.CARDS, None, {"window": window, "location": shown_loc, "playable": [card]}, ctx)
    if _ATTACK_CARDS.isdisjoint(hand):
        return None  # nothing to play in an attack (the usual case, seen before the work below)
    assert loc is not None
    allowed = set(WEAPONS)
    if loc != PARKING:
        allowed.add("hardware")
    visible = visible_at(g, player, loc)
    ctx["can_hide"] = [c for c in CHARACTERS if c in visible]
    if visible:
        allowed.add("hidden")
    # a Threat needs a vote to count in (H-2); who may be voted against is only worth asking with one in hand
    if "threat" in hand and player in g.colours_at[loc] and len(eligible_colours(g, loc)) > 1:
        allowed.add("threat")
    playable = sorted(allowed.intersection(hand), key=_CARD_ORDER.__getitem__)  # in box order, each once
    if not playable:
        return None
    return Request(player, Kind.CARDS, None, {"window": window, "location": loc, "playable": playable}, ctx)


#: the card each window but an attack's allows: Threat before a vote (VOT-6), Camera (C-3), Sprint (option
#: sprint_timing: after_moves).
_WINDOW_CARD = {"truck": "threat", "chief": "threat", "arrival": "camera", "sprint": "sprint"}
#: the cards an attack window may allow (VOT-6, F-4).
_ATTACK_CARDS = frozenset({*WEAPONS, "hardware", "hidden", "threat"})
#: a card's place in the box order (A3), the order the playable cards are listed in.
_CARD_ORDER = {card: i for i, card in enumerate(CARDS)}


def apply_plays(g: Game, req: Request, plays: list[Play]) -> None:
    """Apply one player's plays in order; an ``if_needed`` play is skipped once zombies would not get in (H-3)."""
    player = req.player
    loc = req.info["location"]  # the window's location (an attack's, a vote's; None: the arrival's, a Sprint's)
    for play in plays:
        if play.if_needed and loc is not None and not zombies_get_in(g, loc):
            g.emit("card_kept", to=(player,), player=player, card=play.card, reason="not_needed")
            continue
        discard(g, player, play.card)
        event: _CardPlayed = {"card": play.card}
        if play.character is not None:
            event["character"] = play.character
        if play.location is not None:
            event["location"] = play.location
        card = play.card
        if card == "threat":
            g.threats[player] = g.threats.get(player, 0) + 1
        elif card == "camera":
            assert g.dice is not None
            g.dice["seen_by"].append(player)
            g.emit("card_played", player=player, **event)
            g.emit("dice_seen", to=(player,), player=player, values=list(g.dice["values"]))
            continue
        elif card == "hardware":
            g.hardware += 1
        elif card == "hidden":
            assert play.character is not None
            g.hidden.add((player, play.character))
        elif card == "sprint":
            assert play.character is not None and play.location is not None
            g.emit("card_played", player=player, **event)
            settle(g, player, play.character, play.location)
            continue
        else:  # a weapon (A3)
            assert loc is not None
            killed = min(g.options.weapons[card], g.zombies[loc])
            g.zombies[loc] -= killed
            event["killed"] = killed
        if loc is not None:
            event["location"] = loc
        g.emit("card_played", player=player, **event)


class _CardPlayed(TypedDict, total=False):
    """A ``card_played`` event's fields besides ``player``, as a play's are built up."""

    card: Required[str]
    character: str
    location: int
    killed: int


def discard(g: Game, player: str, card: str) -> None:
    """A3: every card played is removed from the game at once."""
    g.hands[player].remove(card)
    g.played.append(card)


def check_supply(g: Game) -> None:
    """R-31: no cap, but say so when the board holds more zombies than the box."""
    total = sum(g.zombies)
    if total > ZOMBIE_SUPPLY:
        g.emit("zombie_supply_exceeded", zombies=total)


def finish(g: Game) -> None:
    """B-END: scores, card counts and winners."""
    g.phase = Phase.OVER
    g.outcome = {
        "scores": scores(g),
        "cards": {p: len(g.hands[p]) for p in g.players},
        "winners": winners(g),
    }
    g.emit("game_over", **g.outcome)
