"""Zoo bot `wrong_phase`: answers every decision with the field of another kind (a card for
a bid, ...).

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("wrong_phase")
