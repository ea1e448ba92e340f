"""Bot programs under tests/submit_bots are run by tests, never imported by pytest."""

collect_ignore = ["illegal_card"]
