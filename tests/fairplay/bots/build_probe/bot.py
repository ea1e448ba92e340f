"""The bot itself plays legally: what this directory tests is its build (build.py)."""

from arena.sdk import Bot, run

run(Bot())
