"""Zoo bot `stolen_token`: tries to join on new streams with other seats' tokens (from this
and another match).

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("stolen_token")
