"""Never run: its build fails without the network."""

from arena.sdk import Bot, run

if __name__ == "__main__":
    run(Bot())
