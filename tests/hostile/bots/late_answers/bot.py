"""Zoo bot `late_answers`: answers every decision 150 ms after its decision time plus bank.

Its behaviour is in ``../zoolib.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from zoolib import main

if __name__ == "__main__":
    main("late_answers")
