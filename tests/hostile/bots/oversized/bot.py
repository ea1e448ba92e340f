"""Zoo bot `oversized`: sends a 100 KB answer (over the 64 KiB limit) at its third decision.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("oversized")
