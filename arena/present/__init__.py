"""What the arena shows people: bot text made safe to print, game records as text, and the
rich tables and progress bar of the command line. No rules, no I/O besides the terminal."""
