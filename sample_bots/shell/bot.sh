#!/bin/sh
# Sample bot `shell`: a Schmier bot in POSIX sh and jq, with no gRPC library.
#
# It speaks the arena's stdio protocol (bot.toml: protocol = "stdio";
# docs/PROTOCOL.md): each line on stdin is one RefereeMessage in protobuf's JSON
# mapping; each line on stdout is one BotMessage: first the join, then one answer per
# decision request, echoing its id. stdout is the protocol only; the seat's log is
# stderr. One jq process (answer.jq) per line that holds a request, a notice or the end
# of the match; a line of events only needs no answer and no jq (this bot keeps no
# state: every request carries the seat's whole view).
#
# The strategy is the simplest legal one: the first legal choice of every request
# (pass, clubs, the first legal card) and the smallest legal discard.

here=$(dirname "$0")
program="$here/answer.jq"
command -v jq >/dev/null 2>&1 || { echo "[shell] jq is not installed" >&2; exit 1; }

printf '%s\n' '{"join": {"botName": "shell", "botVersion": "1", "protocolVersion": "PROTOCOL_VERSION_1"}}'

while IFS= read -r line || [ -n "$line" ]; do
    case $line in
        *'"request"'* | *'"notice"'* | *'"matchOver"'* | *'"match_over"'*) ;;
        *) continue ;; # events only (or the welcome): nothing to answer
    esac
    reply=$(printf '%s\n' "$line" | jq -r -c -f "$program") || {
        echo "[shell] a line jq could not read was skipped" >&2
        continue
    }
    case $reply in
        exit) exit 0 ;;
        '') ;;
        '{'*) printf '%s\n' "$reply" ;;
        *) printf '%s\n' "$reply" >&2 ;;
    esac
done
exit 0
