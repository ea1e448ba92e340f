"""The bot contract: the generated modules match ``proto/``, and the .proto documents itself."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
PROTO = REPO / "proto" / "arena" / "v1" / "arena.proto"
GENERATED = REPO / "arena" / "v1"


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "_arena_proto_generate", REPO / "proto" / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.timeout(60)
def test_generated_code_is_up_to_date(tmp_path: Path) -> None:
    _load_generator().generate(tmp_path)
    fresh = tmp_path / "arena" / "v1"
    generated = sorted(p.name for p in fresh.iterdir() if p.is_file())
    assert generated == ["arena_pb2.py", "arena_pb2.pyi", "arena_pb2_grpc.py"]
    stale = [
        name
        for name in generated
        if not (GENERATED / name).is_file()
        or (GENERATED / name).read_bytes() != (fresh / name).read_bytes()
    ]
    assert not stale, f"arena/v1 is stale, run `python proto/generate.py`: {stale}"
    # Nothing in arena/v1 besides the generated modules and the package marker.
    present = sorted(p.name for p in GENERATED.iterdir() if p.suffix in (".py", ".pyi"))
    assert present == sorted([*generated, "__init__.py"])


# --- every declaration of the .proto carries a comment -----------------------------------

_DECLARATION = re.compile(r"^(message|enum|service|rpc|oneof)\s+(\w+)")
_FIELD = re.compile(r"^(?:repeated\s+|optional\s+)?([\w.]+)\s+(\w+)\s*=\s*\d+\s*;")


def _undocumented(lines: list[str]) -> list[str]:
    """``Scope.name`` of each message, enum, rpc and field without a comment.

    A declaration is documented when the line right above it is a ``//`` comment, or when
    it has a trailing ``//`` comment. Enum values and ``oneof`` groups are not required to
    have one (they are listed in their enum or message), fields inside a oneof are.
    """
    missing: list[str] = []
    scopes: list[str] = []
    previous = ""
    for raw in lines:
        line = raw.strip()
        code, _, trailing = line.partition("//")
        code = code.strip()
        documented = previous.startswith("//") or bool(trailing.strip())
        declaration = _DECLARATION.match(code)
        field = _FIELD.match(code)
        in_enum = bool(scopes) and scopes[-1].startswith("enum ")
        if declaration:
            kind, name = declaration.groups()
            if kind != "oneof" and not documented:
                missing.append(f"{kind} {'.'.join(s.split()[-1] for s in [*scopes, name])}")
            if code.endswith("{"):
                scopes.append(f"{kind} {name}")
        elif field and not in_enum and not documented:
            owner = ".".join(s.split()[-1] for s in scopes if not s.startswith("oneof "))
            missing.append(f"field {owner}.{field.group(2)}")
        if code.startswith("}") and scopes:
            scopes.pop()
        if line:
            previous = line
    return missing


def test_comment_checker_finds_what_it_should() -> None:
    proto = """
// A documented message.
message A {
  // documented
  uint32 one = 1;
  repeated string two = 2;  // trailing
  string three = 3;
  oneof body {
    B b = 4;
  }
}
message C {
}
"""
    assert _undocumented(proto.splitlines()) == ["field A.three", "field A.b", "message C"]


def test_every_message_rpc_enum_and_field_has_a_comment() -> None:
    missing = _undocumented(PROTO.read_text().splitlines())
    assert not missing, f"{len(missing)} declarations of {PROTO.name} lack a comment: {missing}"
