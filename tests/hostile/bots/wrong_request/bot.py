"""Zoo bot `wrong_request`: answers legally, but to request id + 1000.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("recorder:wrong_request")
