"""Zoo bot `stale_flood`: before each answer from its second decision on, sends 50 copies
of its previous answer, which nobody asked for; then answers legally.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("stale_flood")
