"""Zoo bot `card_not_held`: plays a card it does not hold at every play.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("recorder:card_not_held")
