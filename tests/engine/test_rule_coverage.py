"""Every rule ID of RULES.md sections B and H is checked by at least one test marked ``@pytest.mark.rule``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "RULES.md"
SHARED = ROOT.parent / "shared" / "RULES.md"
ID = re.compile(r"^\s*(?:- )?\*\*([A-Z]+-[0-9A-Za-z]+)", re.MULTILINE)


def spec_ids() -> set[str]:
    text = SPEC.read_text(encoding="utf-8")
    b = text[text.index("\n## B.") : text.index("\n## C.")]
    h = text[text.index("\n## H.") :]
    return set(ID.findall(b)) | set(ID.findall(h))


def rule_marks() -> dict[str, list[str]]:
    """rule ID -> test functions whose ``@pytest.mark.rule(...)`` names it."""
    found: dict[str, list[str]] = {}
    for path in Path(__file__).parent.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test"):
                continue
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and ast.unparse(deco.func) == "pytest.mark.rule":
                    for arg in deco.args:
                        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                            found.setdefault(arg.value, []).append(f"{path.name}::{node.name}")
    return found


def test_spec_has_the_rule_ids() -> None:
    ids = spec_ids()
    assert {"SET-5", "VOT-7", "F-7", "END-1", "H-3", "VOT-H", "DEF-5b"} <= ids
    assert len(ids) >= 70


def test_every_rule_of_sections_b_and_h_is_tested() -> None:
    missing = sorted(spec_ids() - set(rule_marks()))
    assert not missing, f"rule IDs without a test: {', '.join(missing)}"


def test_marked_ids_exist() -> None:
    text = SPEC.read_text(encoding="utf-8")
    known = set(ID.findall(text)) | set(re.findall(r"\*\*(R-\d+)", text)) | {"G", "A1", "A2", "A3", "A4", "A5"}
    unknown = sorted(set(rule_marks()) - known)
    assert not unknown, f"tests name rule IDs that RULES.md does not have: {unknown}"


def test_spec_copy_is_current() -> None:
    """docs/RULES.md is the copy the project is built against; it must match shared/RULES.md when present."""
    if SHARED.exists():
        assert SHARED.read_text(encoding="utf-8") == SPEC.read_text(encoding="utf-8"), "copy shared/RULES.md to docs/"
