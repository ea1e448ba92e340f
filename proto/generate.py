"""Generate the Python modules of the bot contract: ``python proto/generate.py``.

The output lands in ``arena/v1/`` so that ``import arena.v1.arena_pb2`` works. Never edit
the generated files by hand; ``tests/referee/test_contract.py`` fails when they are stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

PROTO_ROOT = Path(__file__).resolve().parent
PROTO_FILES = ("arena/v1/arena.proto",)


def generate(out_dir: Path) -> None:
    from grpc_tools import protoc  # a test dependency only: the runtime needs none of it

    include = Path(protoc.__file__).resolve().parent / "_proto"
    for proto in PROTO_FILES:
        args = [
            "protoc",
            f"-I{PROTO_ROOT}",
            f"-I{include}",
            f"--python_out={out_dir}",
            f"--pyi_out={out_dir}",
            f"--grpc_python_out={out_dir}",
            str(PROTO_ROOT / proto),
        ]
        if protoc.main(args) != 0:
            raise SystemExit(f"protoc failed on {proto}")


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else PROTO_ROOT.parent)
