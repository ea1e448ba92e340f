"""Bot programs under tests/serve/sore_losers are run by tests, never imported by pytest."""

collect_ignore_glob = ["*/*.py"]
