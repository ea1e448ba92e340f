"""Never run: its build fails without the network."""

from arena.sdk import Bot, run

run(Bot())
