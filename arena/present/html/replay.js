// The replay page: draws the engine's states embedded as JSON; it knows no rule of the game.
// Every text from the data is inserted with textContent, never as HTML.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("replay-data").textContent);
  const TABLE = DATA.table;
  const resolved = new Map();

  // "@<n>" is a shared entry of the table (see arena/present/html/replay.py).
  function resolve(value) {
    if (typeof value === "string" && value.charAt(0) === "@") {
      const index = Number(value.slice(1));
      if (!resolved.has(index)) resolved.set(index, resolve(TABLE[index]));
      return resolved.get(index);
    }
    if (Array.isArray(value)) return value.map(resolve);
    if (value !== null && typeof value === "object") {
      const out = {};
      for (const key of Object.keys(value)) out[key] = resolve(value[key]);
      return out;
    }
    return value;
  }

  const GAME = DATA.game;
  // The steps are stored by column (see STEP_KEYS in replay.py).
  const STEPS = DATA.steps.kind.map((_, i) => Object.fromEntries(
    Object.entries(DATA.steps).map(([key, column]) => [key, column[i]])));
  const DEALS = DATA.deals;
  const SEATS = 6;
  const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const CATEGORIES = [
    ["high", "High"], ["low", "Low"], ["right", "Right bauer"],
    ["left", "Left bauer"], ["joker", "Joker"], ["game", "Game"],
  ];
  const TEAM_COLOURS = ["#1f6fd1", "#c2410c", "#15803d"];
  // Seats round the table, partners opposite (R1.2): 2 3 4 above, 1 0 5 below.
  const PLACES = [[2, 3, 4], [1, 0, 5]];

  const team = (seat) => GAME.team_of_seat[seat];
  // The step at which the game's end is told (its "over" step), else the last step.
  const OVER_STEP = STEPS.findIndex((s) => s.kind === "over");
  const END_STEP = OVER_STEP >= 0 ? OVER_STEP : STEPS.length - 1;
  let current = 0;
  let mode = "all"; // "all", or a seat number as a string
  // "Hide the result": nothing the game has not reached yet is shown, not even its length.
  let hideResult = window.location.hash === "#hide-result";
  let timer = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else node.setAttribute(key, String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" || typeof child === "number"
        ? document.createTextNode(String(child)) : child);
    }
    return node;
  }

  function cardNode(text, extraClass) {
    if (text === "JK") {
      return el("span", { class: "card joker " + (extraClass || ""), "data-card": text,
        title: "Joker" }, "JK\u2605");
    }
    const rank = text.charAt(0) === "T" ? "10" : text.charAt(0);
    const suit = text.charAt(1);
    const colour = suit === "H" || suit === "D" ? "red" : "black";
    return el("span", { class: "card " + colour + " " + (extraClass || ""), "data-card": text,
      title: rank + " of " + SUIT_NAMES[suit] }, rank, SUITS[suit]);
  }
  const cardList = (texts, extraClass) => texts.length
    ? el("span", { class: "cards" }, texts.map((t) => cardNode(t, extraClass)))
    : el("span", { class: "cards none" }, "nothing");
  const backs = (count) => el("span", { class: "cards", "data-backs": count },
    Array.from({ length: count }, () => el("span", { class: "card back", "aria-hidden": "true" })));
  const seatName = (seat) => "seat " + seat + " (" + GAME.labels[seat] + ")";
  const teamSpan = (t) => t === null || t === undefined
    ? el("span", {}, "nobody") : el("span", { class: "tc" + t }, "team " + t);

  // ---- the page's frame ----------------------------------------------------------
  const header = el("header", {},
    el("h1", {}, "Schmier game " + GAME.id),
    el("div", { class: "meta" }, "run " + GAME.run + " \u00b7 game seed " + GAME.seed_index,
      el("span", { id: "game-length" }, " \u00b7 " + DEALS.length + " deals"),
      " \u00b7 ", el("span", { id: "game-result" })),
    el("div", { class: "teams" }, [0, 1, 2].map((t) =>
      el("span", { class: "team-chip t" + t, "data-team": t },
        el("b", { class: "tc" + t }, "Team " + t), " seats " + t + " & " + (t + 3) + ": ",
        el("span", { class: "team-label" }, GAME.labels[t]),
        ": ", el("b", { "data-team-score": t }, "0")))));

  // The result once play has reached the game's end, in every mode; before it, "in play".
  function describeResult() {
    const result = GAME.result;
    if (current < END_STEP) return "in play";
    if (result === null) return "unfinished";
    if (result.winner === null) return "draw at " + result.scores.join(" / ");
    return "team " + result.winner + " won, scores " + result.scores.join(" / ");
  }

  const buttons = {};
  function button(name, label, title, action) {
    const node = el("button", { type: "button", id: "btn-" + name, title: title,
      "aria-label": title }, label);
    node.addEventListener("click", action);
    buttons[name] = node;
    return node;
  }
  const slider = el("input", { type: "range", id: "slider", min: 0, max: STEPS.length - 1,
    value: 0, "aria-label": "step" });
  slider.addEventListener("input", () => goto(Number(slider.value)));
  const speed = el("select", { id: "speed", "aria-label": "speed" },
    [["2000", "0.5 steps/s"], ["1000", "1 step/s"], ["500", "2 steps/s"], ["250", "4 steps/s"],
      ["100", "10 steps/s"]].map(([ms, label]) =>
      el("option", { value: ms, selected: ms === "500" ? "selected" : null }, label)));
  speed.addEventListener("change", () => { if (timer !== null) { pause(); play(); } });
  const modeSelect = el("select", { id: "mode", "aria-label": "whose eyes" },
    el("option", { value: "all" }, "All hands face up"),
    Array.from({ length: SEATS }, (_, seat) =>
      el("option", { value: String(seat) }, "As " + seatName(seat) + " saw it")));
  modeSelect.addEventListener("change", () => { mode = modeSelect.value; draw(); });
  const position = el("span", { id: "position" });
  const hideBox = el("input", { type: "checkbox", id: "hide-result",
    checked: hideResult ? "checked" : null });
  hideBox.addEventListener("change", () => { hideResult = hideBox.checked; draw(); });
  const turnSeat = el("select", { id: "turn-seat", "aria-label": "whose next decision" },
    Array.from({ length: SEATS }, (_, seat) =>
      el("option", { value: String(seat) }, "seat " + seat)));
  const jumpNote = el("span", { id: "jump-note", role: "status" });
  const nav = el("nav", { "aria-label": "replay controls" },
    el("div", { class: "nav-row" },
      button("first", "\u21e4", "first step (Home)", () => goto(0)),
      button("prev-deal", "\u00ab deal", "previous deal (Page Up)", () => gotoDeal(-1)),
      button("prev", "\u25c0", "previous step (\u2190)", () => goto(current - 1)),
      button("play", "\u25b6 play", "play / pause (space)",
        () => (timer === null ? play() : pause())),
      button("next", "\u25b6", "next step (\u2192)", () => goto(current + 1)),
      button("next-deal", "deal \u00bb", "next deal (Page Down)", () => gotoDeal(1)),
      button("last", "\u21e5", "last step (End)", () => goto(STEPS.length - 1))),
    el("div", { class: "nav-row scrub" }, speed, slider, position),
    el("div", { class: "nav-row" },
      button("next-fault", "next fault", "next fault (F)", () => nextFault()),
      el("span", { class: "turn" },
        button("next-turn", "next turn", "next decision of the chosen seat (N)",
          () => nextTurn(Number(turnSeat.value))), turnSeat),
      modeSelect, el("label", { class: "check" }, hideBox, " hide the result"), jumpNote));

  const tableNode = el("section", { id: "table", "aria-label": "the table" });
  const seatNodes = [];
  const centre = el("div", { id: "centre" });
  for (const [row, seats] of PLACES.entries()) {
    for (const seat of seats) {
      const node = el("div", { class: "seat t" + team(seat), "data-seat": seat });
      seatNodes[seat] = node;
      tableNode.append(node);
    }
    if (row === 0) tableNode.append(centre);
  }
  const nowPanel = el("section", { class: "panel", id: "now" });
  const dealPanel = el("section", { class: "panel", id: "deal" });
  const chartPanel = el("section", { class: "panel chart", id: "chart" });
  const duplicatePanel = el("section", { class: "panel", id: "duplicate" });
  const logPanel = el("section", { class: "panel logs", id: "logs" },
    el("h2", {}, "Bot logs (last lines; text exactly as written)"),
    Array.from({ length: SEATS }, (_, seat) => {
      const lines = DATA.logs[seat] || [];
      return el("details", { "data-log-seat": seat, "data-lines": lines.length },
        el("summary", {}, seatName(seat) + ": " + (lines.length
          ? "last " + lines.length + (lines.length === 1 ? " line" : " lines")
          : "no log lines")),
        el("pre", {}, lines.length ? lines.join("\n") : "(no log found, or it is empty)"));
    }));
  const main = el("main", {},
    el("div", {}, tableNode, nowPanel),
    el("div", {}, dealPanel, chartPanel, duplicatePanel, logPanel));
  document.body.append(header, nav, main);

  // ---- drawing one step ------------------------------------------------------------
  // A step stores only the slots that changed (see _slots in replay.py): the state at a
  // step is every slot as last set at or before it.
  const SLOTS = [];
  STEPS.reduce((shown, step) => {
    const next = Object.assign({}, shown, step.set);
    SLOTS.push(next);
    return next;
  }, {});

  function publicPart(slots, seat) {
    if (seat && slots["pub" + seat]) return resolve(slots["pub" + seat]);
    return {
      deal: slots.deal, dealer: slots.dealer, phase: slots.phase, scores: resolve(slots.scores),
      bids: resolve(slots.bids), bidder: slots.bidder, contract: slots.contract,
      trump: slots.trump, exchanges: resolve(slots.xcounts), tricks: resolve(slots.tricks),
      trick: resolve(slots.trick), sizes: resolve(slots.sizes),
    };
  }

  function stepState(index) {
    const slots = SLOTS[index];
    const seats = Array.from({ length: SEATS }, (_, seat) => seat);
    return {
      step: STEPS[index],
      events: resolve(STEPS[index].events),
      face: {
        hands: seats.map((seat) => resolve(slots["hand" + seat])),
        stock: resolve(slots.stock),
        exchanges: resolve(slots.exchanges),
        pickup: resolve(slots.pickup),
        dealer_discard: resolve(slots.ddiscard),
      },
      views: seats.map((seat) => {
        const own = resolve(slots["own" + seat]);
        return { pub: publicPart(slots, seat),
          own: { hand: own[0], discarded: own[1], received: own[2] } };
      }),
    };
  }

  function draw() {
    const state = stepState(current);
    const step = state.step;
    const viewer = mode === "all" ? null : Number(mode);
    const pub = state.views[viewer === null ? 0 : viewer].pub;
    document.body.dataset.step = String(current);
    document.body.dataset.mode = mode;
    document.body.dataset.deal = String(step.deal);
    document.body.dataset.kind = step.kind;
    document.body.dataset.hide = hideResult ? "1" : "0";
    hideBox.checked = hideResult;
    slider.value = String(current);
    position.textContent = "step " + (current + 1) + (hideResult ? "" : " / " + STEPS.length) +
      " \u00b7 deal " + step.deal;
    header.querySelector("#game-result").textContent = describeResult();
    // The scores after the deals scored by this step: the engine scores a deal within the
    // apply of its last card, which the page shows as three steps (the card, the trick, the
    // deal scored); the new scores belong to the last.
    const scored = scoredBy(step.deal);
    for (let t = 0; t < 3; t++) {
      header.querySelector('[data-team-score="' + t + '"]').textContent =
        String(DATA.chart[scored][t]);
    }
    for (let seat = 0; seat < SEATS; seat++) drawSeat(seat, state, pub, viewer);
    drawCentre(state, pub, viewer);
    drawNow(state, viewer);
    drawDeal(step.deal, pub);
    drawChart(scored);
    drawDuplicate(step.deal);
  }

  function drawSeat(seat, state, pub, viewer) {
    const node = seatNodes[seat];
    node.replaceChildren();
    node.classList.toggle("to-act", state.step.next === seat);
    node.classList.toggle("viewer", viewer === seat);
    const bid = pub.bids.find((b) => b[0] === seat);
    node.append(el("div", { class: "seat-head" },
      el("span", { class: "seat-name" }, GAME.labels[seat]),
      el("span", { class: "seat-sub" }, "seat " + seat + " \u00b7 team " + team(seat)),
      pub.dealer === seat ? el("span", { class: "badge dealer", title: "dealer" }, "D") : null,
      bid ? el("span", { class: "badge", "data-bid": bid[1] },
        bid[1] === 0 ? "pass" : "bid " + bid[1]) : null,
      pub.bidder === seat && pub.trump
        ? el("span", { class: "badge bidder" }, pub.contract + " " + SUITS[pub.trump]) : null));
    const hand = el("div", { class: "hand", "data-hand": seat });
    if (viewer === null) {
      hand.append(cardList(state.face.hands[seat]));
    } else if (viewer === seat) {
      hand.append(cardList(state.views[seat].own.hand));
    } else {
      hand.append(backs(pub.sizes[seat]));
    }
    node.append(hand);
    const exchanged = pub.exchanges.find((x) => x[0] === seat);
    if (viewer === null) {
      const exchange = state.face.exchanges.find((x) => x[0] === seat);
      if (exchange) {
        node.append(el("div", { class: "extra", "data-exchange": seat }, "put down ",
          cardList(exchange[1], "small"), " drew ", cardList(exchange[2], "small")));
      }
      if (seat === pub.dealer && state.face.pickup.length) {
        node.append(el("div", { class: "extra", "data-pickup": seat }, "picked up ",
          cardList(state.face.pickup, "small")));
      }
      if (seat === pub.dealer && state.face.dealer_discard.length) {
        node.append(el("div", { class: "extra", "data-dealer-discard": seat }, "put down ",
          cardList(state.face.dealer_discard, "small")));
      }
    } else if (viewer === seat) {
      const own = state.views[seat].own;
      if (own.discarded.length || own.received.length) {
        node.append(el("div", { class: "extra", "data-own-exchange": seat },
          "put down ", cardList(own.discarded, "small"),
          seat === pub.dealer ? " picked up " : " drew ", cardList(own.received, "small")));
      }
    } else if (exchanged) {
      node.append(el("div", { class: "extra" }, "put down " + exchanged[1] + ", took " +
        exchanged[2]));
    }
  }

  function drawCentre(state, pub, viewer) {
    centre.replaceChildren();
    const line = el("div", { class: "centre-line" });
    if (pub.trump) {
      line.append("Trump ", el("b", { "data-trump": pub.trump }, SUITS[pub.trump] + " " +
        SUIT_NAMES[pub.trump]), " \u00b7 contract " + pub.contract + " by " +
        seatName(pub.bidder));
    } else {
      line.append("Deal " + pub.deal + ", dealer " + seatName(pub.dealer) + ", " + pub.phase);
    }
    if (viewer === null && state.face.stock.length) {
      line.append(" \u00b7 stock " + state.face.stock.length + ": ",
        cardList(state.face.stock, "small"));
    }
    centre.append(line);
    let cards = pub.trick;
    let winner = null;
    let label = "Trick " + (pub.tricks.length + 1);
    if (!cards.length && pub.tricks.length) {
      const last = pub.tricks[pub.tricks.length - 1];
      cards = last[1];
      winner = last[2];
      label = "Trick " + pub.tricks.length + " won by " + seatName(winner);
    }
    if (cards.length) {
      centre.append(el("div", { id: "trick", "data-winner": winner },
        el("div", { class: "centre-line" }, label),
        el("div", { class: "trick" }, cards.map(([seat, card]) =>
          el("div", { class: "play", "data-seat": seat, "data-card": card },
            cardNode(card, seat === winner ? "win" : ""), "seat " + seat)))));
    }
  }

  function eventText(event) {
    switch (event.type) {
      case "DealStarted": return "Deal " + event.deal_number + ": " +
        seatName(event.dealer) + " deals";
      case "HandDealt": return [seatName(event.seat) + " is dealt ", cardList(event.cards)];
      case "BidMade": return seatName(event.seat) +
        (event.amount === 0 ? " passes" : " bids " + event.amount);
      case "DealThrownIn": return "All six passed: deal " + event.deal_number +
        " is thrown in (R4.5)";
      case "TrumpNamed": return seatName(event.seat) + " names " + SUITS[event.suit] + " " +
        SUIT_NAMES[event.suit] + " trump, contract " + event.contract;
      case "Exchanged": return seatName(event.seat) + " puts down " + event.discarded +
        " and takes " + event.received;
      case "OwnExchange": return [seatName(event.seat) + " put down ",
        cardList(event.discarded, "small"), event.received.length ? " and took " : "",
        event.received.length ? cardList(event.received, "small") : ""];
      case "CardPlayed": return [seatName(event.seat) + " plays ", cardNode(event.card, "small")];
      case "TrickWon": return ["Trick " + event.trick_number + " won by " +
        seatName(event.winner) + ", ", teamSpan(team(event.winner))];
      case "DealScored": return "Deal " + event.deal_number + " scored: points won " +
        event.points.join(" / ") + ", scores " + event.scores.join(" / ");
      case "GameEnded": return event.winner === null
        ? "The game ends in a draw after " + event.deals + " deals (R9.4)"
        : ["Game over after " + event.deals + " deals: ", teamSpan(event.winner),
          " wins, " + event.scores.join(" / ")];
      default: return event.type;
    }
  }

  function drawNow(state, viewer) {
    const step = state.step;
    nowPanel.replaceChildren(el("h2", {}, "This step"));
    const shown = state.events.filter((e) => viewer === null || e.told.includes(viewer));
    const list = el("ul", { class: "events" },
      shown.map((e) => el("li", { "data-event": e.type }, eventText(e))));
    if (!shown.length) list.append(el("li", { class: "hidden-note" }, "nothing this seat is told"));
    nowPanel.append(list);
    if (step.decision_index !== null) {
      const decision = step.decision;
      const info = el("div", { id: "decision", "data-seat": step.seat },
        "Decision " + (step.decision_index + 1) + ": " + seatName(step.seat) + ", " + step.kind);
      if (decision && decision.seconds !== null) {
        info.append(el("span", { "data-seconds": decision.seconds },
          " \u00b7 " + (decision.seconds * 1000).toFixed(1) + " ms"));
      }
      nowPanel.append(info);
      if (decision && decision.fallback) {
        const f = decision.fallback;
        nowPanel.append(el("div", { class: "fault", id: "fault" },
          "Fault " + f.fault + ": " + f.reason,
          f.sent ? el("div", {}, "sent: ", el("code", {}, f.sent)) : null,
          el("div", {}, "the referee played the fallback: " + step.action)));
      }
      const legal = legalChoices(step, viewer);
      if (legal) nowPanel.append(legal);
    }
  }

  // The choices the engine gave the deciding seat, computed when the page was built (see
  // _legal_json in replay.py). They are that seat's own knowledge: shown face up, or as
  // that seat saw it.
  function legalChoices(step, viewer) {
    if (step.legal === null || step.legal === undefined) return null;
    const legal = resolve(step.legal);
    const box = el("div", { id: "legal", "data-seat": step.seat });
    if (viewer !== null && viewer !== step.seat) {
      box.append(el("span", { class: "hidden-note" }, "What " + seatName(step.seat) +
        " could choose is its own: not shown as seat " + viewer + " saw it."));
      return box;
    }
    if (legal.may !== undefined) { // a discard: described by its rule, not listed
      box.dataset.count = String(legal.count);
      box.append("Legal discards (" + legal.rule + "): " +
        (legal.min === legal.max ? String(legal.min) : legal.min + " to " + legal.max) +
        " of ", cardList(legal.may, "small"));
      if (legal.must.length) box.append(", including all of ", cardList(legal.must, "small"));
      box.append(" (" + legal.count + (legal.count === 1 ? " discard" : " discards") +
        "); played: " + step.action);
      return box;
    }
    const choices = legal.cards || legal.actions;
    box.dataset.count = String(choices.length);
    box.append("Legal choices (" + choices.length + "): ");
    choices.forEach((choice, i) => {
      const chosen = i === legal.chosen;
      const node = legal.cards ? cardNode(choice, "small" + (chosen ? " chosen" : ""))
        : el("span", { class: "choice" + (chosen ? " chosen" : "") }, choice);
      node.dataset.choice = choice;
      if (chosen) {
        node.dataset.chosen = "true";
        node.title = (node.title ? node.title + ": " : "") + "played";
      }
      box.append(node, " ");
    });
    return box;
  }

  // What the deal has come to so far (never what is still to happen in it).
  function drawDeal(number, pub) {
    const deal = DEALS[number - 1];
    dealPanel.replaceChildren(el("h2", {}, "Deal " + number +
      (hideResult ? "" : " of " + DEALS.length)));
    if (deal.thrown_in && current >= deal.end_step) {
      dealPanel.append(el("p", {}, "All six passed: thrown in, nothing scored (R4.5)."));
      return;
    }
    if (pub.trump) {
      dealPanel.append(el("p", {}, seatName(pub.bidder) + " bid " + pub.contract + " in " +
        SUIT_NAMES[pub.trump] + "."));
    } else {
      dealPanel.append(el("p", {}, "Bidding: " + pub.bids.length + " of 6 have spoken."));
    }
    if (!deal.points) return;
    if (current < deal.scored_step) {
      dealPanel.append(el("p", { class: "hidden-note" }, "Points by category: at the deal's end."));
      return;
    }
    const bidTeam = team(deal.bidder);
    const made = deal.points_won[bidTeam] >= deal.contract;
    dealPanel.append(el("table", { id: "points" },
      el("tr", {}, el("th", {}, "point"), el("th", {}, "won by")),
      CATEGORIES.map(([key, name]) => el("tr", { "data-category": key },
        el("td", {}, name), el("td", { "data-team": deal.points[key] }, teamSpan(deal.points[key])))),
      el("tr", {}, el("td", {}, "card totals (R6.2)"), el("td", {}, deal.game_totals.join(" / "))),
      el("tr", {}, el("td", {}, "points won"), el("td", {}, deal.points_won.join(" / "))),
      el("tr", {}, el("td", {}, "scores after"), el("td", {}, deal.scores.join(" / ")))),
      el("p", {}, "Team " + bidTeam + (made ? " made its contract of " :
        " was set back by its contract of ") + deal.contract + " (R8.1)."));
  }

  const SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The scores up to the current step only, in every mode: the chart never runs ahead of
  // play. Its width is the whole game, or with the result hidden only what has been reached.
  // How many deals are scored by the current step, in deal ``number``: the chart's point
  // i is the scores after i scored deals.
  function scoredBy(number) {
    const deal = DEALS[number - 1];
    return DEALS.slice(0, number - 1).filter((d) => d.points).length +
      (deal.scored_step !== null && current >= deal.scored_step ? 1 : 0);
  }

  function drawChart(scoredBefore) {
    chartPanel.replaceChildren(el("h2", {}, "Scores towards 21, deal by deal"));
    const points = DATA.chart.slice(0, scoredBefore + 1);
    const span = hideResult && current < END_STEP ? Math.max(scoredBefore + 1, 4)
      : DATA.chart.length - 1;
    const width = 360, height = 170, left = 28, right = 8, top = 8, bottom = 20;
    const all = points.flat().concat([21, 0]);
    const lo = Math.min(...all), hi = Math.max(...all);
    const x = (i) => left + (span < 1 ? 0 : i * (width - left - right) / span);
    const y = (v) => top + (hi - v) * (height - top - bottom) / (hi - lo || 1);
    const chart = svg("svg", { viewBox: "0 0 " + width + " " + height, role: "img",
      "aria-label": "scores of the three teams after each scored deal, up to this step",
      "data-chart-points": points.length });
    chart.append(svg("line", { x1: left, x2: width - right, y1: y(21), y2: y(21),
      stroke: "#999", "stroke-dasharray": "4 3" }));
    chart.append(svg("text", { x: 2, y: y(21) + 4, "font-size": 10, fill: "#555" }, "21"));
    chart.append(svg("line", { x1: left, x2: width - right, y1: y(0), y2: y(0), stroke: "#ccc" }));
    chart.append(svg("text", { x: 8, y: y(0) + 4, "font-size": 10, fill: "#555" }, "0"));
    chart.append(svg("line", { x1: x(scoredBefore), x2: x(scoredBefore), y1: top,
      y2: height - bottom, stroke: "#facc15", "stroke-width": 3, "data-chart-now": scoredBefore }));
    const now = points[points.length - 1];
    for (let t = 0; t < 3; t++) {
      const path = points.map((p, i) => (i ? "L" : "M") + x(i).toFixed(1) + " " + y(p[t]).toFixed(1));
      chart.append(svg("path", { d: path.join(" "), fill: "none", stroke: TEAM_COLOURS[t],
        "stroke-width": 2, "data-chart-team": t }));
      chart.append(svg("circle", { cx: x(points.length - 1), cy: y(now[t]), r: 3,
        fill: TEAM_COLOURS[t], "data-chart-score": now[t] }));
    }
    chart.append(svg("text", { x: left, y: height - 4, "font-size": 10, fill: "#555" },
      "scored deals: " + scoredBefore +
      (hideResult && current < END_STEP ? "" : " of " + (DATA.chart.length - 1))));
    chartPanel.append(chart);
  }

  const SIBLINGS = new Map(GAME.siblings.map((s) => [s.game_id, s]));
  function drawDuplicate(number) {
    const deal = DEALS[number - 1];
    duplicatePanel.replaceChildren(el("h2", {}, "The same cards at the other seatings"));
    for (const sibling of GAME.siblings.filter((s) => s.error)) {
      duplicatePanel.append(el("p", { class: "fault" },
        "Game " + sibling.game_id + " does not replay: " + sibling.error));
    }
    if (!deal.siblings.length) {
      duplicatePanel.append(el("p", { class: "hidden-note" },
        "No other seating of this game seed reached deal " + number + "."));
      return;
    }
    const row = (name, labels, d, id) => el("tr", { "data-sibling": id },
      el("td", { class: "game" }, name),
      [0, 1, 2].map((t) => el("td", {}, el("span", { class: "tc" + t }, labels[t]),
        el("br"), d.points_won ? d.points_won[t] + " pts" : (d.thrown_in ? "thrown in" : "\u2013"))),
      el("td", {}, d.pending ? "at the deal's end" : d.trump
        ? "seat " + d.bidder + " bid " + d.contract + " " + SUITS[d.trump]
        : (d.thrown_in ? "all passed" : "unfinished")));
    const ended = deal.end_step !== null && current >= deal.end_step;
    // With the result hidden, how the same cards went elsewhere waits for this deal's end.
    const shown = (d) => (ended || !hideResult ? d : { pending: true });
    duplicatePanel.append(el("table", {},
      el("tr", {}, el("th", {}, "game"), [0, 1, 2].map((t) =>
        el("th", {}, "cards of seats " + t + " & " + (t + 3))), el("th", {}, "bid")),
      row("this game", GAME.labels, ended ? deal : { pending: true }, "this"),
      deal.siblings.map((s) =>
        row("game " + s.game_id, SIBLINGS.get(s.game_id).labels, shown(s), s.game_id))));
  }

  // ---- moving -------------------------------------------------------------------------
  function goto(index) {
    const target = Math.max(0, Math.min(STEPS.length - 1, Math.trunc(Number(index)) || 0));
    if (target === current && document.body.dataset.step !== undefined) return;
    current = target;
    jumpNote.textContent = "";
    draw();
  }
  function gotoDeal(direction) {
    const number = STEPS[current].deal;
    const start = DEALS[number - 1].first_step;
    if (direction < 0) {
      goto(current > start ? start : (number > 1 ? DEALS[number - 2].first_step : 0));
    } else {
      goto(number < DEALS.length ? DEALS[number].first_step : STEPS.length - 1);
    }
  }
  // The next step after this one that satisfies ``test``; the note says where it landed.
  function jump(test, what) {
    for (let index = current + 1; index < STEPS.length; index++) {
      if (test(STEPS[index])) {
        goto(index);
        jumpNote.textContent = what + ": decision " + (STEPS[index].decision_index + 1);
        return index;
      }
    }
    jumpNote.textContent = "no " + what + " after this step";
    return -1;
  }
  const isFault = (s) => Boolean(s.decision && s.decision.fallback);
  function nextFault() {
    return jump(isFault, "fault");
  }
  function nextTurn(seat) {
    turnSeat.value = String(seat);
    return jump((s) => s.decision_index !== null && s.seat === seat, "turn of seat " + seat);
  }
  function play() {
    if (current >= STEPS.length - 1) goto(0);
    buttons.play.textContent = "\u2016 pause";
    timer = setInterval(() => {
      if (current >= STEPS.length - 1) pause(); else goto(current + 1);
    }, Number(speed.value));
  }
  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    buttons.play.textContent = "\u25b6 play";
  }
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target instanceof HTMLSelectElement) return;
    if (target instanceof HTMLInputElement && target.type !== "range") return;
    if (target instanceof HTMLButtonElement && (event.key === " " || event.key === "Enter")) return;
    const keys = {
      ArrowLeft: () => goto(current - 1), ArrowRight: () => goto(current + 1),
      Home: () => goto(0), End: () => goto(STEPS.length - 1),
      PageUp: () => gotoDeal(-1), PageDown: () => gotoDeal(1),
      " ": () => (timer === null ? play() : pause()),
      f: () => nextFault(), F: () => nextFault(),
      n: () => nextTurn(Number(turnSeat.value)), N: () => nextTurn(Number(turnSeat.value)),
    };
    const action = keys[event.key];
    if (action) { event.preventDefault(); action(); }
  });

  // A read-only hook for tests and the curious: where the page is and what it draws from.
  window.replay = Object.freeze({
    count: STEPS.length,
    step: () => current,
    goto: (index) => goto(index),
    gotoDecision: (k) => {
      const index = STEPS.findIndex((s) => s.decision_index === k);
      if (index >= 0) goto(index);
      return index;
    },
    setMode: (value) => { modeSelect.value = String(value); mode = modeSelect.value; draw(); },
    setHideResult: (value) => { hideResult = Boolean(value); draw(); },
    nextFault: () => nextFault(),
    nextTurn: (seat) => nextTurn(Number(seat)),
    state: () => ({ step: current, mode: mode, deal: STEPS[current].deal,
      kind: STEPS[current].kind, decision: STEPS[current].decision_index ?? null,
      seat: STEPS[current].seat, fault: isFault(STEPS[current]), hideResult: hideResult }),
  });
  draw();
})();
