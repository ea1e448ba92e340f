"""Zoo bot `malformed`: sends garbage, empty, truncated and choiceless messages as answers.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("malformed")
