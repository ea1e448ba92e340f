"""Tests of the rules engine (``arena/engine``) against ``docs/RULES.md``."""
