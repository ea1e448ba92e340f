"""A live progress line that a command keeps on screen while it plays (rich ``Progress``)."""

from __future__ import annotations

from types import TracebackType
from typing import Self

from rich.progress import Progress, TaskID


class LiveProgress:
    """Shows ``progress`` for the length of a ``with`` block; subclasses add ``update``."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task: TaskID | None = None

    def __enter__(self) -> Self:
        self.progress.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.progress.__exit__(kind, value, traceback)
