// Sample bot `go`: a Schmier bot in Go that needs no gRPC library.
//
// It speaks the arena's stdio protocol (bot.toml: protocol = "stdio"; docs/PROTOCOL.md):
// every line on stdin is one RefereeMessage in protobuf's JSON mapping, every line it
// writes on stdout is one BotMessage (first the join, then one answer per request).
// stdout carries the protocol only; anything for the seat's log goes to stderr.
//
// Only the standard library is used (encoding/json, bufio), so it builds offline with
// Debian's golang-go. The strategy is in strategy.go.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

const (
	botName    = "go"
	botVersion = "1"
	maxLine    = 1 << 20 // a referee line is at most 64 KiB; read longer ones whole anyway
)

// ---------------------------------------------------------------------------------
// Liberal scalar types: proto3's JSON mapping writes uint64 as a string and enums as
// names, but a parser must also accept numbers for both (and strings for numbers).
// ---------------------------------------------------------------------------------

// flexUint is a number written as a JSON number or a JSON string ("17" or 17).
type flexUint uint64

func (n *flexUint) UnmarshalJSON(data []byte) error {
	return readFlex(data, (*uint64)(n), parseUint, "an unsigned number")
}

// flexInt is a signed number, as a JSON number or string (view.bidder is -1 while bidding).
type flexInt int64

func (n *flexInt) UnmarshalJSON(data []byte) error {
	return readFlex(data, (*int64)(n), parseInt, "a number")
}

func parseUint(text string) (uint64, error) { return strconv.ParseUint(text, 10, 64) }
func parseInt(text string) (int64, error)   { return strconv.ParseInt(text, 10, 64) }

// readFlex reads a number written as a JSON number or string into *into with parse: 0
// for an empty string or null, an error naming what it should have been otherwise.
func readFlex[T any](data []byte, into *T, parse func(string) (T, error), what string) error {
	text := strings.Trim(string(bytes.TrimSpace(data)), `"`)
	if text == "" || text == "null" {
		var zero T
		*into = zero
		return nil
	}
	value, err := parse(text)
	if err != nil {
		return fmt.Errorf("not %s: %s", what, data)
	}
	*into = value
	return nil
}

// enumName reads an enum as its name, or as its number looked up in names.
func enumName(data []byte, names []string) (string, error) {
	var text string
	if err := json.Unmarshal(data, &text); err == nil {
		return text, nil
	}
	var number int
	if err := json.Unmarshal(data, &number); err != nil {
		return "", fmt.Errorf("not an enum value: %s", data)
	}
	if number >= 0 && number < len(names) {
		return names[number], nil
	}
	return "", nil
}

var suitNames = []string{"SUIT_UNSPECIFIED", "SUIT_CLUBS", "SUIT_DIAMONDS", "SUIT_HEARTS", "SUIT_SPADES"}

var kindNames = []string{
	"DECISION_KIND_UNSPECIFIED", "DECISION_KIND_BID", "DECISION_KIND_TRUMP",
	"DECISION_KIND_DISCARD", "DECISION_KIND_PLAY",
}

// suitEnum is a Suit, kept as its name ("SUIT_HEARTS").
type suitEnum string

func (s *suitEnum) UnmarshalJSON(data []byte) error {
	name, err := enumName(data, suitNames)
	*s = suitEnum(name)
	return err
}

// kindEnum is a DecisionKind, kept as its name ("DECISION_KIND_PLAY").
type kindEnum string

func (k *kindEnum) UnmarshalJSON(data []byte) error {
	name, err := enumName(data, kindNames)
	*k = kindEnum(name)
	return err
}

// ---------------------------------------------------------------------------------
// The messages this bot reads (proto/arena/v1/arena.proto). Fields it does not use are
// left out: encoding/json ignores them.
// ---------------------------------------------------------------------------------

type refereeMessage struct {
	Events    []json.RawMessage `json:"events"`
	Welcome   *welcome          `json:"welcome"`
	Request   *decisionRequest  `json:"request"`
	Notice    *notice           `json:"notice"`
	MatchOver *matchOver        `json:"matchOver"`
}

type welcome struct {
	Seat       flexUint `json:"seat"`
	Games      flexUint `json:"games"`
	DecisionMs flexUint `json:"decisionMs"`
	MatchID    string   `json:"matchId"`
}

type notice struct {
	Kind      string   `json:"kind"`
	Reason    string   `json:"reason"`
	RequestID flexUint `json:"requestId"`
	Fallback  string   `json:"fallback"`
}

type matchOver struct {
	Reason string `json:"reason"`
}

type decisionRequest struct {
	ID    flexUint     `json:"id"`
	Kind  kindEnum     `json:"kind"`
	View  view         `json:"view"`
	Legal legalChoices `json:"legal"`
}

type view struct {
	Seat         flexUint `json:"seat"`
	Dealer       flexUint `json:"dealer"`
	Hand         []string `json:"hand"`
	Bidder       flexInt  `json:"bidder"`
	Contract     flexUint `json:"contract"`
	Trump        suitEnum `json:"trump"`
	Tricks       []trick  `json:"tricks"`
	CurrentTrick trick    `json:"currentTrick"`
}

type trick struct {
	Leader flexUint `json:"leader"`
	Cards  []string `json:"cards"`
	Winner flexInt  `json:"winner"`
}

type legalChoices struct {
	Bids    []flexUint  `json:"bids"`
	Suits   []suitEnum  `json:"suits"`
	Cards   []string    `json:"cards"`
	Discard discardRule `json:"discard"`
}

type discardRule struct {
	May      []string `json:"may"`
	Must     []string `json:"must"`
	MinCount flexUint `json:"minCount"`
	MaxCount flexUint `json:"maxCount"`
	Dealer   bool     `json:"dealer"`
}

// camelKeys rewrites every object key from snake_case to lowerCamelCase ("request_id"
// becomes "requestId"), since a proto3 JSON parser accepts both spellings.
func camelKeys(value interface{}) interface{} {
	switch v := value.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(v))
		for key, item := range v {
			out[lowerCamel(key)] = camelKeys(item)
		}
		return out
	case []interface{}:
		for i, item := range v {
			v[i] = camelKeys(item)
		}
		return v
	}
	return value
}

func lowerCamel(key string) string {
	if !strings.Contains(key, "_") {
		return key
	}
	var b strings.Builder
	upper := false
	for _, r := range key {
		switch {
		case r == '_':
			upper = true
		case upper:
			b.WriteString(strings.ToUpper(string(r)))
			upper = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// parseMessage reads one line as a RefereeMessage.
func parseMessage(line []byte) (*refereeMessage, error) {
	var generic interface{}
	decoder := json.NewDecoder(bytes.NewReader(line))
	decoder.UseNumber()
	if err := decoder.Decode(&generic); err != nil {
		return nil, err
	}
	if _, ok := generic.(map[string]interface{}); !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	normal, err := json.Marshal(camelKeys(generic))
	if err != nil {
		return nil, err
	}
	var message refereeMessage
	if err := json.Unmarshal(normal, &message); err != nil {
		return nil, err
	}
	return &message, nil
}

// ---------------------------------------------------------------------------------
// Writing: one compact JSON object per line, flushed at once.
// ---------------------------------------------------------------------------------

type output struct{ w *bufio.Writer }

func (o output) send(message interface{}) {
	data, err := json.Marshal(message)
	if err != nil {
		logf("cannot encode %v: %v", message, err)
		return
	}
	o.w.Write(data)
	o.w.WriteByte('\n')
	if err := o.w.Flush(); err != nil {
		logf("cannot write to the referee: %v", err)
		os.Exit(0) // the referee is gone: nothing left to do
	}
}

func logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "["+botName+"] "+format+"\n", args...)
}

// answer builds the answer to one request: {"answer": {"requestId": "17", <choice>}}.
func answer(request *decisionRequest) map[string]interface{} {
	body := map[string]interface{}{"requestId": strconv.FormatUint(uint64(request.ID), 10)}
	switch request.Kind {
	case "DECISION_KIND_BID":
		body["bid"] = chooseBid(request)
	case "DECISION_KIND_TRUMP":
		body["trump"] = chooseTrump(request)
	case "DECISION_KIND_DISCARD":
		body["discard"] = map[string]interface{}{"cards": chooseDiscard(request)}
	case "DECISION_KIND_PLAY":
		body["card"] = choosePlay(request)
	default:
		logf("request %d: unknown kind %q, not answered", request.ID, request.Kind)
		return nil
	}
	return map[string]interface{}{"answer": body}
}

func main() {
	out := output{bufio.NewWriter(os.Stdout)}
	out.send(map[string]interface{}{"join": map[string]interface{}{
		"botName": botName, "botVersion": botVersion, "protocolVersion": "PROTOCOL_VERSION_1",
	}})
	in := bufio.NewReaderSize(os.Stdin, 64*1024)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > maxLine {
			logf("a line of %d bytes skipped", len(line))
			line = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if done := handle(out, line); done {
				return
			}
		}
		if err == io.EOF {
			return // the referee closed the pipe: the match is over
		}
		if err != nil {
			logf("cannot read from the referee: %v", err)
			return
		}
	}
}

// handle acts on one line; true when the match is over.
func handle(out output, line []byte) bool {
	message, err := parseMessage(line)
	if err != nil {
		logf("unreadable line skipped: %v", err)
		return false
	}
	switch {
	case message.Welcome != nil:
		w := message.Welcome
		logf("seat %d in match %s, %d game(s), %d ms per decision", w.Seat, w.MatchID, w.Games, w.DecisionMs)
	case message.Request != nil:
		if reply := answer(message.Request); reply != nil {
			out.send(reply)
		}
	case message.Notice != nil:
		n := message.Notice
		logf("fault %s on request %d: %s (the referee played %q)", n.Kind, n.RequestID, n.Reason, n.Fallback)
	case message.MatchOver != nil:
		logf("match over: %s", message.MatchOver.Reason)
		return true
	}
	return false
}
