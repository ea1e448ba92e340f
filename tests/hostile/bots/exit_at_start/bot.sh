#!/bin/sh
# Zoo bot `exit_at_start`: gives up before connecting to the referee.
echo "exit_at_start: leaving at once" >&2
exit 3
