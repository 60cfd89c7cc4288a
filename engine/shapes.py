"""The JSON shapes the engine gives out (ENGINE-CONTRACT.md), as ``TypedDict``s: what a reader of a request, an
event or a view may rely on. ``Required`` fields are always there; ``NotRequired`` ones only for some kinds."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, Required, TypeAlias, TypedDict

#: any JSON value, as ``json.loads`` gives it: for what crosses an edge before it is read into a typed shape
JSON: TypeAlias = dict[str, "JSON"] | list["JSON"] | str | int | float | bool | None
#: a JSON object
JSONObject: TypeAlias = dict[str, JSON]


class PlaceOption(TypedDict):
    """A ``place`` request's option: a character still to place and a location the dice allow."""

    character: str
    location: int


class MoveOption(TypedDict):
    """A ``move`` request's option: a character that may move."""

    character: str


#: One of a request's options: a location (``announce``, ``destination``, ``zombie``), a colour (``vote``), a
#: character (``victim``), a placement (``place``) or a character to move (``move``).
Option: TypeAlias = "int | str | PlaceOption | MoveOption"


class RequestInfo(TypedDict, total=False):
    """A request's keys besides ``player``, ``kind`` and ``options``, by kind (the contract's table of requests)."""

    #: ``cards``: ``truck``, ``chief``, ``arrival``, ``attack`` or ``sprint``.
    window: str
    #: ``cards`` (None for ``arrival`` and ``sprint``), ``vote``, ``victim``.
    location: int | None
    #: ``cards``: the cards the player may play.
    playable: list[str]
    #: ``place``: the two dice; ``announce``/``destination``: the zombie dice, for a player who may see them.
    dice: list[int]
    #: ``vote``.
    revote: bool
    weight: int
    #: ``truck``: the cards drawn, top first.
    cards: list[str]
    #: ``move``.
    destination: int


class RequestJSON(RequestInfo):
    """A pending request (``Request.to_json``): ``player``, ``kind`` and ``options`` always, then its kind's keys."""

    player: Required[str]
    kind: Required[str]
    #: the legal answers where they can be listed; None for ``cards`` and ``truck``.
    options: Required[list[Any] | None]


# --- answers: what each kind's JSON answer holds (the contract's table of requests), read once the kind is known --


class PlacementJSON(TypedDict):
    """A ``place`` answer."""

    character: str
    location: int
    #: where to go if the location is full (batched placement).
    fallback: NotRequired[int | None]


class MoveJSON(TypedDict):
    """A ``move`` answer."""

    character: str
    #: a Sprint's location.
    sprint: NotRequired[int | None]
    #: the Sprint is played only if the destination is full or closed.
    sprint_if_full: NotRequired[bool]


class TruckJSON(TypedDict):
    """A ``truck`` answer; an automatic one (one card drawn) has ``keep`` only."""

    keep: str
    give: NotRequired[str | None]
    to: NotRequired[str | None]


class PlayJSON(TypedDict):
    """One card played in a ``cards`` answer."""

    card: str
    #: Hidden's and Sprint's character.
    character: NotRequired[str | None]
    #: a Sprint's location.
    location: NotRequired[int | None]
    if_needed: NotRequired[bool]


# --- events (``Game.events``; ``view(...)["events"]`` without ``to``) ------------------------------------------


class _Event(TypedDict):
    #: who may see the event now: absent, everyone; empty, only the replay. Views leave it out.
    to: NotRequired[list[str]]


class DeckShuffled(_Event):
    type: Literal["deck_shuffled"]
    deck: list[str]


class CardDealt(_Event):
    type: Literal["card_dealt"]
    player: str
    card: str


class FirstChief(_Event):
    type: Literal["first_chief"]
    chief: str
    #: drawn at random (option ``first_chief``).
    drawn: bool


class InitialZombies(_Event):
    type: Literal["initial_zombies"]
    dice: list[int]
    #: the dice showing a closed location.
    ignored: list[int]


class PlacementDice(_Event):
    type: Literal["placement_dice"]
    player: str
    dice: list[int]


class Placed(_Event):
    type: Literal["placed"]
    player: str
    character: str
    location: int


class RoundStarted(_Event):
    type: Literal["round_started"]
    round: int
    phase: str


class TruckSkipped(_Event):
    type: Literal["truck_skipped"]
    #: ``deck_empty``, ``parking_empty`` or ``tie``.
    reason: str


class AnswerAuto(_Event):
    """A forced answer (H-2, H-5), told to its player."""

    type: Literal["answer_auto"]
    player: str
    kind: str
    #: the answer in the contract's JSON form.
    answer: JSON


class AnswerStanding(_Event):
    """An answer given by the player's standing answers, told to its player."""

    type: Literal["answer_standing"]
    player: str
    kind: str
    answer: JSON


class AnswerDefaulted(_Event):
    type: Literal["answer_defaulted"]
    player: str
    kind: str


class VoteNotCast(_Event):
    """A vote closed once decided: the voter missed nothing."""

    type: Literal["vote_not_cast"]
    player: str
    location: int | None
    revote: bool | None


class GiftReceived(_Event):
    type: Literal["gift_received"]
    #: the receiver.
    player: str
    card: str
    giver: str


class TruckSearched(_Event):
    type: Literal["truck_searched"]
    player: str
    drew: int
    #: None when nobody got a card.
    gave_to: str | None


class TruckCards(_Event):
    type: Literal["truck_cards"]
    player: str
    cards: list[str]
    kept: str
    gave: str | None
    bottom: list[str]


class NoElection(_Event):
    type: Literal["no_election"]
    chief: str
    #: ``tie`` after a tied re-vote; absent when nobody could vote.
    reason: NotRequired[str]


class ChiefElected(_Event):
    type: Literal["chief_elected"]
    chief: str


class ZombieDiceRolled(_Event):
    type: Literal["zombie_dice_rolled"]
    values: list[int]


class DestinationAnnounced(_Event):
    type: Literal["destination_announced"]
    player: str
    location: int


class ZombieNotPlaced(_Event):
    type: Literal["zombie_not_placed"]
    player: str


class ZombiePlaced(_Event):
    type: Literal["zombie_placed"]
    player: str
    location: int


class NoDestination(_Event):
    type: Literal["no_destination"]
    player: str


class DestinationsRevealed(_Event):
    type: Literal["destinations_revealed"]
    #: colour -> location.
    destinations: dict[str, int]


class ZombieDiceRevealed(_Event):
    type: Literal["zombie_dice_revealed"]
    values: list[int]
    ignored: list[int]


class Condemned(_Event):
    type: Literal["condemned"]
    location: int
    zombies_removed: int


class CardPlayed(_Event):
    type: Literal["card_played"]
    player: str
    card: str
    #: Hidden and Sprint.
    character: NotRequired[str]
    #: the window's location (not in the arrival window), or a Sprint's.
    location: NotRequired[int]
    #: a weapon.
    killed: NotRequired[int]


class CardKept(_Event):
    type: Literal["card_kept"]
    player: str
    card: str
    #: ``not_needed`` (an ``if_needed`` play) or ``destination_has_room`` (a Sprint ``if_full``).
    reason: str


class Moved(_Event):
    type: Literal["moved"]
    player: str
    character: str
    origin: int
    #: where the character was sent, and ``location`` where it ended (the Parking when that was full or closed).
    target: int
    location: int


class ExtraZombies(_Event):
    type: Literal["extra_zombies"]
    most_characters: int | None
    most_pinups: int | None


class Attack(_Event):
    type: Literal["attack"]
    location: int
    zombies: int
    strength: int


class AttackHeld(_Event):
    type: Literal["attack_held"]
    location: int
    zombies: int
    threshold: int


class AttackNoTarget(_Event):
    type: Literal["attack_no_target"]
    location: int


class ZombiesLeft(_Event):
    type: Literal["zombies_left"]
    location: int
    zombies: int


class VoteUncontested(_Event):
    type: Literal["vote_uncontested"]
    location: int
    colour: str


class RandomColour(_Event):
    type: Literal["random_colour"]
    location: int
    pool: list[str]
    colour: str


class Eaten(_Event):
    type: Literal["eaten"]
    player: str
    character: str
    location: int


class Eliminated(_Event):
    type: Literal["eliminated"]
    player: str


class ChiefPassed(_Event):
    type: Literal["chief_passed"]
    chief: str


class VotesRevealed(_Event):
    type: Literal["votes_revealed"]
    location: int
    revote: bool
    #: voter -> the colour voted for (None: abstained, H-4).
    votes: dict[str, str | None]
    weights: dict[str, int]
    totals: dict[str, int]


class DiceSeen(_Event):
    type: Literal["dice_seen"]
    player: str
    values: list[int]


class ZombieSupplyExceeded(_Event):
    type: Literal["zombie_supply_exceeded"]
    zombies: int


class GameOver(_Event):
    type: Literal["game_over"]
    scores: dict[str, int]
    cards: dict[str, int]
    winners: list[str]


Event: TypeAlias = (
    DeckShuffled
    | CardDealt
    | FirstChief
    | InitialZombies
    | PlacementDice
    | Placed
    | RoundStarted
    | TruckSkipped
    | AnswerAuto
    | AnswerStanding
    | AnswerDefaulted
    | VoteNotCast
    | GiftReceived
    | TruckSearched
    | TruckCards
    | NoElection
    | ChiefElected
    | ZombieDiceRolled
    | DestinationAnnounced
    | ZombieNotPlaced
    | ZombiePlaced
    | NoDestination
    | DestinationsRevealed
    | ZombieDiceRevealed
    | Condemned
    | CardPlayed
    | CardKept
    | Moved
    | ExtraZombies
    | Attack
    | AttackHeld
    | AttackNoTarget
    | ZombiesLeft
    | VoteUncontested
    | RandomColour
    | Eaten
    | Eliminated
    | ChiefPassed
    | VotesRevealed
    | DiceSeen
    | ZombieSupplyExceeded
    | GameOver
)


# --- views (``engine.view``, ``engine.spectator_view``) ---------------------------------------------------------


class OptionsJSON(TypedDict):
    """The game's options (RULES.md section G), every one given."""

    turn_order: str
    sprint_timing: str
    attack_tie_pool: str
    zombie_player: str
    attack_cards: str
    first_chief: str
    #: weapon -> zombies it kills.
    weapons: dict[str, int]


class Outcome(TypedDict):
    """The end of the game: every player in ``scores`` and ``cards``; several winners share a victory."""

    scores: dict[str, int]
    cards: dict[str, int]
    winners: list[str]


class Asked(TypedDict):
    """A request everyone may know is owed (``waiting_for``)."""

    player: str
    kind: str


class Answered(TypedDict):
    """What the reader answered in the open window, not yet applied."""

    kind: str
    answer: JSON


class _Table(TypedDict):
    """What a position and the public board both say of the table."""

    round: int
    phase: str
    chief: str
    chief_elected: bool
    closed: list[int]
    #: colour -> {character: location} of the living characters.
    characters: dict[str, dict[str, int]]
    #: "1" to "6" -> zombies there.
    zombies: dict[str, int]
    #: colour -> the round in which the player was eliminated.
    eliminated: dict[str, int]


class PublicBoard(_Table):
    """The table as everyone sees it (the position without hands, deck and dice, and what is public besides), with
    the events its reader may see: ``engine.spectator_view``; the replay's boards between rounds have no events."""

    players: list[str]
    options: OptionsJSON
    #: during setup only: colour -> characters not yet placed.
    unplaced: NotRequired[dict[str, list[str]]]
    #: [colour, character] pairs hidden this round.
    hidden: list[list[str]]
    hand_sizes: dict[str, int]
    deck_size: int
    #: who has seen the zombie dice, between their roll and their placement; else None.
    dice_seen_by: list[str] | None
    #: the destinations known to everyone: colour -> location.
    destinations: dict[str, int]
    waiting_for: list[Asked]
    window_no: int
    over: bool
    outcome: Outcome | None
    events: NotRequired[list[Event]]


#: What someone outside the game may see: the public board and the public events.
SpectatorView: TypeAlias = PublicBoard


class PlayerView(PublicBoard):
    """Everything one player may know now (``events``: those they may see, always there)."""

    you: str
    hand: list[str]
    #: the H-5 standing victim order, if any.
    standing_order: list[str] | None
    #: the zombie dice, for a player who may see them; else None.
    dice: list[int] | None
    #: the player's own pending requests.
    requests: list[RequestJSON]
    answered: Answered | None


# --- saved games (``Game.to_json``, ``Game.snapshot``) ----------------------------------------------------------


class Position(_Table):
    """A position in the contract's schema (a scenario's ``position``, normalised by ``engine.config``)."""

    hands: dict[str, list[str]]
    deck: list[str]


class DiceJSON(TypedDict):
    """The zombie dice between their roll and their placement, and who has seen them."""

    values: list[int]
    seen_by: list[str]


class StatePosition(Position):
    """The state as ``State.position`` gives it: a position, the dice, and the characters to place during setup."""

    dice: DiceJSON | None
    unplaced: NotRequired[dict[str, list[str]]]


class SnapshotState(StatePosition):
    """The state at the start of a round, as a snapshot keeps it: the position and what the round has used."""

    played: list[str]
    hidden: list[list[str]]
    hardware: int
    threats: dict[str, int]
    destinations: dict[str, int]
    moved: dict[str, str]


class ConfigJSON(TypedDict):
    """How a game started (``Config.to_json``)."""

    players: list[str]
    seed: int
    options: OptionsJSON
    position: Position | None
    dice: list[int]
    #: colour -> {"victim": [characters]}.
    standing_orders: dict[str, dict[str, list[str]]]


class LogEntry(TypedDict, total=False):
    """One entry of a game's log: an answer, a timeout, or a standing order set."""

    player: Required[str]
    kind: str
    #: an answer, as the player gave it.
    answer: JSON
    #: the answer came from the player's standing answers.
    standing: bool
    timeout: bool
    #: a timeout of a vote already decided.
    decided: bool
    standing_order: list[str]
    #: False: the standing order did not answer an open victim request.
    answer_open: bool


class SavedCheck(TypedDict):
    """What a saved game's replay must give: the final state, how many events and windows."""

    state: StatePosition
    events: int
    window_no: int


class SavedGame(TypedDict):
    """A game as ``Game.to_json`` saves it: its start and its log, and the state the log leads to."""

    format: str
    config: ConfigJSON
    log: list[LogEntry]
    #: absent: nothing to check the replay against.
    snapshot: NotRequired[SavedCheck]


class SnapshotJSON(TypedDict):
    """The state at the start of the latest round (``Game.snapshot``): ``log`` log entries and ``events`` events
    come before it."""

    format: str
    log: int
    events: int
    window_no: int
    #: the 32-bit words the game's generator had drawn.
    rng: int
    dice_used: int
    standing: dict[str, list[str]]
    state: SnapshotState


# --- the contract's scenarios (``run_scenario``) and the full replay (``engine.replay``) ----------------------------


class ScenarioAnswer(TypedDict, total=False):
    """One entry of a scenario's ``answers``: an answer, or ``"timeout": true``."""

    player: Required[str]
    kind: Required[str]
    answer: JSON
    timeout: bool


class ScenarioFailure(TypedDict):
    """The first answer of a scenario that was refused (its index) and why."""

    answer: int
    message: str


class ScenarioResult(TypedDict):
    """What ``run_scenario`` gives."""

    ok: bool
    error: ScenarioFailure | None
    state: StatePosition
    pending: list[RequestJSON]
    over: bool
    outcome: Outcome | None
    events: list[Event]


class FullReplay(TypedDict):
    """Every secret of a finished game (``engine.replay``): how it started, its log, its final state and events."""

    config: ConfigJSON
    log: list[LogEntry]
    state: StatePosition
    outcome: Outcome | None
    events: list[Event]
