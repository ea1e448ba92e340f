"""A live progress line that a command keeps on screen while it plays (rich ``Progress``).

On a terminal the line is redrawn in place. Elsewhere (output to a file or a pipe, a
command in the background) nothing can be redrawn, so a plain line is printed every
``PLAIN_EVERY_S`` seconds instead: a log never stays empty while the command works.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import Final, Self

from rich.console import Console
from rich.progress import Progress, TaskID

from arena.present.safe_text import literal

PLAIN_EVERY_S: Final = 10.0


class LiveProgress:
    """Shows ``progress`` for the length of a ``with`` block; subclasses add ``update``,
    which calls ``plain`` with the same figures as one line of text."""

    def __init__(self, progress: Progress, enabled: bool = True) -> None:
        self.progress = progress
        self.task: TaskID | None = None
        self.enabled = enabled
        self._plain_at = 0.0  # when the last plain line was printed (monotonic)
        self._plain_pending = ""  # the latest line not yet printed

    @property
    def console(self) -> Console:
        return self.progress.console

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
        if self._plain_pending:  # where it ended, whatever the last line's age
            self.console.print(self._plain_pending, highlight=False, markup=False)

    def plain(self, line: str) -> None:
        """Where the output is not a terminal, print ``line`` at most every PLAIN_EVERY_S."""
        if not self.enabled or self.console.is_terminal:
            return
        now = time.monotonic()
        if now - self._plain_at >= PLAIN_EVERY_S:
            self._plain_at = now
            self._plain_pending = ""
            self.console.print(line, highlight=False, markup=False)
        else:
            self._plain_pending = line

    def note(self, line: str) -> None:
        """One line for the operator, printed above the live line (on stderr), at once: it
        often quotes a bot (its log's end), so it is printed literally."""
        Console(stderr=True).print(literal(line))
