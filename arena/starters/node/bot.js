#!/usr/bin/env node
// Bot __BOT_NAME__: a Schmier Arena bot in JavaScript (Node.js >= 18, @grpc/grpc-js).
//
// It loads the contract copied into this directory (proto/arena/v1/arena.proto) at start
// with @grpc/proto-loader, so nothing is generated; joins the referee at ARENA_ADDRESS
// with the token in ARENA_TOKEN (again, while the referee cannot be reached); answers
// every decision request with its first legal choice; and exits 0 when the match is over
// (docs/PROTOCOL.md §2). The legal lists come in the order docs/PROTOCOL.md guarantees:
// pass first, then the bids from low to high; clubs, diamonds, hearts, spades; cards by
// suit in that order, 2 up to ace, the joker last. Put your strategy in the four choose*
// functions.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const BOT_NAME = '__BOT_NAME__';
const BOT_VERSION = '1';
const PROTO = path.join(__dirname, 'proto', 'arena', 'v1', 'arena.proto');

function log(message) {
  process.stderr.write(`[${BOT_NAME}] ${message}\n`);
}

// --- the strategy: one function per decision kind ---------------------------------------
// `view` is everything this seat may know now (its hand, the bids, trump, the tricks:
// the View message of the contract); `legal` the legal choices (LegalChoices).

// R4: 0 to pass, or more than the highest bid so far (3-6). legal.bids starts with 0.
function chooseBid(view, legal) {
  // Strategy goes here: judge view.hand for each suit as trump and bid what your team
  // can make (R6.1: High, Low, the two bauers, the joker, Game).
  return legal.bids[0];
}

// R5.1: you won the bidding (view.contract); name one of the four suits.
function chooseTrump(view, legal) {
  // Strategy goes here: the suit you hold most trumps of (the left bauer and the joker
  // are trumps too, R2.4).
  return legal.suits[0];
}

// R5.2-R5.4: a discard D is legal when must <= D <= may and min_count <= |D| <= max_count.
// As the dealer (rule.dealer) you have picked up the stock (view.own_received) and
// discard back to six cards.
function chooseDiscard(view, rule) {
  // Strategy goes here: which cards of rule.may to let go. This is the smallest legal
  // discard: all of must, then the first cards of may up to min_count.
  const cards = [...rule.must];
  for (const card of rule.may) {
    if (cards.length >= rule.min_count) break;
    if (!cards.includes(card)) cards.push(card);
  }
  return cards;
}

// R7: the cards you may play (you must follow the suit led when you can; a led left
// bauer or joker calls for trump, R2.4). view.current_trick: its leader and the cards
// played so far (none: you lead).
function choosePlay(view, legal) {
  // Strategy goes here: which card wins the trick, and which one to keep.
  return legal.cards[0];
}

function answerFor(request) {
  const { kind, view, legal } = request;
  const answer = { request_id: request.id }; // a string (longs: String): echo it as is
  switch (kind) {
    case 'DECISION_KIND_BID':
      return { ...answer, bid: chooseBid(view, legal) };
    case 'DECISION_KIND_TRUMP':
      return { ...answer, trump: chooseTrump(view, legal) };
    case 'DECISION_KIND_DISCARD':
      return { ...answer, discard: { cards: chooseDiscard(view, legal.discard) } };
    case 'DECISION_KIND_PLAY':
      return { ...answer, card: choosePlay(view, legal) };
    default:
      return null;
  }
}

// --- the contract: join, answer each request, end on match_over -------------------------

// A unix socket's file gone means the seat is gone (its match is over): no use trying.
function socketGone(address) {
  return address.startsWith('unix:') && !fs.existsSync(address.slice('unix:'.length));
}

function play(arena, address, token, pause) {
  const client = new arena.Referee(address, grpc.credentials.createInsecure());
  const call = client.Play();
  let over = false;
  let heard = false; // the referee has answered, so it read the join

  const finish = (code) => {
    over = true;
    setTimeout(() => {
      client.close();
      process.exit(code);
    }, 50); // a moment for the half-close to reach the referee
  };

  call.on('data', (message) => {
    heard = true;
    if (over) return;
    // message.events: what happened since the last message (R10); this bot reads the view.
    switch (message.body) {
      case 'request': {
        const answer = answerFor(message.request);
        if (answer === null) log(`cannot answer a request of kind ${message.request.kind}`);
        else call.write({ answer });
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
        break; // the welcome, or events only
    }
  });
  call.on('error', (error) => {
    if (over) return;
    if (error.code === grpc.status.UNAVAILABLE && !heard && !socketGone(address)) {
      // The referee could not be reached yet (a machine too busy to serve this bot): join
      // again with the same token until it answers. Only its own refusal (the seat's
      // deadline passed: DEADLINE_EXCEEDED) ends the attempts (docs/PROTOCOL.md §2).
      over = true;
      client.close();
      if (pause === 50) log(`cannot reach the referee yet (${error.details}); trying again`);
      setTimeout(() => play(arena, address, token, Math.min(2 * pause, 1000)), pause);
      return;
    }
    log(`the stream failed: ${error.code} ${error.details || error.message}`);
    finish(error.code === grpc.status.UNAVAILABLE ? 2 : 1);
  });
  call.on('end', () => {
    // A failing status comes as an 'error' right after the end: wait a moment for it.
    setTimeout(() => {
      if (!over) finish(0);
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

function main() {
  const address = process.env.ARENA_ADDRESS;
  const token = process.env.ARENA_TOKEN;
  if (!address || !token) {
    log('ARENA_ADDRESS and ARENA_TOKEN must be set (the arena sets them)');
    process.exit(2);
  }
  const definition = protoLoader.loadSync(PROTO, {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  play(grpc.loadPackageDefinition(definition).arena.v1, address, token, 50);
}

main();
