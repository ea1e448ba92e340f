"""Zoo bot `bank_drainer`: overdraws its decision time a little while its overage bank
lasts, then answers on time.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("bank_drainer")
