// Strategy of the cpp sample bot (rules: docs/RULES.md, cited as R…).
//
//   bid:     only with a strong hand in some suit, at the lowest legal amount (R4.2);
//   trump:   the suit of which the hand holds most trumps (bauers and joker counted, R2.3);
//   discard: a non-dealer throws its low non-aces (R5.2); the dealer keeps its best (R5.3-R5.4);
//   play:    win a trick worth having with the cheapest card that does, else play cheap (R7).
#include "strategy.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace cppbot {
namespace {

using arena::v1::Answer;
using arena::v1::DecisionRequest;
using arena::v1::Suit;

constexpr const char* kJoker = "JK";
constexpr int kSeats = 6;

// Suit letters in the order of the Suit enum: SUIT_CLUBS = 1 … SUIT_SPADES = 4.
constexpr char kSuitLetters[] = {'?', 'C', 'D', 'H', 'S'};
const Suit kSuits[] = {arena::v1::SUIT_CLUBS, arena::v1::SUIT_DIAMONDS,
                       arena::v1::SUIT_HEARTS, arena::v1::SUIT_SPADES};

bool IsJoker(const std::string& card) { return card == kJoker; }

// R2.5: 2..9, T, J, Q, K, A as 2..14; 0 for the joker or a malformed card.
int Rank(const std::string& card) {
  if (card.size() != 2 || IsJoker(card)) return 0;
  static const std::string order = "23456789TJQKA";
  const auto at = order.find(card[0]);
  return at == std::string::npos ? 0 : static_cast<int>(at) + 2;
}

char SuitLetter(Suit suit) {
  const int index = static_cast<int>(suit);
  return index >= 1 && index <= 4 ? kSuitLetters[index] : '?';
}

// R2.2: the other suit of the same colour (clubs <-> spades, diamonds <-> hearts).
char SameColour(char suit) {
  switch (suit) {
    case 'C': return 'S';
    case 'S': return 'C';
    case 'D': return 'H';
    case 'H': return 'D';
    default: return '?';
  }
}

// R2.3-R2.4: trump is the named suit, the left bauer and the joker.
bool IsTrump(const std::string& card, char trump) {
  if (IsJoker(card)) return true;
  if (card.size() != 2 || trump == '?') return false;
  return card[1] == trump || (card[0] == 'J' && card[1] == SameColour(trump));
}

// R2.3: A K Q right-bauer left-bauer T 9 … 2 joker, as 15 … 1.
int TrumpRank(const std::string& card, char trump) {
  if (IsJoker(card)) return 1;
  if (card[0] == 'J') return card[1] == trump ? 12 : 11;
  const int rank = Rank(card);
  return rank >= 12 ? rank + 1 : rank;  // Q K A above the bauers; T and lower as is
}

// The suit a card belongs to in play (R2.4): trump for the bauers and the joker.
char PlaySuit(const std::string& card, char trump) {
  if (IsTrump(card, trump)) return trump;
  return card.size() == 2 ? card[1] : '?';
}

// R2.6: the card values that make up the Game point.
int Value(const std::string& card) {
  if (IsJoker(card)) return 1;
  switch (card.empty() ? '?' : card[0]) {
    case 'A': return 4;
    case 'K': return 3;
    case 'Q': return 2;
    case 'J': return 1;
    case 'T': return 10;
    default: return 0;
  }
}

// How strong a card is in a trick led in `led` (R7.3): any trump beats any
// non-trump; a card neither trump nor of the suit led cannot win (0).
int Strength(const std::string& card, char trump, char led) {
  if (IsTrump(card, trump)) return 100 + TrumpRank(card, trump);
  if (PlaySuit(card, trump) == led) return Rank(card);
  return 0;
}

// Orders cards cheapest first: non-trumps before trumps, then few points (R2.6)
// before many, then low before high.
std::tuple<int, int, int> Cheapness(const std::string& card, char trump) {
  const bool trump_card = IsTrump(card, trump);
  return {trump_card ? 1 : 0, Value(card), trump_card ? TrumpRank(card, trump) : Rank(card)};
}

// Orders cards for the dealer's discard, weakest first (R5.3-R5.4): non-trumps
// before trumps, then by rank.
int Weakness(const std::string& card, char trump) {
  return IsTrump(card, trump) ? 100 + TrumpRank(card, trump) : Rank(card);
}

template <typename Key>
std::string MinBy(const std::vector<std::string>& cards, Key key) {
  return *std::min_element(cards.begin(), cards.end(),
                           [&](const std::string& a, const std::string& b) {
                             return key(a) < key(b);
                           });
}

// How good `suit` would be as trump for `hand`: the number of trumps first (R2.3),
// then the cards that score (ace, right bauer, 2, left bauer, joker; R6.1).
int TrumpScore(const std::vector<std::string>& hand, char suit) {
  int count = 0;
  int bonus = 0;
  for (const auto& card : hand) {
    if (!IsTrump(card, suit)) continue;
    ++count;
    const int rank = IsJoker(card) ? 1 : TrumpRank(card, suit);
    if (rank == 15) bonus += 4;                 // ace: High is ours
    else if (rank == 12) bonus += 3;            // right bauer
    else if (rank == 2) bonus += 2;             // 2: Low is ours
    else if (rank == 11 || rank == 13 || rank == 14) bonus += 1;
  }
  return count * 16 + bonus;
}

bool Holds(const std::vector<std::string>& hand, const std::string& card) {
  return std::find(hand.begin(), hand.end(), card) != hand.end();
}

// A hand worth a bid (R4.6): in some suit it holds the ace and the 2 (High and Low,
// two points sure), or three trumps with the ace or the right bauer, or four trumps.
bool StrongHand(const std::vector<std::string>& hand) {
  for (Suit suit : kSuits) {
    const char s = SuitLetter(suit);
    int count = 0;
    for (const auto& card : hand) count += IsTrump(card, s) ? 1 : 0;
    const bool ace = Holds(hand, std::string("A") + s);
    const bool two = Holds(hand, std::string("2") + s);
    const bool right = Holds(hand, std::string("J") + s);
    if ((ace && two) || (count >= 3 && (ace || right)) || count >= 4) return true;
  }
  return false;
}

std::vector<std::string> Hand(const DecisionRequest& request) {
  return {request.view().hand().begin(), request.view().hand().end()};
}

void AnswerBid(const DecisionRequest& request, Answer* answer) {
  uint32_t lowest = 0;  // pass (R4.2) is always legal
  for (uint32_t amount : request.legal().bids()) {
    if (amount != 0 && (lowest == 0 || amount < lowest)) lowest = amount;
  }
  answer->set_bid(lowest != 0 && StrongHand(Hand(request)) ? lowest : 0);
}

void AnswerTrump(const DecisionRequest& request, Answer* answer) {
  const auto hand = Hand(request);
  Suit best = arena::v1::SUIT_CLUBS;
  int best_score = -1;
  for (int raw : request.legal().suits()) {
    const Suit suit = static_cast<Suit>(raw);
    const int score = TrumpScore(hand, SuitLetter(suit));
    if (score > best_score) {
      best = suit;
      best_score = score;
    }
  }
  answer->set_trump(best);
}

void AnswerDiscard(const DecisionRequest& request, Answer* answer) {
  // A discard is legal exactly when must ⊆ D ⊆ may and min_count <= |D| <= max_count.
  const auto& rule = request.legal().discard();
  const char trump = SuitLetter(request.view().trump());
  std::vector<std::string> chosen(rule.must().begin(), rule.must().end());
  std::vector<std::string> spare;
  for (const auto& card : rule.may()) {
    if (!Holds(chosen, card)) spare.push_back(card);
  }
  std::stable_sort(spare.begin(), spare.end(), [&](const std::string& a, const std::string& b) {
    return Weakness(a, trump) < Weakness(b, trump);
  });
  if (!rule.dealer()) {
    // R5.2: put down the low non-trumps (never an ace), up to the limit, to draw better.
    for (const auto& card : spare) {
      if (chosen.size() >= rule.max_count()) break;
      if (Rank(card) != 14 && !IsTrump(card, trump)) chosen.push_back(card);
    }
  }
  // R5.3-R5.4 (and any minimum): the weakest cards left until min_count is reached.
  for (const auto& card : spare) {
    if (chosen.size() >= rule.min_count()) break;
    if (!Holds(chosen, card)) chosen.push_back(card);
  }
  auto* list = answer->mutable_discard();  // set even when empty: "no discard"
  for (const auto& card : chosen) list->add_cards(card);
}

void AnswerPlay(const DecisionRequest& request, Answer* answer) {
  const auto& view = request.view();
  const char trump = SuitLetter(view.trump());
  const std::vector<std::string> legal(request.legal().cards().begin(),
                                       request.legal().cards().end());
  if (legal.empty()) return;  // cannot happen; the referee would record a fault
  const auto cheapest = [&](const std::vector<std::string>& cards) {
    return MinBy(cards, [&](const std::string& c) { return Cheapness(c, trump); });
  };
  const auto& trick = view.current_trick();
  const int played = trick.cards_size();

  if (played == 0) {
    // Leading (R7.1): the ace of trump cannot lose (R2.3) and draws out trumps.
    const std::string ace = std::string("A") + trump;
    answer->set_card(Holds(legal, ace) ? ace : cheapest(legal));
    return;
  }

  const char led = PlaySuit(trick.cards(0), trump);
  int best = 0;
  int winner = 0;
  bool worth = false;  // the trick holds a ten, an ace, a bauer or the joker
  for (int i = 0; i < played; ++i) {
    const std::string& card = trick.cards(i);
    const int strength = Strength(card, trump, led);
    if (strength > best) {
      best = strength;
      winner = static_cast<int>((trick.leader() + i) % kSeats);
    }
    const int rank = Rank(card);
    const bool bauer = card.size() == 2 && card[0] == 'J' && IsTrump(card, trump);
    worth = worth || IsJoker(card) || rank == 10 || rank == 14 || bauer;
  }
  const int seat = static_cast<int>(view.seat());
  const bool partner_wins = winner % 3 == seat % 3;
  const bool last = played == kSeats - 1;

  if (partner_wins && last) {
    // R6.2: the trick is the team's; add the most valuable non-trump to it.
    std::vector<std::string> plain;
    for (const auto& c : legal) {
      if (!IsTrump(c, trump)) plain.push_back(c);
    }
    if (!plain.empty()) {
      answer->set_card(MinBy(plain, [&](const std::string& c) {
        return std::make_tuple(-Value(c), Rank(c));
      }));
      return;
    }
  }
  if (worth && !partner_wins) {
    std::vector<std::string> winning;
    for (const auto& c : legal) {
      if (Strength(c, trump, led) > best) winning.push_back(c);
    }
    if (!winning.empty()) {
      answer->set_card(MinBy(winning, [&](const std::string& c) {
        return Strength(c, trump, led);
      }));
      return;
    }
  }
  answer->set_card(cheapest(legal));
}

}  // namespace

Answer Decide(const DecisionRequest& request) {
  Answer answer;
  answer.set_request_id(request.id());
  switch (request.kind()) {
    case arena::v1::DECISION_KIND_BID: AnswerBid(request, &answer); break;
    case arena::v1::DECISION_KIND_TRUMP: AnswerTrump(request, &answer); break;
    case arena::v1::DECISION_KIND_DISCARD: AnswerDiscard(request, &answer); break;
    case arena::v1::DECISION_KIND_PLAY: AnswerPlay(request, &answer); break;
    default: break;  // an unknown kind: answer nothing rather than something wrong
  }
  return answer;
}

}  // namespace cppbot
