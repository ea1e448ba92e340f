"""Zoo bot `escaping_child`: starts a child in a session of its own (setsid, out of its
process group) at its third decision, then plays on legally.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("escaping_child")
