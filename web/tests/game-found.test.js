// The game page's faults found by playing (issue 23), each through a real server in
// Chromium: the rating change shown whole, the promotion picker of a click, the draw
// buttons that say why they are off, the draw offered with a move, the countdown to a
// claim against an absent opponent, the last move shown after a reload and to a late
// spectator, and a rematch after the finished game has left the server's memory.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { clickMove, colorOf, guest, launch, register, shot, startServer, toastAfter, waitMoves } from './lib.js';

let srv;
let browser;
let alice;
let bob;

// A finished game leaves memory 2 s after its end (60 s by default), and a blitz player
// may be away 3 s before the opponent may claim: the tests wait seconds, not minutes.
before(async () => {
  srv = await startServer({ DAMKA_GAME__LINGER_AFTER_END_SECS: '2', DAMKA_GAME__DISCONNECT_BLITZ_SECS: '3' });
  browser = await launch();
  alice = await guest(browser, srv.url, 'Alice');
  bob = await guest(browser, srv.url, 'Bob');
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await srv.stop();
});

const gameId = (page) => new URL(page.url()).pathname.split('/').pop();

/** `from` challenges `to` through the create form; `to` accepts. Both end on the game page. */
async function challenge(from, to, variant, { color = 'white', fen = '', tc = '5+3', rated = false } = {}) {
  await from.click('.brand');
  await to.click('.brand');
  await from.waitForSelector('#create');
  await from.selectOption('#create select[name=variant]', variant);
  await from.selectOption('#create select[name=time_control]', tc);
  await from.selectOption('#create select[name=color]', color);
  if (rated) await from.check('#create #rated');
  await from.fill('#create input[name=opponent]', to.user.id);
  await from.fill('#create input[name=fen]', fen);
  await from.click('#create button[type=submit]');
  await to.click('#challenges button:text("Accept")');
  await from.waitForSelector(`#game[data-game] #board svg[data-variant="${variant}"]`);
  await to.waitForSelector(`#game[data-game] #board svg[data-variant="${variant}"]`);
  assert.equal(gameId(from), gameId(to));
  return gameId(from);
}

async function over(page) {
  await page.waitForSelector('#status.over', { timeout: 10000 });
  return page.textContent('#status');
}

async function resign(page) {
  await page.click('#resign');
  if (!(await page.$('#status.over'))) await page.click('#resign');
  await over(page);
}

/** Is the element wholly visible: inside the viewport and every clipping box around it,
 * and not cut by its own ellipsis? */
function wholeOnScreen(page, selector) {
  return page.$eval(selector, (e) => {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || e.scrollWidth > e.clientWidth + 1) return `cut: ${e.scrollWidth} > ${e.clientWidth}`;
    if (r.left < 0 || r.right > document.documentElement.clientWidth) return `off screen: ${r.left}-${r.right}`;
    for (let a = e.parentElement; a; a = a.parentElement) {
      if (getComputedStyle(a).overflowX === 'visible') continue;
      const b = a.getBoundingClientRect();
      if (r.left < b.left - 0.5 || r.right > b.right + 0.5) return `clipped by ${a.className || a.tagName}: ${r.left}-${r.right} in ${b.left}-${b.right}`;
    }
    return null;
  });
}

test('a rated game\'s rating change shows whole beside long names, on a desktop and on a 375 px phone', async () => {
  const a = await register(browser, srv.url, 'Maximilianus_Longus', 'correct horse battery');
  const b = await register(browser, srv.url, 'Bartholomaeus_Lang', 'staple battery horse');
  await challenge(a, b, 'russian', { rated: true });
  await clickMove(a, 'c3-d4');
  await waitMoves(b, 1);
  await clickMove(b, 'f6-g5');
  await waitMoves(a, 2);
  await resign(b);
  for (const p of [a, b]) {
    await p.waitForSelector('#player-black [data-rating-diff]');
    for (const viewport of [{ width: 1200, height: 860 }, { width: 375, height: 667 }]) {
      await p.setViewportSize(viewport);
      for (const c of ['white', 'black']) {
        assert.equal(await wholeOnScreen(p, `#player-${c} [data-rating-diff]`), null, `${c}'s change at ${viewport.width} px`);
        assert.match(await p.textContent(`#player-${c} [data-rating-diff]`), /^[+-]\d+$/);
      }
    }
    await shot(p, 'found-rating-change-phone');
  }
  await a.context().close();
  await b.context().close();
});

test('chess: a pawn promoted by clicks asks for its piece (keyboard too; Escape cancels); a typed move without its piece asks as well', async () => {
  await challenge(alice, bob, 'chess', { fen: '8/4P3/8/8/8/8/k7/7K w - - 0 1' });
  // Click e7, then e8: the picker opens and stays open (the click's own release does not choose).
  await clickMove(alice, 'e7e8', true);
  await alice.waitForSelector('#board .promo-choice');
  await alice.waitForTimeout(300);
  assert.equal(await alice.$$eval('#moves .mv', (m) => m.length), 0, 'nothing played yet');
  assert.deepEqual(await alice.$$eval('#board .promo-choice', (c) => c.map((x) => x.dataset.move)), ['e7e8q', 'e7e8r', 'e7e8b', 'e7e8n']);
  // The picker has the focus; Escape closes it and nothing is played.
  assert.equal(await alice.evaluate(() => document.activeElement && document.activeElement.dataset.move), 'e7e8q');
  await alice.keyboard.press('Escape');
  await alice.waitForFunction(() => !document.querySelector('#board .promo-choice'));
  // Again, and the keyboard picks a knight: arrow down to it, Enter.
  await clickMove(alice, 'e7e8', true);
  await alice.waitForSelector('#board .promo-choice');
  for (let i = 0; i < 3; i++) await alice.keyboard.press('ArrowDown');
  assert.equal(await alice.evaluate(() => document.activeElement.dataset.move), 'e7e8n');
  await alice.keyboard.press('Enter');
  await waitMoves(bob, 1);
  assert.equal(await bob.textContent('#moves .mv'), 'e8=N');
  assert.ok(await bob.$('#board .pc.w[data-piece="e8"]'));
  // A knight and a king cannot mate a lone king: the game ends there.
  assert.match(await over(bob), /insufficient/i);

  // A click on the rook in the picker plays a rook.
  await challenge(alice, bob, 'chess', { fen: '8/4P3/8/8/8/8/k7/7K w - - 0 1' });
  await clickMove(alice, 'e7e8', true);
  await alice.click('#board .promo-choice[data-move="e7e8r"]');
  await waitMoves(bob, 1);
  assert.equal(await bob.textContent('#moves .mv'), 'e8=R');
  await resign(alice);

  // Typed: "e7e8" matches four moves, so the picker asks; "e8=B" is played as typed.
  await challenge(alice, bob, 'chess', { fen: '8/4P3/8/8/8/8/k7/7K w - - 0 1' });
  await alice.fill('#move-input', 'e7e8');
  await alice.press('#move-input', 'Enter');
  await alice.waitForSelector('#board .promo-choice');
  await alice.keyboard.press('ArrowDown');
  await alice.keyboard.press('Enter');
  await waitMoves(bob, 1);
  assert.equal(await bob.textContent('#moves .mv'), 'e8=R');
  await resign(alice);
});

test('the last move is marked after a reload and for a spectator who comes late', async () => {
  const id = await challenge(alice, bob, 'russian');
  await clickMove(alice, 'c3-d4');
  await waitMoves(bob, 1);
  await clickMove(bob, 'f6-g5');
  await waitMoves(alice, 2);
  const marked = (p) => p.$$eval('#board .sq.last', (s) => s.map((x) => x.dataset.square).sort());
  assert.deepEqual(await marked(alice), ['f6', 'g5']);
  await alice.reload();
  await alice.waitForSelector('#board .pc');
  await waitMoves(alice, 2);
  assert.deepEqual(await marked(alice), ['f6', 'g5'], 'after a reload');
  const carol = await guest(browser, srv.url, 'Carol');
  await carol.goto(`${srv.url}/game/${id}`);
  await waitMoves(carol, 2);
  assert.deepEqual(await marked(carol), ['f6', 'g5'], 'for a late spectator');
  await carol.context().close();
  await resign(alice);
});

test('a rematch offered and accepted after the finished game has left the server\'s memory', async () => {
  const first = await challenge(alice, bob, 'chess');
  await resign(bob);
  await over(alice);
  // The game leaves memory 2 s after its end here (linger_after_end_secs).
  await alice.waitForTimeout(4000);
  await alice.click('#rematch');
  await bob.waitForSelector('#offers button:text("Accept")');
  await bob.click('#offers button:text("Accept")');
  for (const p of [alice, bob]) {
    await p.waitForFunction((old) => location.pathname !== '/game/' + old && document.querySelector('#board svg'), first);
  }
  assert.equal(gameId(alice), gameId(bob));
  assert.equal(await colorOf(alice), 'black');
  assert.equal(await colorOf(bob), 'white');
  await bob.click('#abort');
  await over(alice);

  // Offered while the game was in memory, accepted after it left: the acceptance goes
  // as a challenge, which the page that offered accepts by itself.
  const second = gameId(alice);
  await alice.click('#rematch');
  await bob.waitForSelector('#offers button:text("Accept")');
  await alice.waitForTimeout(4000);
  await bob.click('#offers button:text("Accept")');
  for (const p of [alice, bob]) {
    await p.waitForFunction((old) => location.pathname !== '/game/' + old && document.querySelector('#board svg'), second);
  }
  assert.equal(gameId(alice), gameId(bob));
  assert.equal(await colorOf(alice), 'white');
  await alice.click('#abort');
  await over(bob);
});

/** The reason a draw button is off: its title, and the text its aria-describedby names. */
async function offReason(page, id) {
  // One evaluation (not an element handle, then a function on it): a redraw between the
  // two would leave the handle on a button no longer in the page.
  return page.evaluate((sel) => {
    const b = document.querySelector(sel);
    if (!b.disabled) return null;
    const why = document.getElementById(b.getAttribute('aria-describedby'));
    return why && why.textContent === b.title ? b.title : `title ${b.title} / described by ${why && why.textContent}`;
  }, `#${id}`);
}

test('draughts: "Offer draw" is off with its reason on one\'s turn, and a draw goes with the move; after a declined offer it is off with the bar (IDF s.2 9.2) before any click', async () => {
  // Two men each: few enough pieces for an offer in a blitz game (IDF s.2 22.5).
  await challenge(alice, bob, 'russian', { fen: 'W:Wc3,e3:Bf6,h6' });
  for (const p of [alice, bob]) assert.match(await offReason(p, 'offer-draw'), /with one’s own move/, 'before one\'s first move');
  assert.equal(await offReason(alice, 'offer-with-move'), null, 'allowed: the box is on');
  assert.equal(await offReason(alice, 'claim-draw'), null);
  // White ticks "offer a draw with my move" and moves: Black gets the move and the offer.
  await alice.check('#offer-with-move');
  await clickMove(alice, 'c3-d4');
  await waitMoves(bob, 1);
  await bob.waitForSelector('#draw-accept');
  await alice.waitForFunction(() => document.querySelector('#offers').textContent.includes('White offers a draw'));
  assert.match(await offReason(alice, 'offer-draw'), /stands until your opponent answers/);
  assert.equal(await alice.$('#offer-with-move'), null, 'not one\'s turn: nothing to tick');
  await bob.click('#draw-decline');
  await alice.waitForFunction(() => !document.querySelector('#offers').textContent.includes('offers a draw'));
  await clickMove(bob, 'f6-g5');
  await waitMoves(alice, 2);
  await clickMove(alice, 'e3-f4');
  await waitMoves(bob, 3);
  await waitMoves(alice, 3);
  await alice.waitForSelector('#status:text("Black to move")');
  // Right after his move White may offer by the article, but a declined offer bars him
  // (IDF s.2 9.2): the server says so with the move's ack, and the button is off with
  // the reason before any click.
  await alice.waitForSelector('#offer-draw[disabled]');
  assert.match(await offReason(alice, 'offer-draw'), /^Your offer was declined: you may offer again once your opponent has offered \(IDF s\.2 9\.2\)\.$/);
  await shot(alice, 'found-offer-draw-off');
  await resign(alice);
});

test('draughts: the offer controls say before any click why the server would refuse (too many pieces, IDF s.2 22.5)', async () => {
  // Twelve men each in an unrecorded game: no draw may be agreed (at most 6 each).
  await challenge(alice, bob, 'russian');
  const why = /^In a game without a move record a draw may be agreed only with at most 6 pieces each \(IDF s\.2 22\.5\)\.$/;
  // White, to move: the box, and the button with it, from White's game_start.
  await alice.waitForSelector('#offer-with-move[disabled]');
  assert.match(await offReason(alice, 'offer-with-move'), why);
  assert.match(await offReason(alice, 'offer-draw'), why);
  await clickMove(alice, 'c3-d4');
  await waitMoves(alice, 1);
  // White, right after his move: the button, told by the move's ack.
  await alice.waitForFunction(() => /6 pieces/.test(document.querySelector('#offer-draw').title));
  assert.match(await offReason(alice, 'offer-draw'), why);
  assert.equal(await alice.$('#offer-with-move'), null);
  // Black, put on the move: the box, told by his copy of the move.
  await waitMoves(bob, 1);
  await bob.waitForSelector('#offer-with-move[disabled]');
  assert.match(await offReason(bob, 'offer-with-move'), why);
  await shot(bob, 'found-offer-with-move-off');
  await resign(alice);
});

test('chess: a refused claim keeps "Claim draw" off with the reason until the position changes', async () => {
  await challenge(alice, bob, 'chess');
  assert.equal(await offReason(alice, 'claim-draw'), null);
  const refusal = await toastAfter(alice, () => alice.click('#claim-draw'));
  assert.match(refusal, /^The claim is refused\. \(FIDE 9\.2/);
  await alice.waitForSelector('#claim-draw[disabled]');
  assert.equal(await offReason(alice, 'claim-draw'), refusal);
  // The refused claim stands as an offer (FIDE 9.1.2.3): one offer at a time.
  await alice.waitForSelector('#offer-draw[disabled]');
  assert.match(await offReason(alice, 'offer-draw'), /stands until your opponent answers/);
  await bob.click('#draw-decline');
  await clickMove(alice, 'e2e4', true);
  await waitMoves(alice, 1);
  await alice.waitForSelector('#claim-draw:not([disabled])');
  await resign(alice);
});

test('the opponent left: a countdown until the game may be claimed, then the claim', async () => {
  const dan = await guest(browser, srv.url, 'Dan');
  await challenge(alice, dan, 'russian', { tc: '3+0' });
  await clickMove(alice, 'c3-d4');
  await waitMoves(dan, 1);
  await clickMove(dan, 'f6-g5');
  await waitMoves(alice, 2);
  await dan.context().close();
  // Blitz players may be away 3 s here (disconnect_blitz_secs).
  await alice.waitForSelector('#claim-countdown');
  assert.match(await alice.textContent('#claim-countdown'), /^Your opponent has left: you may claim the game in [1-3] seconds?$/);
  await shot(alice, 'found-claim-countdown');
  // A reload learns from the game's state that Dan has gone, and since when.
  await alice.reload();
  await alice.waitForSelector('#claim-countdown, #claim-win');
  await alice.waitForSelector('#claim-win', { timeout: 8000 });
  assert.equal(await alice.$('#claim-countdown'), null);
  await alice.click('#claim-win');
  assert.match(await over(alice), /White wins/);
});

test('a crowned man is not counted as captured; 10x10 square numbers sit in a corner over the pieces; move numbers from 10 show whole', async () => {
  await challenge(alice, bob, 'russian', { fen: 'W:Wc7,a1:Bh8,h6' });
  await clickMove(alice, 'c7-d8');
  await waitMoves(bob, 1);
  assert.ok(await bob.$('#board .pc.w[data-piece="d8"] .crown'), 'crowned');
  for (const p of [alice, bob]) {
    for (const c of ['white', 'black']) assert.equal(await p.textContent(`#player-${c} .lost`), '', `${c} took nothing`);
  }
  await resign(alice);

  await challenge(alice, bob, 'international');
  // Square 46's number: in the top left corner of its square, drawn after its man.
  const num = await alice.evaluate(() => {
    const sq = document.querySelector('#board rect[data-square="46"]').getBoundingClientRect();
    const man = document.querySelector('#board [data-piece="46"]');
    const n = document.querySelector('#board text[data-num="46"]');
    const r = n.getBoundingClientRect();
    return {
      over: !!(man.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING),
      corner: r.left >= sq.left - 0.5 && r.right <= sq.left + sq.width / 2 && r.top >= sq.top - 0.5 && r.bottom <= sq.top + sq.height / 2,
    };
  });
  assert.deepEqual(num, { over: true, corner: true });
  await resign(alice);
  // Twenty moves: the numbers 10. and on are not clipped by the list's margin.
  await challenge(alice, bob, 'chess');
  const tour = ['g1f3', 'g8f6', 'b1c3', 'b8c6', 'f3g1', 'f6g8', 'c3b1', 'c6b8'];
  const line = [...tour, ...tour, ...tour].slice(0, 20);
  for (const [i, mv] of line.entries()) {
    const page = i % 2 === 0 ? alice : bob;
    await page.fill('#move-input', mv);
    await page.press('#move-input', 'Enter');
    await waitMoves(alice, i + 1);
  }
  const clipped = await alice.$$eval('#moves li', (lis) => {
    const ol = lis[0].parentElement;
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = getComputedStyle(ol).font;
    return lis.length >= 10 && parseFloat(getComputedStyle(ol).paddingLeft) < ctx.measureText(`${lis.length}. `).width;
  });
  assert.equal(clipped, false);
  await shot(alice, 'found-move-numbers');
  await resign(alice);
});
