"""The engine's two error kinds: input it cannot read, and moves the rules forbid."""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises on bad input."""


class MalformedActionError(EngineError):
    """The input is not a well-formed action: unknown card text, wrong type, a card twice."""


class IllegalActionError(EngineError):
    """A well-formed action that the rules forbid now; the message starts with the rule id.

    >>> str(IllegalActionError("R7.2", "must follow hearts"))
    'R7.2: must follow hearts'
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.reason = message


class ReplayMismatchError(EngineError):
    """Replaying a game record through the engine produced something different."""
