"""Bot programs under tests/bots are run by tests, never imported by pytest."""

collect_ignore = ["sandbox_probe"]
