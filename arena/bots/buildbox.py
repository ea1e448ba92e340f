"""What runs inside a build's sandbox: the bot's files in on stdin, its build on them, what it
built out on stdout.

A sandboxed build's copy of its bot is a size-capped tmpfs of its own (``Sandbox
.bot_tmpfs_bytes``) at the path where its seats will see it, so that what a build writes
is bounded by the filesystem itself. ``arena.bots.build.run_build`` starts this module as
the build's sandboxed process::

    python -I -m arena.bots.buildbox DIRECTORY BYTES ENTRIES -- BUILD ARGV...

1. the tar on stdin (the version's files) is written into DIRECTORY, within the caps;
2. the build runs there, with its output on stderr (the build's log) and no stdin;
3. if it succeeded, DIRECTORY's versioned files and links go out on stdout as a tar.

The exit status is the build's, or ``FAILED`` when the files could not come in or go
out (one ``[arena]`` line on stderr says why). Nothing that comes out is trusted: the
arena writes it through ``arena.bots.tree.Writer`` within the same caps, as it does an
upload. ``-I`` keeps the build's files off this interpreter's import path.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Final

from arena.bots.tree import Caps, TreeError, Writer, extract_tar, mib, pack, scan

FAILED: Final = 125  # like env(1) and xargs(1): the wrapper failed, not the command


def main(argv: list[str]) -> int:
    directory, size, entries, separator, *command = argv
    if separator != "--" or not command:
        print("[arena] usage: buildbox DIRECTORY BYTES ENTRIES -- COMMAND...", file=sys.stderr)
        return FAILED
    root = Path(directory)
    caps = Caps(bytes=int(size), entries=int(entries), option="--build-disk-mb")
    try:
        with Writer(root, caps, fresh=False, links_out=True) as writer:
            extract_tar(sys.stdin.buffer, writer)
    except (TreeError, OSError) as error:
        print(f"[arena] the bot's files did not come into its copy: {error}", file=sys.stderr)
        return FAILED
    sys.stdin.close()
    try:
        status = subprocess.call(
            command, cwd=root, stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno()
        )
    except OSError as error:
        print(f"[arena] cannot run the build: {error}", file=sys.stderr)
        return FAILED
    if status != 0:
        if _full(root):
            print(
                f"[arena] its copy is full: a build has {mib(caps.bytes)} ({caps.option})",
                file=sys.stderr,
            )
        return status if status > 0 else 128 - status  # killed by a signal: as a shell says
    try:
        pack(root, scan(root, caps), sys.stdout.buffer)
    except (TreeError, OSError) as error:
        print(f"[arena] what the build left cannot leave its copy: {error}", file=sys.stderr)
        return FAILED
    return 0


def _full(root: Path) -> bool:
    try:
        return os.statvfs(root).f_bavail == 0
    except OSError:
        return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
