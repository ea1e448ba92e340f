"""The event loop every asynchronous part of the arena and the SDK runs on.

uvloop, because it measurably shortens gRPC round trips (see ``arena bench referee``).
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion on a fresh uvloop event loop."""
    return uvloop.run(coroutine)
