"""Every rule of docs/RULES.md is cited by at least one named engine test."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
REPO = HERE.parents[1]
RULES = REPO / "docs" / "RULES.md"
# The rules page the project's rule book was consolidated from; only present on the
# team's machines (beside the clone), never needed by a user.
SOURCE_RULES = REPO.parent / "shared" / "RULES.md"

# A rule is defined by a list item "- R7.2 …" or, for a section without sub-rules, by
# its heading "## R10 …".
ITEM = re.compile(r"^- (R\d+\.\d+[a-z]?)\b", re.MULTILINE)
HEADING = re.compile(r"^## (R\d+)\b", re.MULTILINE)


def rules_text() -> str:
    """The project's own rule book, which every rule id cited anywhere refers to."""
    return RULES.read_text(encoding="utf-8")


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
    ids = rule_ids(rules_text())
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
    ids = rule_ids(rules_text())
    assert ids, f"no rule ids found in {RULES}"
    texts = cited_texts()
    missing = [rule for rule in ids if not cites(texts, rule)]
    assert not missing, f"rules without a named test (name or docstring): {missing}"


def test_rule_book_has_the_ids_of_its_source() -> None:
    """docs/RULES.md keeps exactly the ids of the rules page it was written from."""
    if not SOURCE_RULES.is_file():
        pytest.skip(f"{SOURCE_RULES} is not beside this clone (only the team's machines have it)")
    source = rule_ids(SOURCE_RULES.read_text(encoding="utf-8"))
    assert sorted(rule_ids(rules_text())) == sorted(source)


def test_rule_book_marks_every_harness_decision_of_its_source() -> None:
    """A rule the source marks [harness] is marked [harness] in docs/RULES.md too."""
    if not SOURCE_RULES.is_file():
        pytest.skip(f"{SOURCE_RULES} is not beside this clone (only the team's machines have it)")
    assert harness_ids(rules_text()) == harness_ids(SOURCE_RULES.read_text(encoding="utf-8"))


def harness_ids(text: str) -> set[str]:
    found = set()
    for line in text.splitlines():
        match = ITEM.match(line) or HEADING.match(line)
        if match and "[harness]" in line:
            found.add(match.group(1))
    return found


def test_links_to_the_rule_book_resolve() -> None:
    """Every project page that names the rule book points at docs/RULES.md, never outside."""
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "shared/RULES.md" not in text, f"{page} sends readers outside the repository"
    assert "docs/RULES.md" in (REPO / "README.md").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_fresh_clone_alone_passes_the_rule_coverage(tmp_path: Path) -> None:
    """A clone with nothing beside it (no shared/) finds its rules and covers every id."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "alone" / "clone"
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(clone)],
        check=True,
        capture_output=True,
    )
    assert not (clone.parent / "shared").exists()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/engine/test_rule_coverage.py",
            "-k",
            "not fresh_clone",
        ],
        cwd=clone,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "failed" not in result.stdout and " passed" in result.stdout, result.stdout[-3000:]
