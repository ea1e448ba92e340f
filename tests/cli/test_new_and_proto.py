"""``arena proto`` prints or writes the contract; ``arena new`` writes starter bots (their
building and playing is tests/languages/test_starters.py's)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from arena.bots import load_bot
from arena.cli import app
from arena.starters import LANGUAGES

REPO = Path(__file__).resolve().parents[2]
CONTRACT = REPO / "proto" / "arena" / "v1" / "arena.proto"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "300"})


def test_proto_prints_the_contract_byte_for_byte() -> None:
    result = invoke("proto")
    assert result.exit_code == 0, result.output
    assert result.stdout == CONTRACT.read_text(encoding="utf-8")


def test_proto_out_writes_it_where_protoc_expects_it(tmp_path: Path) -> None:
    result = invoke("proto", "--out", str(tmp_path / "proto"))
    assert result.exit_code == 0, result.output
    written = tmp_path / "proto" / "arena" / "v1" / "arena.proto"
    assert written.read_bytes() == CONTRACT.read_bytes()
    assert f"wrote {written}" in result.stdout


@pytest.mark.parametrize("language", LANGUAGES)
def test_new_writes_a_bot_the_arena_loads(language: str, tmp_path: Path) -> None:
    name = f"my-{language}_1.0"
    result = invoke("new", name, "--lang", language, "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    target = tmp_path / name
    manifest = tomllib.loads((target / "bot.toml").read_text())
    assert manifest["name"] == name
    spec = load_bot(target)
    assert spec.name == name
    texts = [p.read_text() for p in target.rglob("*") if p.is_file()]
    assert not any("__BOT_NAME__" in text for text in texts)
    assert sum(name in text for text in texts) >= 3  # manifest, source, README
    contract = target / "proto" / "arena" / "v1" / "arena.proto"
    if language == "python":  # the SDK speaks the contract; nothing to build
        assert spec.build is None and not contract.exists()
    else:
        assert spec.build is not None
        assert contract.read_bytes() == CONTRACT.read_bytes()


def test_new_refuses_a_bad_name_a_language_and_an_existing_directory(tmp_path: Path) -> None:
    bad_name = invoke("new", "../escape", "--lang", "python", "--dir", str(tmp_path))
    assert bad_name.exit_code == 2 and "invalid bot name" in bad_name.stderr
    bad_lang = invoke("new", "bot", "--lang", "cobol", "--dir", str(tmp_path))
    assert bad_lang.exit_code == 2
    assert "no starter for 'cobol': choose one of python, node, cpp, ruby" in bad_lang.stderr
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep me")
    taken = invoke("new", "taken", "--lang", "cpp", "--dir", str(tmp_path))
    assert taken.exit_code == 2 and "exists already" in taken.stderr
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["mine.txt"]


def test_new_writes_a_python_bot_over_either_protocol_and_the_others_over_grpc(
    tmp_path: Path,
) -> None:
    """The SDK speaks either: stdio (the fast channel) by default, or gRPC; the starters
    in other languages speak gRPC only."""
    for protocol, expected in (("", "stdio"), ("grpc", "grpc"), ("stdio", "stdio")):
        name = f"py-{protocol or 'default'}"
        options = ["--protocol", protocol] if protocol else []
        result = invoke("new", name, "--lang", "python", "--dir", str(tmp_path), *options)
        assert result.exit_code == 0, result.output
        assert load_bot(tmp_path / name).protocol == expected
        texts = [p.read_text() for p in (tmp_path / name).rglob("*") if p.is_file()]
        assert not any("__PROTOCOL__" in text for text in texts)
    refused = invoke("new", "js", "--lang", "node", "--protocol", "stdio", "--dir", str(tmp_path))
    assert refused.exit_code == 2
    assert "the node starter speaks grpc, not 'stdio'" in refused.stderr
    assert not (tmp_path / "js").exists()
