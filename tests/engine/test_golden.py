"""Golden games: whole games from setup to the end, replayed through the JSON contract and compared exactly.

The files in ``golden/`` are written by ``python -m tests.engine.make_golden`` (bot games with some timeouts). Any
change of the engine's behaviour shows up here as a difference; if it is intended, regenerate the files and read
the diff of their events before committing them.

Hand check of ``4p-strict-tied-pool-every-round.json`` against RULES.md (done when the file was accepted):
setup placement in order from the named first Chief (SET-3, SET-5), a die on closed Cachou unusable, a double a
single option, a full Security HQ die skipped, a timed-out placement giving the lowest-value character at the
lowest-numbered location (H-4); initial zombies ignoring location 2 (SET-6); truck vote weights with the Gunman
bonus and the three top cards of the dealt deck (VOT-2, A-3); an uncontested Chief vote (VOT-5); moves from the
elected Chief with a full destination sending the character to the Parking (E-4, E-5) and a Sprint back to the
origin; F-1 extra zombies with a tie for most characters; 4 zombies against strength 4 attacking (R-22); a tied
attack re-vote where outsiders have 1 vote and a timed-out voter abstains (VOT-7, H-4); a standing-order victim
(H-5); the Parking loop stopped by two Weapons (F-7); the game ending at 4 characters with END-2 scores.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import run_scenario

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))
ROOT = Path(__file__).resolve().parents[2]


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def events_hash(events: list[dict[str, Any]]) -> str:
    text = json.dumps(events, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def compare(result: dict[str, Any], expect: dict[str, Any]) -> None:
    for key in ("ok", "error", "over", "outcome", "pending", "state"):
        assert result[key] == expect[key], f"{key} differs"
    assert len(result["events"]) == expect["events_count"]
    for i, (got, want) in enumerate(zip(result["events"], expect["events"], strict=True)):
        assert got == want, f"event {i} differs"
    assert events_hash(result["events"]) == expect["events_sha256"]


@pytest.mark.rule("H-1", "H-3", "H-4", "END-1", "END-2", "END-3", "RND-1")
@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_game_replays_exactly(path: Path) -> None:
    """A recorded whole game gives exactly the recorded result: same state, outcome and every event."""
    golden = load(path)
    compare(run_scenario(golden["scenario"]), golden["expect"])


@pytest.mark.rule("H-1", "H-3", "H-4", "END-1")
@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_game_is_complete_and_consistent(path: Path) -> None:
    """Each golden file is a whole game from setup (no position) to the end, and its expectation fits END-1/2/3."""
    golden = load(path)
    scenario, expect = golden["scenario"], golden["expect"]
    assert "position" not in scenario and "dice" not in scenario
    assert expect["ok"] is True and expect["error"] is None
    assert expect["over"] is True and expect["pending"] == []
    assert expect["state"]["phase"] == "over"
    assert expect["events_count"] == len(expect["events"])
    assert expect["events_sha256"] == events_hash(expect["events"])
    assert expect["events"][-1]["type"] == "game_over"
    players = scenario["players"]
    characters = expect["state"]["characters"]
    spots = [loc for p in players for loc in characters[p].values()]
    assert len(spots) <= (6 if len(players) == 6 else 4) or (len(set(spots)) == 1 and spots[0] != 4)
    vp = {"pinup": 7, "tough": 5, "gunman": 3, "girl": 1}
    assert expect["outcome"]["scores"] == {p: sum(vp[c] for c in characters[p]) for p in players}


@pytest.mark.rule("G", "H-3", "H-4")
def test_golden_set_covers_player_counts_turn_orders_timeouts_and_options() -> None:
    """The golden games cover 3 to 6 players, both turn orders, timeouts and non-default options."""
    games = [load(p)["scenario"] for p in GOLDEN]
    assert len(games) >= 6
    assert {len(g["players"]) for g in games} == {3, 4, 5, 6}
    orders = {g.get("options", {}).get("turn_order", "batched") for g in games}
    assert orders == {"strict", "batched"}
    assert sum(1 for g in games if any(a.get("timeout") for a in g["answers"])) >= 4
    non_default = {k for g in games for k in g.get("options", {}) if k != "turn_order"}
    assert {
        "sprint_timing",
        "attack_tie_pool",
        "zombie_player",
        "attack_cards",
        "first_chief",
        "weapons",
    } <= non_default


@pytest.mark.rule("H-1")
def test_golden_game_through_the_command(tmp_path: Path) -> None:
    """``python -m engine run FILE`` prints the same result for a golden scenario."""
    path = next(p for p in GOLDEN if p.stem.startswith("6p-"))
    golden = load(path)
    scenario_file = tmp_path / "scenario.json"
    scenario_file.write_text(json.dumps(golden["scenario"]), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "run", str(scenario_file)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    compare(json.loads(proc.stdout), golden["expect"])
