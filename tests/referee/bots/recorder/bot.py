"""The recorder test bot: see ``../botlib.py``."""

import sys
from pathlib import Path

import arena.referee  # noqa: F401 - sets grpc's environment before botlib imports grpc

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from botlib import main

if __name__ == "__main__":
    main()
