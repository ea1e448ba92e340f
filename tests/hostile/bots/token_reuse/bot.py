"""Zoo bot `token_reuse`: opens a second stream with its own token during the match and
after it.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("token_reuse")
