"""Zoo bot `low_bid`: bids no higher than the highest bid so far.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("recorder:low_bid")
