"""Zoo bot `memory_hog`: allocates without bound at its third decision, until the memory
limit stops it.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("memory_hog")
