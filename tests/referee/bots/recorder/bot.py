"""The recorder test bot: see ``../botlib.py``."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from botlib import main

if __name__ == "__main__":
    main()
