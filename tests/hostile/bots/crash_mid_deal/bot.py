"""Zoo bot `crash_mid_deal`: plays legally, then exits (status 3) at its fifth decision,
mid-deal.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("recorder:exit")
