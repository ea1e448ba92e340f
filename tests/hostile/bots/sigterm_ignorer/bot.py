"""Zoo bot `sigterm_ignorer`: ignores SIGTERM (so does its child) and stays after the match.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("sigterm_ignorer")
