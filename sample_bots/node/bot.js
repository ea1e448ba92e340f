#!/usr/bin/env node
// Sample bot `node`: a Schmier Arena bot in JavaScript (Node.js >= 18, @grpc/grpc-js).
//
// It speaks the contract in proto/arena/v1/arena.proto, loaded at run time from the
// repository (never copied), and plays a simple heuristic:
// - bids, at the lowest legal amount, only with a strong hand (Ace and 2 of a suit, or
//   four or more trumps of a suit including a bauer);
// - names the suit where its hand is strongest (trumps counted with the left bauer and
//   the joker, R2.3-R2.4);
// - discards its lowest plain cards (never aces) as a non-dealer, and its weakest cards
//   down to six as the dealer (R5.2-R5.4);
// - wins a trick with its cheapest winning card when an opponent holds it, and
//   otherwise plays its least valuable card.
// Every answer is picked from `request.legal`, and a strategy error falls back to the
// first legal choice, so the bot never sends an illegal answer.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const BOT_NAME = 'node';
const BOT_VERSION = '1';
const PROTO_REL = path.join('proto', 'arena', 'v1', 'arena.proto');
// The contract: where the arena says ($ARENA_PROTO_DIR, set for every bot), else the
// repository's own, ../../proto/arena/v1/arena.proto from this file, or the nearest
// ancestor directory that has it.
function findProto() {
  if (process.env.ARENA_PROTO_DIR) {
    return path.join(process.env.ARENA_PROTO_DIR, 'arena', 'v1', 'arena.proto');
  }
  const home = path.resolve(__dirname, '..', '..', PROTO_REL);
  if (fs.existsSync(home)) return home;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, PROTO_REL);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return home; // not found: report the expected place
  }
}

function log(message) {
  process.stderr.write(`[${BOT_NAME}] ${message}\n`);
}

function fail(message, code = 2) {
  log(message);
  process.exit(code);
}

// --------------------------------------------------------------------------------------
// Cards (R2): "JH" = jack of hearts, "TS" = ten of spades, "JK" = the joker.
// --------------------------------------------------------------------------------------

const JOKER = 'JK';
const RANKS = '23456789TJQKA';
const SUIT_LETTER = {
  SUIT_CLUBS: 'C',
  SUIT_DIAMONDS: 'D',
  SUIT_HEARTS: 'H',
  SUIT_SPADES: 'S',
};
const SAME_COLOUR = { C: 'S', S: 'C', D: 'H', H: 'D' }; // R2.2
const GAME_VALUE = { A: 4, K: 3, Q: 2, J: 1, T: 10 }; // R2.6 (joker: 1)

const rankOf = (card) => card[0];
const printedSuit = (card) => card[1];
const rightBauer = (trump) => `J${trump}`;
const leftBauer = (trump) => `J${SAME_COLOUR[trump]}`;
const isScoringTrump = (card, trump) =>
  card === JOKER || card === rightBauer(trump) || card === leftBauer(trump);

function gameValue(card) {
  if (card === JOKER) return 1;
  return GAME_VALUE[rankOf(card)] || 0;
}

// R2.4: the suit a card belongs to once `trump` (a letter, or null) is named.
function effectiveSuit(card, trump) {
  if (card === JOKER) return trump; // the joker is a trump (it is never led before trump)
  if (trump && card === leftBauer(trump)) return trump;
  return printedSuit(card);
}

function isTrump(card, trump) {
  return trump !== null && effectiveSuit(card, trump) === trump;
}

// R2.3 / R2.5: rank within its suit, higher is stronger.
function power(card, trump) {
  if (isTrump(card, trump)) {
    if (card === JOKER) return 1;
    if (card === rightBauer(trump)) return 12;
    if (card === leftBauer(trump)) return 11;
    const r = rankOf(card);
    if (r === 'A') return 15;
    if (r === 'K') return 14;
    if (r === 'Q') return 13;
    return RANKS.indexOf(r) + 2; // T = 10 ... 2 = 2
  }
  return RANKS.indexOf(rankOf(card)) + 2; // 2 = 2 ... A = 14
}

// One scale over all cards: any trump beats any plain card.
function strength(card, trump) {
  return (isTrump(card, trump) ? 100 : 0) + power(card, trump);
}

// How much giving this card away costs (lower = cheaper to throw).
function weight(card, trump) {
  let w = gameValue(card) * 10 + strength(card, trump);
  if (isScoringTrump(card, trump)) w += 60;
  return w;
}

// R7.3: the index of the card that wins (so far) among `cards`, led by cards[0].
function winningIndex(cards, trump) {
  const led = effectiveSuit(cards[0], trump);
  let best = 0;
  for (let i = 1; i < cards.length; i += 1) {
    const card = cards[i];
    const bestCard = cards[best];
    const cardTrump = isTrump(card, trump);
    const bestTrump = isTrump(bestCard, trump);
    if (cardTrump && !bestTrump) {
      best = i;
    } else if (cardTrump === bestTrump) {
      const follows = cardTrump || effectiveSuit(card, trump) === led;
      if (follows && power(card, trump) > power(bestCard, trump)) best = i;
    }
  }
  return best;
}

// --------------------------------------------------------------------------------------
// Strategy
// --------------------------------------------------------------------------------------

const SUITS = ['C', 'D', 'H', 'S'];

// Points the bidding side may expect with `trump` in hand (like sample_bots/greedy).
function handStrength(hand, trump) {
  const trumps = hand.filter((c) => isTrump(c, trump));
  let expected = 0;
  if (trumps.includes(`A${trump}`)) expected += 1; // High (R6.1)
  if (trumps.includes(`2${trump}`)) expected += 1; // Low
  if (trumps.includes(rightBauer(trump))) expected += 0.75;
  if (trumps.includes(leftBauer(trump))) expected += 0.5;
  if (trumps.includes(JOKER)) expected += 0.4;
  expected += 0.3 * Math.max(0, trumps.length - 2);
  return { trumps: trumps.length, expected };
}

function bestSuit(hand, allowed = SUITS) {
  let best = null;
  for (const suit of allowed) {
    const s = handStrength(hand, suit);
    if (
      best === null ||
      s.trumps > best.trumps ||
      (s.trumps === best.trumps && s.expected > best.expected)
    ) {
      best = { suit, ...s };
    }
  }
  return best;
}

function isStrongHand(hand) {
  return SUITS.some((suit) => {
    const trumps = hand.filter((c) => isTrump(c, suit));
    const aceAndTwo = trumps.includes(`A${suit}`) && trumps.includes(`2${suit}`);
    const bauer = trumps.includes(rightBauer(suit)) || trumps.includes(leftBauer(suit));
    return aceAndTwo || (trumps.length >= 4 && bauer);
  });
}

function chooseBid(view, bids) {
  const amounts = bids.filter((b) => b > 0).sort((a, b) => a - b);
  if (amounts.length === 0 || !isStrongHand(view.hand)) return 0;
  const lowest = amounts[0];
  // Bid the minimum, but do not go beyond what the hand may take (plus the partner).
  const { expected } = bestSuit(view.hand);
  const reach = Math.max(3, Math.floor(expected + 1.4));
  return lowest <= reach ? lowest : 0;
}

function chooseTrump(view, suits) {
  const letters = suits.map((s) => SUIT_LETTER[s]).filter(Boolean);
  const best = bestSuit(view.hand, letters.length ? letters : SUITS);
  const name = Object.keys(SUIT_LETTER).find((k) => SUIT_LETTER[k] === best.suit);
  return suits.includes(name) ? name : suits[0];
}

function chooseDiscard(view, rule) {
  const trump = SUIT_LETTER[view.trump] || null;
  const must = [...rule.must];
  const spare = rule.may.filter((c) => !must.includes(c));
  let wanted;
  let pool;
  if (rule.dealer) {
    pool = spare.sort((a, b) => weight(a, trump) - weight(b, trump));
    wanted = rule.min_count;
  } else {
    // Non-dealer: up to three of the lowest plain cards, never an ace.
    pool = spare
      .filter((c) => rankOf(c) !== 'A' && !isTrump(c, trump))
      .sort((a, b) => power(a, trump) - power(b, trump));
    wanted = Math.min(rule.max_count, must.length + pool.length, 3);
    const rest = spare.filter((c) => !pool.includes(c));
    pool = pool.concat(rest); // only used if min_count asks for more
  }
  wanted = Math.max(rule.min_count, Math.min(rule.max_count, wanted));
  const chosen = must.concat(pool.slice(0, Math.max(0, wanted - must.length)));
  return chosen;
}

function choosePlay(view, legal) {
  const trump = SUIT_LETTER[view.trump] || null;
  const trick = (view.current_trick && view.current_trick.cards) || [];
  const cheapest = (cards) => cards.reduce((a, b) => (weight(b, trump) < weight(a, trump) ? b : a));
  if (trick.length === 0) {
    // Lead: a plain ace takes points home; otherwise the least valuable card.
    const aces = legal.filter((c) => rankOf(c) === 'A' && !isTrump(c, trump));
    if (aces.length) return aces[0];
    return cheapest(legal);
  }
  const leader = view.current_trick.leader;
  const position = trick.length; // my position in the trick, 1..5
  const winnerSeat = (leader + winningIndex(trick, trump)) % 6;
  const partnerWinning = winnerSeat % 3 === view.seat % 3;
  if (partnerWinning) {
    if (position === 5) {
      // Last to play and the trick is ours: give it the most game value.
      return legal.reduce((a, b) => {
        const va = gameValue(a);
        const vb = gameValue(b);
        if (vb !== va) return vb > va ? b : a;
        return strength(b, trump) < strength(a, trump) ? b : a;
      });
    }
    return cheapest(legal);
  }
  const winners = legal.filter((c) => winningIndex([...trick, c], trump) === position);
  if (winners.length) {
    return winners.reduce((a, b) => (strength(b, trump) < strength(a, trump) ? b : a));
  }
  return cheapest(legal);
}

// The first legal choice: used if the strategy ever fails, so no answer is illegal.
function fallbackChoice(kind, legal) {
  switch (kind) {
    case 'DECISION_KIND_BID':
      return { bid: 0 };
    case 'DECISION_KIND_TRUMP':
      return { trump: legal.suits[0] };
    case 'DECISION_KIND_DISCARD': {
      const rule = legal.discard;
      const spare = rule.may.filter((c) => !rule.must.includes(c));
      const n = Math.max(0, rule.min_count - rule.must.length);
      return { discard: { cards: rule.must.concat(spare.slice(0, n)) } };
    }
    case 'DECISION_KIND_PLAY':
      return { card: legal.cards[0] };
    default:
      return null;
  }
}

function decide(kind, view, legal) {
  switch (kind) {
    case 'DECISION_KIND_BID': {
      const bid = chooseBid(view, legal.bids);
      return { bid: legal.bids.includes(bid) ? bid : 0 };
    }
    case 'DECISION_KIND_TRUMP':
      return { trump: chooseTrump(view, legal.suits) };
    case 'DECISION_KIND_DISCARD':
      return { discard: { cards: chooseDiscard(view, legal.discard) } };
    case 'DECISION_KIND_PLAY': {
      const card = choosePlay(view, legal.cards);
      return { card: legal.cards.includes(card) ? card : legal.cards[0] };
    }
    default:
      return null;
  }
}

function answerFor(request) {
  const { kind, view, legal } = request;
  let choice;
  try {
    choice = decide(kind, view, legal);
  } catch (error) {
    log(`strategy error (${error && error.message}); playing the first legal choice`);
    choice = fallbackChoice(kind, legal);
  }
  if (choice === null) return null;
  return { request_id: request.id, ...choice }; // id is a string (longs: String): echo it
}

// --------------------------------------------------------------------------------------
// The contract: join, answer each request, end on match_over.
// --------------------------------------------------------------------------------------

const REFUSALS = new Set([
  grpc.status.UNAUTHENTICATED,
  grpc.status.ALREADY_EXISTS,
  grpc.status.FAILED_PRECONDITION,
  grpc.status.DEADLINE_EXCEEDED,
  grpc.status.INVALID_ARGUMENT,
]);

function main() {
  const address = process.env.ARENA_ADDRESS;
  const token = process.env.ARENA_TOKEN;
  if (!address || !token) {
    fail('ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them)');
  }

  const protoPath = findProto();
  let definition;
  try {
    definition = protoLoader.loadSync(protoPath, {
      keepCase: true,
      longs: String,
      enums: String,
      defaults: true,
      oneofs: true,
    });
  } catch (error) {
    fail(`cannot load the contract ${protoPath}: ${error.message}`);
  }
  const arena = grpc.loadPackageDefinition(definition).arena.v1;
  const client = new arena.Referee(address, grpc.credentials.createInsecure());
  const call = client.Play();
  let over = false;

  const finish = (code) => {
    over = true;
    // Give the half-close a moment to reach the referee, then leave.
    setTimeout(() => {
      client.close();
      process.exit(code);
    }, 50);
  };

  call.on('data', (message) => {
    if (over) return;
    // message.events: everything this seat may know (R10); this bot reads it from the view.
    switch (message.body) {
      case 'welcome':
        break;
      case 'request': {
        const answer = answerFor(message.request);
        if (answer === null) {
          log(`cannot answer a request of kind ${message.request.kind}`);
        } else {
          call.write({ answer });
        }
        break;
      }
      case 'notice': {
        const n = message.notice;
        log(`fault ${n.kind}: ${n.reason} (played ${n.fallback})`);
        break;
      }
      case 'match_over':
        call.end();
        finish(0);
        break;
      default:
        break;
    }
  });

  call.on('error', (error) => {
    if (over) return;
    over = true;
    if (REFUSALS.has(error.code)) {
      const name = Object.keys(grpc.status).find((k) => grpc.status[k] === error.code);
      fail(`the referee refused this bot: ${name}: ${error.details}`);
    }
    if (error.code === grpc.status.UNAVAILABLE) {
      fail(`cannot reach the referee at ${address}`);
    }
    fail(`the stream failed: ${error.code} ${error.details || error.message}`, 1);
  });

  call.on('end', () => {
    if (over) return;
    // The 'error' event follows an end with a failing status; wait a tick for it.
    setTimeout(() => {
      if (over) return;
      log('the referee closed the stream');
      finish(0);
    }, 100);
  });

  call.write({
    join: {
      token,
      bot_name: BOT_NAME,
      bot_version: BOT_VERSION,
      protocol_version: 'PROTOCOL_VERSION_1',
    },
  });
}

if (require.main === module) {
  main();
}

module.exports = { effectiveSuit, power, winningIndex, chooseDiscard, choosePlay, chooseBid };
