"""Every rule of RULES.md is cited by at least one named engine test."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

HERE = Path(__file__).parent

# A rule is defined by a list item "- R7.2 …" or, for a section without sub-rules, by
# its heading "## R10 …".
ITEM = re.compile(r"^- (R\d+\.\d+[a-z]?)\b", re.MULTILINE)
HEADING = re.compile(r"^## (R\d+)\b", re.MULTILINE)


def rules_path() -> Path:
    """``<repo>/../shared/RULES.md`` (CI keeps ``shared/`` beside the clone), else the
    file named by ``$SCHMIER_RULES``."""
    beside = Path(__file__).resolve().parents[3] / "shared" / "RULES.md"
    if beside.is_file():
        return beside
    env = os.environ.get("SCHMIER_RULES")
    if env and Path(env).is_file():
        return Path(env)
    pytest.fail(
        f"RULES.md not found: looked for {beside} and $SCHMIER_RULES={env!r}; "
        "put shared/ beside the clone or set SCHMIER_RULES to the rules file"
    )


def rule_ids(text: str) -> list[str]:
    items = ITEM.findall(text)
    sections = [h for h in HEADING.findall(text) if not any(i.startswith(h + ".") for i in items)]
    return items + sections


def cited_texts() -> list[str]:
    """The names and docstrings of every test function and test class under tests/engine."""
    out = []
    for path in sorted(HERE.rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
            if isinstance(node, kinds) and node.name.startswith(("test", "Test")):
                out.append(node.name)
                out.append(ast.get_docstring(node) or "")
    return out


def cites(texts: list[str], rule: str) -> bool:
    # R7.2 or R7_2, not followed by another digit or letter (R3.1 is not R3.1a).
    number = rule[1:].replace(".", "[._]")
    pattern = re.compile(rf"R{number}(?![0-9a-z])")
    return any(pattern.search(text) for text in texts)


def test_rule_ids_parse_as_expected() -> None:
    """The parser finds the rule ids the brief lists, R3.1a and R10 included."""
    ids = rule_ids(rules_path().read_text(encoding="utf-8"))
    assert len(ids) == len(set(ids))
    expected = [f"R1.{i}" for i in range(1, 4)] + [f"R2.{i}" for i in range(1, 7)]
    expected += ["R3.1", "R3.1a", "R3.2"] + [f"R4.{i}" for i in range(1, 7)]
    expected += [f"R5.{i}" for i in range(1, 6)] + [f"R6.{i}" for i in range(1, 4)]
    expected += [f"R7.{i}" for i in range(1, 5)] + ["R8.1", "R8.2"]
    expected += [f"R9.{i}" for i in range(1, 5)] + ["R10"]
    assert set(expected) <= set(ids), sorted(set(expected) - set(ids))
    assert "R1" not in ids and "R9" not in ids  # sections with sub-rules are not rules


def test_cites_distinguishes_neighbouring_ids() -> None:
    assert cites(["test_R3_1a_seeded"], "R3.1a")
    assert not cites(["test_R3_1a_seeded"], "R3.1")
    assert cites(["R3.1: six cards each"], "R3.1")
    assert not cites(["R1.10"], "R1.1")


def test_every_rule_id_has_a_test() -> None:
    ids = rule_ids(rules_path().read_text(encoding="utf-8"))
    assert ids, "no rule ids found in RULES.md"
    texts = cited_texts()
    missing = [rule for rule in ids if not cites(texts, rule)]
    assert not missing, f"rules without a named test (name or docstring): {missing}"
