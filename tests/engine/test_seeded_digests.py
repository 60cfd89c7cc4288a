"""Seeded bot games pinned by digest: the engine plays them exactly as it did when the digests were taken.

Each game (3 to 6 players, both turn orders, ``RandomBot`` or ``SensibleBot`` in every seat, options and timeouts
varied by seed) is played through the Python API; its digest covers, at every window, the pending requests and every
player's view and the spectator's (their events counted), and at the end the saved game (``Game.to_json``), the full
event log, the replay and the events of every view. A change of behaviour anywhere (an event, a request, a view, the
order of anything, the random draws) changes a digest. The digests were taken with the engine of commit c3cd069,
before it was made faster, to check that making it faster kept every game the same; if a rule change is intended,
print the new digests with ``python -m tests.engine.test_seeded_digests`` after reading the diff of the golden games
(``test_golden.py``).
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from engine import new_game, replay, spectator_view, view
from engine.bots import Bot, RandomBot, SensibleBot
from engine.data import COLOURS
from engine.game import Game

#: name -> sha256 of what the game showed (``play``), taken at commit c3cd069.
DIGESTS = {
    "3p-batched-random-s0": "59b73b087bb95f2e97dc0c687a59f72f453cfba539d180a43d12aee3d3c8ae0b",
    "3p-batched-sensible-s0": "3426a744b0e1aa5ab8dd0caae6dea05ef3643f6ec95c3302cb37a00ad6252941",
    "3p-strict-random-s0": "b57e987e62c36ef793c1e099ae7dd4820bc4124b5cb20afb95bbf2ae0484c57b",
    "3p-strict-sensible-s0": "90d8e41224ed950e9a485688b441a579caef215da427fbcd78529b134f4d8f06",
    "4p-batched-random-s0": "f21d944da3eb8ace36cdd8c01ca6b41ea70492ea8858945c2f354681f8ebdaa3",
    "4p-batched-sensible-s0": "15a03158ab534eb2cd699c237e2a7905c7d33bab8d69fffbc8bbb24021650a72",
    "4p-strict-random-s0": "9d6fb5b896fe472736a49ff589a2d80256991f3fe667c8cb19cece06e5241475",
    "4p-strict-sensible-s0": "9f1b6ade9d1f68165dc3063b5a8b1788b29d733f5db958a1dec1a209bb06d2cb",
    "5p-batched-random-s0": "4bd1c4f5e4a07c2587fd4cc8a9a5d1241a4076e8cdf711415872c7b928968aa8",
    "5p-batched-sensible-s0": "53aaa58cc87cc1b880c01f05df21a6a099cc82c4d4b0f4a1397d1c0f0893fb32",
    "5p-strict-random-s0": "c25f5d595176b66985b17f92957199f2cb0a0fb2994f1c1dc72017badf10c7ca",
    "5p-strict-sensible-s0": "d24d1ff5597ff7be21b5af40d926aaf322801f8cd2b66aa6918b1da0af4c88b8",
    "6p-batched-random-s0": "deaa7124ebc90ef3bafba6f53284485a51fdf139cd550064ad04c8ea5e06b07c",
    "6p-batched-sensible-s0": "d605607676c9df4c4ec11a59059802d70013f817c08ca42fa64a19be3321e523",
    "6p-strict-random-s0": "e67de7277c7f985ccae69f1f28e76a44f86d5b1bb7f73e07392e60d5cf110619",
    "6p-strict-sensible-s0": "9ad3dabe97890a7e07725abda99dd2f9ee66296b86a7faf91df49f00b362cbf3",
    "3p-batched-random-s1": "f62165baaf28762488feb0dc1e51615852c4b6072536389bd944d40a93ec3c22",
    "3p-batched-sensible-s1": "7eae3d9e87fa428fc76e1f5efb20e8f2cdc751ad581ecd60a3750b24e88b6c55",
    "3p-strict-random-s1": "0591ef15482e2576b9428fff458ef30e14b3a1fd84bb004d7ee4c1f8d8c5ff99",
    "3p-strict-sensible-s1": "1b0880b72e84296846ef6b7e92b9adbb92708331abbbb162889f134d0f4f2080",
    "4p-batched-random-s1": "cb20c64ce1ec4d26956a48fc8cdba82f4e53c44c1ea0793add9945aa5c704137",
    "4p-batched-sensible-s1": "f9fa358e18860ba881c100c70b8dba8fda571e74a5503decac88c9d021fa4519",
    "4p-strict-random-s1": "f847d412aca6555561f59144f41ce4d9a032070a3dd4730a2a637d3a792961d5",
    "4p-strict-sensible-s1": "95f6b46d1776786dd85e63646a6fad0bc220e65515114d91cca4ac99940fb3a5",
    "5p-batched-random-s1": "fbb5e06382300d1f37663654593540c365c28e7a5c8d42a89e3f7efeed448876",
    "5p-batched-sensible-s1": "373a9668628fdc6b6c95c5be352f67d1e54900e0d7ae1d588617157429da2bad",
    "5p-strict-random-s1": "56050d407df66f5e250f0f5c1f3cacb73cd64e2f1f97cd3e9d416c3185b3b1a0",
    "5p-strict-sensible-s1": "6256959480ee7aaff188c1da5886cdf4d8683ab73d4b695e8522d23707f8432c",
    "6p-batched-random-s1": "d62e601eb10305b6637d64b76e990e1e435d012d2c9bfb370495ca949a045dd5",
    "6p-batched-sensible-s1": "4edae026b9f4d660847b69d5a64b65551c69d8584da37227bae4090ce6e0e610",
    "6p-strict-random-s1": "09c6c09bec47d4ccd154a3ab89469a72cbb47721f5d0376f709c9dd31d881509",
    "6p-strict-sensible-s1": "65f2243def50f5842fa5e5554ccdd814d2d3aad9fb761e346bf761c79e3aaa5c",
}


def games() -> list[tuple[str, int, int, str, str]]:
    """(name, seed, players, turn order, bot) of the pinned games."""
    out = []
    for seed in range(2):
        for players in (3, 4, 5, 6):
            for order in ("batched", "strict"):
                for bot in ("random", "sensible"):
                    out.append((f"{players}p-{order}-{bot}-s{seed}", seed, players, order, bot))
    return out


def play(seed: int, players: int, order: str, bot: str) -> tuple[Game, list[str]]:
    """One game, and what it showed at every window and at its end (JSON texts)."""
    rng = random.Random(f"{seed}/{players}/{order}/{bot}")
    seats = list(COLOURS)
    rng.shuffle(seats)
    seats = seats[:players]
    options: dict[str, Any] = {"turn_order": order}
    if rng.random() < 0.4:
        options["sprint_timing"] = "after_moves"
    if rng.random() < 0.3:
        options["attack_tie_pool"] = "tied"
    if rng.random() < 0.3:
        options["zombie_player"] = "every_round"
    if rng.random() < 0.3:
        options["attack_cards"] = "everyone"
    game = new_game(seats, seed=seed, options=options)
    kind = RandomBot if bot == "random" else SensibleBot
    bots: dict[str, Bot] = {p: kind(seed * 10 + k) for k, p in enumerate(seats)}
    timeouts = rng.choice([0.0, 0.05, 0.2])
    record: list[str] = []
    seen = -1
    while not game.over:
        if game.window_no != seen:
            seen = game.window_no
            # each reader's events only grow at the end: their count here, all of them at the end
            shown: list[dict[str, Any]] = [dict(view(game, c)) for c in seats] + [dict(spectator_view(game))]
            for board in shown:
                board["events"] = len(board["events"])
            record.append(json.dumps([[r.to_json() for r in game.pending()], shown]))
        for req in game.pending():
            if rng.random() < timeouts:
                game.timeout(req.player, req.kind)
            else:
                game.answer(req.player, req.kind, bots[req.player].decide(game, req))
    events = [view(game, c)["events"] for c in seats] + [spectator_view(game)["events"]]
    record.append(json.dumps([game.to_json(), game.events, replay(game), events]))
    return game, record


def digest(seed: int, players: int, order: str, bot: str) -> str:
    _, record = play(seed, players, order, bot)
    return hashlib.sha256("\n".join(record).encode("utf-8")).hexdigest()


@pytest.mark.rule("H-1", "H-3", "H-4", "H-6")
@pytest.mark.parametrize(("name", "seed", "players", "order", "bot"), games(), ids=[g[0] for g in games()])
def test_seeded_game_plays_as_pinned(name: str, seed: int, players: int, order: str, bot: str) -> None:
    """The game's windows (H-1, H-3), defaults after timeouts (H-4), every view (H-6) and its end are as pinned."""
    assert digest(seed, players, order, bot) == DIGESTS[name]


if __name__ == "__main__":
    print("DIGESTS = {")
    for name, seed, players, order, bot in games():
        print(f'    "{name}": "{digest(seed, players, order, bot)}",')
    print("}")
