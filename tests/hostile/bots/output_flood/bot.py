"""Zoo bot `output_flood`: writes 40 MB to stdout and stderr while it plays.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("output_flood")
