#!/bin/sh
# Sample bot `shell`: a Schmier bot in POSIX sh and jq, with no gRPC library.
#
# It speaks the arena's stdio protocol (bot.toml: protocol = "stdio";
# docs/PROTOCOL.md): each line on stdin is one RefereeMessage in protobuf's JSON
# mapping; each line on stdout is one BotMessage: first the join, then one answer per
# decision request, echoing its id. stdout is the protocol only; the seat's log is
# stderr.
#
# The shell reads each line with `read -r`; jq (answer.jq) reads the JSON and builds the
# answer. One jq process serves the whole match, through two named pipes: starting jq
# anew for each request costs up to a second on a loaded machine, a line to a running jq
# a millisecond. A line of events only needs no answer and does not go to jq (the bot
# keeps no state: every request carries the seat's whole view).
#
# The strategy is the simplest legal one: the first legal choice of every request
# (pass, clubs, the first legal card) and the smallest legal discard.

program="$(dirname "$0")/answer.jq"
command -v jq >/dev/null 2>&1 || { echo "[shell] jq is not installed" >&2; exit 1; }

# The join first, within the join deadline; the referee's first line waits in the pipe.
printf '%s\n' '{"join": {"botName": "shell", "botVersion": "1", "protocolVersion": "PROTOCOL_VERSION_1"}}'

# The named pipes live in a private directory of the temporary file system (the
# sandbox's /tmp is the seat's own).
pipes=$(mktemp -d) || exit 1
trap 'rm -rf "$pipes"' EXIT
mkfifo "$pipes/lines" "$pipes/replies" || exit 1
jq --unbuffered -R -r -c -f "$program" <"$pipes/lines" >"$pipes/replies" &
exec 3>"$pipes/lines" 4<"$pipes/replies"

finish() {
    exec 3>&- # jq reads the end of its input and exits
    wait
    exit 0
}

while IFS= read -r line || [ -n "$line" ]; do
    case $line in
        *'"request"'* | *'"notice"'* | *'"matchOver"'* | *'"match_over"'*) ;;
        *) continue ;; # events only (or the welcome): nothing to answer
    esac
    printf '%s\n' "$line" >&3
    IFS= read -r reply <&4 || { echo "[shell] jq has stopped" >&2; exit 1; }
    case $reply in
        exit) finish ;;
        none) ;;
        '{'*) printf '%s\n' "$reply" ;;
        *) printf '%s\n' "$reply" >&2 ;;
    esac
done
finish
