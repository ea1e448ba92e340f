"""Tests of the rules engine (``arena/engine``) against ``../shared/RULES.md``."""
