# The `shell` sample bot's jq program. bot.sh starts it once, as
#   jq --unbuffered -R -r -c -f answer.jq
# and gives it each line of the referee that may need something (a RefereeMessage in
# protobuf's JSON mapping, as raw text); for each line it writes exactly one line back:
#   {"answer": ...}  the answer to a decision request, to send as it is;
#   exit             the match is over;
#   none             nothing to do (events only, the welcome);
#   [shell] ...      a line for the seat's log (stderr): a notice of a fault, a problem.
# Exactly one, whatever the line holds, so that bot.sh never waits for an answer that
# does not come: a line that is not JSON, or on which the program fails, gives a log line.
#
# A proto3 JSON parser accepts lowerCamelCase and snake_case names, numbers for enums and
# for the uint64 id, and missing fields: so does this program (`pick`, `kind`, `//`).

def pick($camel; $snake): if has($camel) then .[$camel] else .[$snake] end;

def kind:
  if type == "number" then
    ["", "DECISION_KIND_BID", "DECISION_KIND_TRUMP", "DECISION_KIND_DISCARD",
     "DECISION_KIND_PLAY"][.] // ""
  else . end;

# The first legal choice is always legal: the lists come lowest first
# (docs/PROTOCOL.md §3): pass (R4.2), clubs (R5.1), the first legal card (R7.2).
# The discard is the smallest legal one (R5.2-R5.4): all of `must`, then the first
# cards of `may` until `min_count` cards are down.
def choice($request):
  ($request.legal // {}) as $legal
  | ($request.kind | kind) as $kind
  | if $kind == "DECISION_KIND_BID" then {bid: ($legal.bids[0] // 0)}
    elif $kind == "DECISION_KIND_TRUMP" then {trump: ($legal.suits[0] // "SUIT_CLUBS")}
    elif $kind == "DECISION_KIND_DISCARD" then
      ($legal.discard // {}) as $rule
      | ($rule.must // []) as $must
      | (($rule | pick("minCount"; "min_count")) // 0 | tonumber) as $min
      | {discard: {cards: ($must + ((($rule.may // []) - $must)[: ([$min - ($must | length), 0] | max)]))}}
    elif $kind == "DECISION_KIND_PLAY" then {card: $legal.cards[0]}
    else null end;

def reply:
  if type != "object" then "[shell] a line that is not a JSON object was skipped"
  elif pick("matchOver"; "match_over") != null then "exit"
  elif .request != null then
    .request as $request
    | choice($request) as $choice
    | if $choice == null then
        "[shell] request \($request.id): unknown kind \($request.kind), not answered"
      else {answer: ({requestId: ($request.id | tostring)} + $choice)} end
  elif .notice != null then
    .notice
    | "[shell] fault \(.kind) on request \(pick("requestId"; "request_id")): \(.reason) (the referee played \(.fallback))"
  else "none" end;

(try fromjson catch null) as $message
| if $message == null then "[shell] a line that is not JSON was skipped"
  else (try ($message | reply) catch "[shell] a line this bot cannot read was skipped: \(.)")
  end
