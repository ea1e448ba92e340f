// The strategy of the `go` sample bot: simple and greedy, always legal.
//
//   - bid: count the points the hand could take with its best trump suit (High and Low
//     in hand, the bauers, the joker, length) and bid the lowest legal amount up to it;
//   - trump: the suit that makes the hand strongest;
//   - discard: the weakest non-trumps, keeping aces and tens, as the rule allows;
//   - play: win the trick as cheaply as possible, else play the cheapest card.
//
// Every choice is taken from the request's legal choices (LegalChoices, DiscardRule),
// never computed from the rules alone, so the answer is legal whatever the heuristics
// think.
package main

import "sort"

const ranks = "23456789TJQKA" // R2.5: low to high in a plain suit
const joker = "JK"

var suitLetter = map[suitEnum]byte{
	"SUIT_CLUBS": 'C', "SUIT_DIAMONDS": 'D', "SUIT_HEARTS": 'H', "SUIT_SPADES": 'S',
}

// sameColour is the other suit of the same colour (R2.2): where the left bauer comes from.
var sameColour = map[byte]byte{'C': 'S', 'S': 'C', 'D': 'H', 'H': 'D'}

func rankOf(card string) byte { return card[0] }
func suitOf(card string) byte { return card[1] }

func rankIndex(card string) int {
	for i := 0; i < len(ranks); i++ {
		if ranks[i] == rankOf(card) {
			return i + 2
		}
	}
	return 0
}

// isTrump follows R2.3-R2.4: the trump suit, the left bauer and the joker.
func isTrump(card string, trump byte) bool {
	if card == joker {
		return true
	}
	if len(card) != 2 {
		return false
	}
	return suitOf(card) == trump || (rankOf(card) == 'J' && suitOf(card) == sameColour[trump])
}

// effectiveSuit is the suit a card counts as (R2.4, R7.2): trump for the bauers and joker.
func effectiveSuit(card string, trump byte) byte {
	if isTrump(card, trump) {
		return trump
	}
	return suitOf(card)
}

// trumpPower orders the 15 trumps (R2.3): A K Q, right bauer, left bauer, 10 ... 2, joker.
func trumpPower(card string, trump byte) int {
	switch {
	case card == joker:
		return 1
	case rankOf(card) == 'J' && suitOf(card) == trump:
		return 12 // right bauer
	case rankOf(card) == 'J':
		return 11 // left bauer
	case rankOf(card) == 'Q':
		return 13
	case rankOf(card) == 'K':
		return 14
	case rankOf(card) == 'A':
		return 15
	}
	return rankIndex(card) // 2 .. 10
}

// power is a card's strength in a trick: every trump above every plain card.
func power(card string, trump byte) int {
	if isTrump(card, trump) {
		return 100 + trumpPower(card, trump)
	}
	return rankIndex(card)
}

// value is a card's worth for the Game point (R2.6).
func value(card string) int {
	if card == joker {
		return 1
	}
	switch rankOf(card) {
	case 'A':
		return 4
	case 'K':
		return 3
	case 'Q':
		return 2
	case 'J':
		return 1
	case 'T':
		return 10
	}
	return 0
}

// weight is what giving a card away costs: its Game value, the scoring trumps whose
// trick wins a point (R6.1), and its power.
func weight(card string, trump byte) int {
	w := value(card)*10 + power(card, trump)
	if isTrump(card, trump) && (card == joker || rankOf(card) == 'J') {
		w += 60
	}
	return w
}

// beats tells whether card takes the trick from best, the card winning it so far (R7.3).
func beats(card, best string, trump, led byte) bool {
	cardTrump, bestTrump := isTrump(card, trump), isTrump(best, trump)
	switch {
	case cardTrump && bestTrump:
		return trumpPower(card, trump) > trumpPower(best, trump)
	case cardTrump:
		return true
	case bestTrump:
		return false
	}
	return effectiveSuit(card, trump) == led &&
		(effectiveSuit(best, trump) != led || rankIndex(card) > rankIndex(best))
}

// strength is the points a hand may expect with trump (a rough count, as `greedy` does).
func strength(hand []string, trump byte) float64 {
	expected, count := 0.0, 0
	for _, card := range hand {
		if !isTrump(card, trump) {
			continue
		}
		count++
		switch {
		case card == joker:
			expected += 0.4
		case rankOf(card) == 'A':
			expected += 1 // High is the holder's (R6.1)
		case rankOf(card) == '2':
			expected += 1 // and so is Low
		case rankOf(card) == 'J' && suitOf(card) == trump:
			expected += 0.75
		case rankOf(card) == 'J':
			expected += 0.5
		}
	}
	if count > 2 {
		expected += 0.3 * float64(count-2)
	}
	return expected
}

func bestSuit(hand []string, suits []suitEnum) (suitEnum, float64) {
	best, bestStrength := suitEnum(""), -1.0
	for _, suit := range suits {
		letter, ok := suitLetter[suit]
		if !ok {
			continue
		}
		if s := strength(hand, letter); s > bestStrength {
			best, bestStrength = suit, s
		}
	}
	return best, bestStrength
}

var allSuits = []suitEnum{"SUIT_CLUBS", "SUIT_DIAMONDS", "SUIT_HEARTS", "SUIT_SPADES"}

// chooseBid: the lowest legal bid the hand is worth, else pass (0, always legal: R4.2).
func chooseBid(request *decisionRequest) uint64 {
	_, s := bestSuit(request.View.Hand, allSuits)
	worth := uint64(s + 0.9) // the partner and the exchange usually add about a point
	for _, bid := range request.Legal.Bids {
		if bid > 0 && uint64(bid) <= worth {
			return uint64(bid) // the legal bids come lowest first (docs/PROTOCOL.md §3)
		}
	}
	return 0
}

// chooseTrump: the strongest suit among the legal ones (R5.1).
func chooseTrump(request *decisionRequest) suitEnum {
	if suit, _ := bestSuit(request.View.Hand, request.Legal.Suits); suit != "" {
		return suit
	}
	if len(request.Legal.Suits) > 0 {
		return request.Legal.Suits[0]
	}
	return "SUIT_CLUBS"
}

// chooseDiscard follows the DiscardRule (R5.2-R5.4): all of `must`, then the weakest
// other cards of `may`, between min_count and max_count cards in all.
func chooseDiscard(request *decisionRequest) []string {
	rule := request.Legal.Discard
	trump := suitLetter[request.View.Trump]
	chosen := append([]string{}, rule.Must...)
	inMust := map[string]bool{}
	for _, card := range rule.Must {
		inMust[card] = true
	}
	var weak, keep []string // weak: wanted away; keep: only if the count demands it
	for _, card := range rule.May {
		if inMust[card] {
			continue
		}
		if !rule.Dealer && (rankOf(card) == 'A' || rankOf(card) == 'T' || isTrump(card, trump)) {
			keep = append(keep, card)
		} else {
			weak = append(weak, card)
		}
	}
	byWeight := func(cards []string) {
		sort.SliceStable(cards, func(i, j int) bool {
			wi, wj := weight(cards[i], trump), weight(cards[j], trump)
			if rankOf(cards[i]) == 'A' {
				wi += 50
			}
			if rankOf(cards[j]) == 'A' {
				wj += 50
			}
			return wi < wj
		})
	}
	byWeight(weak)
	byWeight(keep)
	want := len(chosen) + len(weak)
	if rule.Dealer {
		want = int(rule.MinCount) // the dealer discards exactly back to six (R5.3)
	}
	if want < int(rule.MinCount) {
		want = int(rule.MinCount)
	}
	if want > int(rule.MaxCount) {
		want = int(rule.MaxCount)
	}
	for _, card := range append(weak, keep...) {
		if len(chosen) >= want {
			break
		}
		chosen = append(chosen, card)
	}
	return chosen
}

// choosePlay picks one of the legal cards (R7.2), from the trick in progress.
func choosePlay(request *decisionRequest) string {
	legal := request.Legal.Cards
	if len(legal) == 0 {
		return ""
	}
	if len(legal) == 1 {
		return legal[0]
	}
	v := request.View
	trump, ok := suitLetter[v.Trump]
	if !ok {
		return legal[0]
	}
	cheapest := func(cards []string) string {
		best := cards[0]
		for _, card := range cards[1:] {
			if weight(card, trump) < weight(best, trump) {
				best = card
			}
		}
		return best
	}
	trickCards := v.CurrentTrick.Cards
	if len(trickCards) == 0 {
		return lead(v, legal, trump, cheapest)
	}
	// Who is winning the trick so far (R7.3), and is it our side (R1.2)?
	led := effectiveSuit(trickCards[0], trump)
	best, bestAt := trickCards[0], 0
	for i, card := range trickCards[1:] {
		if beats(card, best, trump, led) {
			best, bestAt = card, i+1
		}
	}
	winner := (int(v.CurrentTrick.Leader) + bestAt) % 6
	if winner%3 == int(v.Seat)%3 {
		if len(trickCards) == 5 { // last to play: the trick is ours, give it points
			richest := legal[0]
			for _, card := range legal[1:] {
				if value(card) > value(richest) ||
					(value(card) == value(richest) && power(card, trump) < power(richest, trump)) {
					richest = card
				}
			}
			return richest
		}
		return cheapest(legal)
	}
	var winners []string
	for _, card := range legal {
		if beats(card, best, trump, led) {
			winners = append(winners, card)
		}
	}
	if len(winners) > 0 {
		lowest := winners[0]
		for _, card := range winners[1:] {
			if power(card, trump) < power(lowest, trump) {
				lowest = card
			}
		}
		return lowest
	}
	return cheapest(legal)
}

// lead: a trump nobody else can beat while others may hold trumps, else a plain ace,
// else the cheapest card.
func lead(v view, legal []string, trump byte, cheapest func([]string) string) string {
	seen := map[string]bool{}
	for _, card := range v.Hand {
		seen[card] = true
	}
	for _, t := range v.Tricks {
		for _, card := range t.Cards {
			seen[card] = true
		}
	}
	topUnseen := 0
	for _, card := range trumpCards(trump) {
		if !seen[card] && trumpPower(card, trump) > topUnseen {
			topUnseen = trumpPower(card, trump)
		}
	}
	if topUnseen > 0 {
		sure := ""
		for _, card := range legal {
			if isTrump(card, trump) && trumpPower(card, trump) > topUnseen &&
				(sure == "" || trumpPower(card, trump) > trumpPower(sure, trump)) {
				sure = card
			}
		}
		if sure != "" {
			return sure
		}
	}
	var plain []string
	for _, card := range legal {
		if !isTrump(card, trump) {
			if rankOf(card) == 'A' {
				return card
			}
			plain = append(plain, card)
		}
	}
	if len(plain) > 0 {
		return cheapest(plain)
	}
	return cheapest(legal)
}

// trumpCards are the 15 trumps of a deal (R2.3).
func trumpCards(trump byte) []string {
	cards := []string{joker, "J" + string(sameColour[trump])}
	for i := 0; i < len(ranks); i++ {
		cards = append(cards, string(ranks[i])+string(trump))
	}
	return cards
}
