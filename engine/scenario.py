"""The JSON contract of ENGINE-CONTRACT.md: ``run_scenario(dict) -> dict``."""

from __future__ import annotations

from typing import cast

from .config import Config
from .errors import IllegalAnswer, ScenarioError
from .game import Game
from .shapes import ScenarioAnswer, ScenarioFailure, ScenarioResult

SCENARIO_KEYS = {"players", "seed", "options", "position", "dice", "standing_orders", "answers"}
ANSWER_KEYS = {"player", "kind", "answer", "timeout"}


def parse_scenario(raw: object) -> tuple[Config, list[ScenarioAnswer]]:
    if not isinstance(raw, dict):
        raise ScenarioError("a scenario must be a JSON object")
    unknown = sorted(set(raw) - SCENARIO_KEYS)
    if unknown:
        raise ScenarioError(f"unknown scenario key {unknown[0]!r}")
    if "players" not in raw:
        raise ScenarioError("the scenario has no players")
    config = Config.from_json(raw)
    answers = raw.get("answers") or []
    if not isinstance(answers, list):
        raise ScenarioError("answers must be a list")
    for i, entry in enumerate(answers):
        if not isinstance(entry, dict):
            raise ScenarioError(f"answers[{i}] must be an object")
        unknown = sorted(set(entry) - ANSWER_KEYS)
        if unknown:
            raise ScenarioError(f"answers[{i}]: unknown key {unknown[0]!r}")
        if "player" not in entry or "kind" not in entry:
            raise ScenarioError(f"answers[{i}] needs a player and a kind")
        if ("answer" in entry) == ("timeout" in entry):
            raise ScenarioError(f'answers[{i}] needs either an answer or "timeout": true')
        if "timeout" in entry and entry["timeout"] is not True:
            raise ScenarioError(f"answers[{i}].timeout can only be true")
    return config, cast(list[ScenarioAnswer], answers)  # each entry's keys checked above


def run_scenario(scenario: object) -> ScenarioResult:
    """Play a scenario and return the result (ENGINE-CONTRACT.md); raise ScenarioError when it is malformed."""
    config, answers = parse_scenario(scenario)
    game = Game(config)
    error: ScenarioFailure | None = None
    for i, entry in enumerate(answers):
        try:
            if entry.get("timeout"):
                game.timeout(entry["player"], entry["kind"])
            else:
                game.answer(entry["player"], entry["kind"], entry["answer"])
        except IllegalAnswer as exc:
            error = {"answer": i, "message": str(exc)}
            break
    return result(game, error)


def result(game: Game, error: ScenarioFailure | None = None) -> ScenarioResult:
    return {
        "ok": error is None,
        "error": error,
        "state": game.position(),
        "pending": [r.to_json() for r in game.pending()],
        "over": game.over,
        "outcome": game.outcome,
        "events": game.events,
    }
