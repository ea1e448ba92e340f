"""Zoo bot `trump_discard`: discards a trump as a non-dealer whenever it holds one.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("recorder:trump_discard")
