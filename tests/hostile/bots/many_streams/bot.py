"""Zoo bot `many_streams`: opens 50 streams with junk tokens and 10 silent ones, then plays.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("many_streams")
