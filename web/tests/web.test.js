// The browser client end to end: a real damka server, Debian's Chromium, real pages.
// Screenshots of every board go to artefacts/ (look at them).

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { artefacts, clickMove, colorOf, guest, launch, register, shot, signedIn, startServer, toastAfter, waitMoves } from './lib.js';

let srv;
let browser;
let alice;
let bob;

before(async () => {
  srv = await startServer();
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
async function challenge(from, to, variant, { color = 'white', fen = '', tc = '5+3' } = {}) {
  await from.click('.brand');
  await to.click('.brand');
  await from.waitForSelector('#create');
  await from.selectOption('#create select[name=variant]', variant);
  await from.selectOption('#create select[name=time_control]', tc);
  await from.selectOption('#create select[name=color]', color);
  await from.fill('#create input[name=opponent]', to.user.id);
  await from.fill('#create input[name=fen]', fen);
  await from.click('#create button[type=submit]');
  await to.click('#challenges button:text("Accept")');
  await from.waitForSelector(`#game[data-game] #board svg[data-variant="${variant}"]`);
  await to.waitForSelector(`#game[data-game] #board svg[data-variant="${variant}"]`);
  assert.equal(gameId(from), gameId(to));
  return gameId(from);
}

async function statusOf(page) {
  await page.waitForSelector('#status.over', { timeout: 10000 });
  return page.textContent('#status');
}

test('two players pair through a pool and play Russian to the end, a multi-capture by clicks; a spectator watches live', async () => {
  await alice.click('[data-pool="russian 3+2"]');
  await alice.waitForSelector('#pool-state button');
  await bob.click('[data-pool="russian 3+2"]');
  await alice.waitForSelector('#board svg[data-variant="russian"]');
  await bob.waitForSelector('#board svg[data-variant="russian"]');
  const id = gameId(alice);
  assert.equal(gameId(bob), id);

  const carol = await guest(browser, srv.url, 'Carol');
  await carol.goto(`${srv.url}/game/${id}`);
  await carol.waitForSelector('#board svg[data-variant="russian"]');
  await alice.waitForFunction(() => document.querySelector('#spectators').textContent.includes('1'));

  const white = (await colorOf(alice)) === 'white' ? alice : bob;
  const black = white === alice ? bob : alice;
  assert.equal(await colorOf(black), 'black');

  const line = ['e3-d4', 'f6-e5', 'd4:f6', 'g7:e5', 'a3-b4', 'd6-c5'];
  for (const [i, mv] of line.entries()) {
    await clickMove(i % 2 === 0 ? white : black, mv);
    for (const p of [white, black, carol]) await waitMoves(p, i + 1);
  }
  // The double capture, square by square: after b4 only d6 is offered, after d6 only f4.
  await white.click('#board [data-square="b4"]');
  assert.deepEqual(await white.$$eval('#board [data-target]', (t) => t.map((x) => x.dataset.target)), ['d6', 'f4']);
  await white.click('#board [data-square="d6"]');
  assert.equal(await white.$$eval('#board .sq.chosen', (t) => t.length), 2, 'b4 and d6 chosen, nothing sent yet');
  assert.equal(await white.$$eval('#moves .mv', (m) => m.length), 6);
  await white.click('#board [data-square="f4"]');
  for (const p of [white, black, carol]) await waitMoves(p, 7);
  const seen = await carol.$$eval('#moves .mv', (m) => m.map((x) => x.textContent));
  assert.deepEqual(seen, [...line, 'b4:d6:f4']);
  // The spectator sees the two captured men marked and gone.
  assert.equal(await carol.$$eval('#board .taken', (t) => t.length), 2);
  assert.equal(await carol.$$eval('#board [data-piece="c5"], #board [data-piece="e5"]', (t) => t.length), 0);
  await shot(carol, 'russian-multi-capture-spectator');

  // Black resigns (the button asks twice); all three see the same result.
  await black.click('#resign');
  await black.click('#resign');
  const results = await Promise.all([white, black, carol].map(statusOf));
  assert.equal(new Set(results).size, 1, results.join(' | '));
  assert.match(results[0], /2-0 · White wins · resignation/);
  await shot(white, 'russian-finished-white');
  await shot(carol, 'russian-finished-spectator');
  // The clocks stopped and read the same for everyone.
  const clocks = await Promise.all([white, carol].map((p) => p.textContent('#clock-white')));
  assert.equal(clocks[0], clocks[1]);
  await carol.context().close();
});

test('registered players: a rated pool game moves both ratings; profile, rating chart, replay and PDN', async () => {
  // A taken name and a bad password are refused with the server's message.
  const dana = await register(browser, srv.url, 'dana', 'correct horse battery');
  const erin = await register(browser, srv.url, 'erin', 'staple battery horse');
  const again = await browser.newPage();
  await again.goto(srv.url + '/');
  await again.fill('#username', 'Dana');
  await again.fill('#password', 'whatever whatever');
  await again.click('#register');
  await again.waitForFunction(() => document.querySelector('.signin .error').textContent.length > 0);
  assert.match(await again.textContent('.signin .error'), /taken/i);
  await again.fill('#username', 'dana');
  await again.fill('#password', 'wrong password!');
  await again.click('#login');
  await again.waitForFunction(() => /password/i.test(document.querySelector('.signin .error').textContent));
  await again.fill('#password', 'correct horse battery');
  await again.click('#login');
  await signedIn(again, 'dana');
  await again.context().close();

  for (const p of [dana, erin]) await p.check('#pool-rated');
  await dana.click('[data-pool="russian 3+2"]');
  await dana.waitForSelector('#pool-state button');
  await erin.click('[data-pool="russian 3+2"]');
  await dana.waitForSelector('#board svg[data-variant="russian"]');
  await erin.waitForSelector('#board svg[data-variant="russian"]');
  assert.match(await dana.textContent('#variant'), /rated/);
  const white = (await colorOf(dana)) === 'white' ? dana : erin;
  const black = white === dana ? erin : dana;
  await clickMove(white, 'c3-d4');
  await waitMoves(black, 1);
  await clickMove(black, 'f6-g5');
  await waitMoves(white, 2);
  await black.click('#resign');
  await black.click('#resign');
  assert.match(await statusOf(white), /2-0 · White wins · resignation/);
  // The rating changes arrive with the result.
  await white.waitForSelector('#player-white [data-rating-diff]');
  const up = Number(await white.getAttribute('#player-white [data-rating-diff]', 'data-rating-diff'));
  // The rating change is never cut by the name's ellipsis: no box between it and its
  // player's row hides what overflows (a long name used to push "+162" out of sight).
  for (const c of ['white', 'black']) {
    const clipped = await white.$eval(`#player-${c} [data-rating-diff]`, (e) => {
      for (let a = e.parentElement; a && !a.classList.contains('player'); a = a.parentElement) {
        if (getComputedStyle(a).overflow === 'hidden') return a.className;
      }
      return null;
    });
    assert.equal(clipped, null, `${c}'s rating change sits in a clipping box`);
  }
  const down = Number(await white.getAttribute('#player-black [data-rating-diff]', 'data-rating-diff'));
  assert.ok(up > 0 && down < 0, `${up} ${down}`);
  const id = gameId(white);

  // The winner's profile: the perf's rating, its history chart, the game listed.
  const name = white === dana ? 'dana' : 'erin';
  await white.click('#user a.name');
  await white.waitForSelector('#profile .perfs');
  // The perf in words (its id on the button).
  assert.equal(await white.textContent('#profile .perfs [data-perf="russian-blitz"]'), 'Russian draughts · blitz');
  await white.waitForSelector('#profile #games a[href="/game/' + id + '"]');
  await white.waitForSelector("#chart svg.chart circle");
  await shot(white, 'profile');
  const pdn = await (await fetch(`${srv.url}/api/games/${id}.pdn`)).text();
  assert.match(pdn, /\[GameType "25"\]/);
  assert.ok(await white.$(`#profile #games a[href="/api/games/${id}.pdn"]`), 'a PDN download link');
  assert.equal(new URL(white.url()).pathname, '/@/' + name);

  // The replay viewer steps through the archived game.
  await white.click('#profile #games a[href="/game/' + id + '"]');
  await white.waitForSelector('#replay');
  await white.click('#replay');
  await white.waitForSelector('button[aria-label="Previous move"]');
  await white.click('button[aria-label="First move"]');
  assert.equal(await white.$$eval('#board .pc', (p) => p.length), 24);
  await white.click('button[aria-label="Next move"]');
  assert.ok(await white.$('#board .pc.w[data-piece="d4"]'));
  assert.ok(await white.$('#board .pc.b[data-piece="f6"]'));
  await white.click('button[aria-label="Next move"]');
  assert.ok(await white.$('#board .pc.b[data-piece="g5"]'));
  // Draughts results in the IDF's form, in the replay and the profile's list alike.
  assert.match(await white.textContent('#status'), /^2-0 /);
  // Move numbers up to 100 fit in the list's margin (numbers from 10 on were clipped).
  const fits = await white.$eval('#moves', (ol) => {
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = getComputedStyle(ol).font;
    return parseFloat(getComputedStyle(ol).paddingLeft) >= ctx.measureText('100. ').width;
  });
  assert.ok(fits, 'the move numbers fit');
  await shot(white, 'replay');
  await dana.context().close();
  await erin.context().close();
});

test('every variant starts on its own board, named in its own notation', async () => {
  const expect = {
    russian: [32, 'c3'], brazilian: [32, 'c3'], pool: [32, 'c3'], czech: [32, 'c3'],
    portuguese: [32, '1'], italian: [32, '1'], international: [50, '1'], frisian: [50, '1'],
    chess: [64, 'e4'], chess960: [64, 'e4'],
  };
  for (const [variant, [squares, sample]] of Object.entries(expect)) {
    await challenge(alice, bob, variant);
    const board = await alice.$('#board svg');
    assert.equal(await alice.$$eval('#board rect[data-square]', (r) => r.length), squares, variant);
    assert.ok(await alice.$(`#board [data-square="${sample}"]`), `${variant} names a square ${sample}`);
    if (variant === 'portuguese' || variant === 'italian') {
      // The mirrored board: the corner at each player's right is a playing square.
      assert.ok(await alice.$('#board rect[data-square][x="7"][y="7"]'), `${variant} is mirrored`);
    } else if (!variant.startsWith('chess')) {
      assert.ok(await alice.$(`#board rect[data-square][x="0"][y="${squares === 50 ? 9 : 7}"]`), `${variant}: dark corner at the left`);
    }
    await board.screenshot({ path: path.join(artefacts, `start-${variant}.png`) });
    await alice.click('#abort');
    await statusOf(bob);
  }
});

test('International: a 10x10 board with squares numbered 1 to 50', async () => {
  await challenge(alice, bob, 'international');
  const nums = await alice.$$eval('#board text.num', (t) => t.map((x) => Number(x.textContent)));
  assert.deepEqual([...nums].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1));
  // Square 1 at the top left (second column) and 50 at the bottom right, from White's side.
  assert.ok(await alice.$('#board rect[data-square="1"][x="1"][y="0"]'));
  assert.ok(await alice.$('#board rect[data-square="50"][x="8"][y="9"]'));
  // The men of White stand on 31-50.
  const white = await alice.$$eval('#board .pc.w', (p) => p.map((x) => Number(x.dataset.piece)).sort((a, b) => a - b));
  assert.deepEqual(white, Array.from({ length: 20 }, (_, i) => i + 31));
  // The square numbers are painted over the pieces (they hid under them): square 46's
  // number comes after its man in the drawing order.
  const over = await alice.evaluate(() => {
    const man = document.querySelector('#board [data-piece="46"]');
    const num = document.querySelector('#board text[data-num="46"]');
    return !!(man && num && (man.compareDocumentPosition(num) & Node.DOCUMENT_POSITION_FOLLOWING));
  });
  assert.ok(over, 'the number of an occupied square shows over its piece');
  await clickMove(alice, '32-28');
  await waitMoves(bob, 1);
  assert.equal(await bob.textContent('#moves .mv'), '32-28');
  await shot(alice, 'international-game');
  await alice.click('#resign');
  await alice.click('#resign');
  await statusOf(bob);
});

test('Frisian: a man captures along a row', async () => {
  await challenge(alice, bob, 'frisian', { fen: 'W:W28,45:B29,3' });
  await alice.click('#board [data-square="28"]');
  assert.deepEqual(await alice.$$eval('#board [data-target]', (t) => t.map((x) => x.dataset.target)), ['30']);
  await alice.click('#board [data-square="30"]');
  await waitMoves(bob, 1);
  assert.equal(await bob.textContent('#moves .mv'), '28x30');
  assert.equal(await bob.$$eval('#board [data-piece="29"]', (p) => p.length), 0, 'the man on 29 is taken');
  assert.ok(await bob.$('#board .pc.w[data-piece="30"]'));
  await shot(bob, 'frisian-row-capture');
  await alice.click('#resign');
  await alice.click('#resign');
  await statusOf(bob);
});

/** Plays the first movable piece's first target, square by square, until the move
 * list grows past `before` moves. */
async function playAnyMove(page, before) {
  await page.waitForSelector('#board .pc.movable', { timeout: 10000 });
  const from = await page.getAttribute('#board .pc.movable', 'data-piece');
  await page.click(`#board [data-square="${from}"]`);
  for (let i = 0; i < 40; i++) {
    if ((await page.$$eval('#moves .mv', (m) => m.length)) > before) return;
    const target = await page.$('#board rect[aria-label$=", move here"]');
    if (target) await target.click();
    else await page.waitForTimeout(100);
  }
  assert.fail('the move did not complete');
}

test('play the computer from the lobby: Russian at level 1, the computer answers every move', async () => {
  await alice.click('.brand');
  await alice.waitForSelector('#computer');
  await alice.selectOption('#computer select[name=variant]', 'russian');
  await alice.selectOption('#computer select[name=level]', '1');
  await alice.selectOption('#computer select[name=color]', 'white');
  await alice.click('#computer button[type=submit]');
  await alice.waitForSelector('#game[data-game] #board svg[data-variant="russian"]');
  assert.match(await alice.textContent('#player-black'), /Computer level 1/);
  // The tab's title says whose turn it is, for a player in another tab.
  await alice.waitForFunction(() => document.title.startsWith('● Your turn · Computer level 1'));
  for (let i = 0; i < 3; i++) {
    await playAnyMove(alice, 2 * i);
    await waitMoves(alice, 2 * i + 2);
  }
  await shot(alice, 'computer-russian');
  // Resign, replay, and ask for the computer analysis: the evaluation graph appears.
  await alice.click('#resign');
  await alice.click('#resign');
  await alice.waitForSelector('#status.over');
  await alice.waitForSelector('#replay');
  for (let i = 0; i < 50 && !(await alice.$('#request-analysis')); i++) {
    await alice.click('#replay');
    await alice.waitForTimeout(200);
  }
  await alice.click('#request-analysis');
  await alice.waitForSelector('#eval-graph svg path', { timeout: 30000 });
  const plies = await alice.$$eval('#moves .mv', (m) => m.length);
  assert.ok(plies >= 6, `${plies} plies`);
  assert.ok(await alice.$('#moves .mv[title^="best: "]'), 'every move names the best one');
  await shot(alice, 'computer-analysis');
  // A bad level is refused with the server's message, and nothing starts.
  await alice.click('.brand');
  await alice.waitForSelector('#computer');
  await alice.evaluate(() => { document.querySelector('#computer select[name=level]').options[0].value = '9'; });
  await alice.selectOption('#computer select[name=level]', '9');
  await alice.click('#computer button[type=submit]');
  await alice.waitForFunction(() => /a level from 1 to 8/.test(document.body.textContent));
});

test('an unknown address answers 404 with a page that says so and leads home; the API answers JSON', async () => {
  const res = await alice.goto(srv.url + '/no/such/page');
  assert.equal(res.status(), 404);
  await alice.waitForSelector('#not-found');
  assert.match(await alice.textContent('#not-found'), /does not exist/);
  await alice.click('#not-found a[href="/"]');
  await alice.waitForSelector('#pools .pool');
  const api = await fetch(srv.url + '/api/no-such-endpoint');
  assert.equal(api.status, 404);
  assert.equal((await api.json()).code, 'not_found');
});

test('a game address that leads nowhere says so and leads to the lobby', async () => {
  await alice.goto(srv.url + '/game/zzzzzzzz');
  await alice.waitForSelector('#game-gone');
  assert.match(await alice.textContent('#game-gone'), /not here/);
  await alice.click('#game-gone a[href="/"]');
  await alice.waitForSelector('#pools .pool');
});

test('a challenge made before a page was opened shows there too: another tab lists it and declines it', async () => {
  await alice.click('.brand');
  await bob.click('.brand');
  await alice.waitForSelector('#create');
  await alice.fill('#create input[name=opponent]', bob.user.id);
  await alice.click('#create button[type=submit]');
  await bob.waitForSelector('#challenges button:text("Decline")');
  const tab = await bob.context().newPage();
  await tab.goto(srv.url + '/');
  await tab.click('#challenges button:text("Decline")');
  for (const p of [alice, bob, tab]) await p.waitForFunction(() => !document.querySelector('#challenges button'));
  await tab.close();
});

test('signing out leads back to the sign-in form, from which one plays again', async () => {
  const gil = await guest(browser, srv.url, 'Gil');
  await gil.click('#sign-out');
  await gil.waitForSelector('#guest-name');
  // Gil is forgotten; the visitor watches under a guest name given by itself.
  await gil.waitForFunction(() => JSON.parse(localStorage.getItem('damka.auth') || '{}').auto === true);
  assert.notEqual(await gil.evaluate(() => JSON.parse(localStorage.getItem('damka.auth')).user.name), 'Gil');
  await gil.fill('#guest-name', 'Gil2');
  await gil.click('#play-guest');
  await signedIn(gil, 'Gil2');
  await gil.context().close();
});

test('chess: a promoted pawn is not counted as captured', async () => {
  await challenge(alice, bob, 'chess', { fen: '8/4P3/8/8/8/8/k7/7K w - - 0 1' });
  await clickMove(alice, 'e7e8', true);
  // The picker asks for the piece (a click's release no longer chooses the queen).
  await alice.click('#board .promo-choice[data-move="e7e8q"]');
  await waitMoves(alice, 1);
  await waitMoves(bob, 1);
  for (const page of [alice, bob]) {
    assert.equal(await page.textContent('#player-black .lost'), '', 'Black took nothing');
    assert.equal(await page.textContent('#player-white .lost'), '', 'White took nothing');
  }
  await alice.click('#resign');
  await alice.click('#resign');
  await alice.waitForSelector('#status.over');
});

test('links keep the contrast minimum (4.5:1) in dark mode and in light mode', async () => {
  const ratio = (page) => page.evaluate(() => {
    const rgb = (c) => c.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
    const lum = (c) => {
      const [r, g, b] = rgb(c).map((v) => { const x = v / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const link = document.querySelector('.top .links a');
    let bgEl = link;
    while (bgEl && getComputedStyle(bgEl).backgroundColor.match(/rgba\(.*, 0\)|transparent/)) bgEl = bgEl.parentElement;
    const [a, b] = [lum(getComputedStyle(link).color), lum(getComputedStyle(bgEl || document.body).backgroundColor)];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  });
  for (const scheme of ['dark', 'light']) {
    await alice.emulateMedia({ colorScheme: scheme });
    await alice.click('.brand');
    await alice.waitForSelector('.top .links a');
    const r = await ratio(alice);
    assert.ok(r >= 4.5, `${scheme}: links at ${r.toFixed(2)}:1`);
  }
});

test('chess: a game ends in checkmate', async () => {
  await challenge(alice, bob, 'chess');
  const line = ['f2f3', 'e7e5', 'g2g4', 'd8h4'];
  for (const [i, mv] of line.entries()) {
    await clickMove(i % 2 === 0 ? alice : bob, mv, true);
    await waitMoves(alice, i + 1);
    await waitMoves(bob, i + 1);
  }
  assert.deepEqual(await alice.$$eval('#moves .mv', (m) => m.map((x) => x.textContent)), ['f3', 'e5', 'g4', 'Qh4#']);
  const [a, b] = await Promise.all([alice, bob].map(statusOf));
  assert.equal(a, b);
  assert.match(a, /0-1 · Black wins · checkmate/);
  await shot(alice, 'chess-checkmate');
});

test('takeback granted, then a draw offered and accepted', async () => {
  await challenge(alice, bob, 'chess');
  await clickMove(alice, 'e2e4', true);
  await waitMoves(bob, 1);
  await alice.click('#takeback');
  await bob.click('#offers button:text("Accept")');
  await bob.waitForFunction(() => document.querySelectorAll('#moves .mv').length === 0);
  await alice.waitForFunction(() => document.querySelectorAll('#moves .mv').length === 0);
  assert.ok(await alice.$('#board .pc.w[data-piece="e2"]'), 'the pawn is back on e2');
  await clickMove(alice, 'd2d4', true);
  await waitMoves(bob, 1);
  await clickMove(bob, 'd7d5', true);
  await waitMoves(alice, 2);
  await bob.click('#offer-draw');
  await alice.waitForSelector('#draw-accept');
  await alice.click('#draw-accept');
  const [a, b] = await Promise.all([alice, bob].map(statusOf));
  assert.equal(a, b);
  assert.match(a, /½-½ · Draw · draw agreed/);
});

test('Russian: a game ends by the rules when a side has no pieces left; both see the same result', async () => {
  // White's man on c3 must take Black's last man on d4.
  await challenge(alice, bob, 'russian', { fen: 'W:Wc3:Bd4' });
  await alice.click('#board [data-square="c3"]');
  assert.deepEqual(await alice.$$eval('#board [data-target]', (t) => t.map((x) => x.dataset.target)), ['e5']);
  await alice.click('#board [data-square="e5"]');
  const [a, b] = await Promise.all([alice, bob].map(statusOf));
  assert.equal(a, b);
  assert.match(a, /^2-0 · White wins · no pieces left/);
  assert.equal(await bob.$$eval('#board .pc.b', (p) => p.length), 0);
  await shot(bob, 'russian-no-pieces');

  // No legal move: e5-f6 walls in Black's man on h8 (g7 taken, nothing to land on behind it).
  await challenge(alice, bob, 'russian', { fen: 'W:Wg7,e5:Bh8' });
  await clickMove(alice, 'e5-f6');
  const [c, d] = await Promise.all([alice, bob].map(statusOf));
  assert.equal(c, d);
  assert.match(c, /^2-0 · White wins · no legal move/);
  await shot(alice, 'russian-no-moves');
});

test('draw claims: refused early (and standing as an offer), granted on a threefold repetition; then a rematch', async () => {
  await challenge(alice, bob, 'chess');
  const knights = ['g1f3', 'g8f6', 'f3g1', 'f6g8'];
  await clickMove(alice, knights[0], true);
  await waitMoves(bob, 1);
  // Too early: the server refuses with the article, and in chess the claim stands as an offer.
  assert.match(await toastAfter(alice, () => alice.click('#claim-draw')), /^The claim is refused\. \(FIDE 9\.2/);
  await bob.waitForSelector('#draw-decline');
  await bob.click('#draw-decline');
  await alice.waitForFunction(() => !document.querySelector('#offers').textContent.includes('offers a draw'));
  for (const [i, mv] of [...knights.slice(1), ...knights].entries()) {
    await clickMove(i % 2 === 0 ? bob : alice, mv, true);
    await waitMoves(alice, i + 2);
    await waitMoves(bob, i + 2);
  }
  // The start position stands for the third time: White claims.
  await alice.click('#claim-draw');
  const [a, b] = await Promise.all([alice, bob].map(statusOf));
  assert.equal(a, b);
  assert.match(a, /^½-½ · Draw · repetition/);
  const first = gameId(alice);

  // Rematch: offered by one, accepted by the other, both land on the new game, colours swapped.
  await alice.click('#rematch');
  await bob.waitForSelector('#offers button:text("Accept")');
  await bob.click('#offers button:text("Accept")');
  await alice.waitForFunction((old) => location.pathname !== '/game/' + old && document.querySelector('#board svg'), first);
  await bob.waitForFunction((old) => location.pathname !== '/game/' + old && document.querySelector('#board svg'), first);
  assert.equal(gameId(alice), gameId(bob));
  assert.equal(await colorOf(alice), 'black');
  assert.equal(await colorOf(bob), 'white');
  await bob.click('#abort');
  await statusOf(alice);
});

test('a refusal in a game goes with the game\'s screen: the next page does not show it', async () => {
  await challenge(alice, bob, 'chess');
  assert.match(await toastAfter(alice, () => alice.click('#claim-draw')), /^The claim is refused/);
  await alice.click('.brand');
  await alice.waitForSelector('#create');
  assert.equal(await alice.isHidden('#toast'), true, 'the refusal went with its game');
  await alice.goBack();
  await alice.click('#abort');
  assert.match(await statusOf(bob), /aborted/i);
});

test('a 375 px wide phone shows the whole board', async () => {
  const phone = await guest(browser, srv.url, 'Pat', { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
  await shot(phone, 'phone-home');
  await challenge(alice, phone, 'international');
  const box = await phone.$eval('#board svg', (s) => {
    const r = s.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height, page: document.documentElement.scrollWidth };
  });
  assert.ok(box.x >= 0 && box.x + box.w <= 375, JSON.stringify(box));
  assert.ok(box.y >= 0 && box.y + box.h <= 667, JSON.stringify(box));
  assert.ok(box.w >= 340, `the board uses the width: ${JSON.stringify(box)}`);
  assert.ok(box.page <= 375, `nothing scrolls sideways: ${JSON.stringify(box)}`);
  // A move by touch on the phone (Black here: White moves first).
  await clickMove(alice, '32-28');
  await waitMoves(phone, 1);
  await phone.tap('#board [data-square="19"]');
  await phone.tap('#board [data-square="23"]');
  await waitMoves(alice, 2);
  await shot(phone, 'phone-game');
  await phone.click('#resign');
  await phone.click('#resign');
  await statusOf(alice);
  await phone.context().close();
});

test('TV follows a live game with ticking clocks; moves typed on the keyboard', async () => {
  const id = await challenge(alice, bob, 'brazilian', { tc: '3+0' });
  // An illegal move typed is refused in words a player reads, without developers'
  // backticks.
  await alice.fill('#move-input', 'c3-c4');
  const refusal = await toastAfter(alice, () => alice.press('#move-input', 'Enter'));
  assert.equal(refusal, 'That move is not legal here.');
  // Keyboard entry in the variant's notation.
  await alice.fill('#move-input', 'c3-d4');
  await alice.press('#move-input', 'Enter');
  await waitMoves(bob, 1);
  const viewer = await guest(browser, srv.url, 'Vic');
  await viewer.click('.tv-links a[href="/tv/brazilian"]');
  await viewer.waitForSelector(`#game[data-game="${id}"] #board svg[data-variant="brazilian"]`);
  assert.equal(await viewer.textContent('#moves .mv'), 'c3-d4');
  // Black's clock runs, and ticks on the spectator's screen.
  await viewer.waitForSelector('#clock-black.running');
  const before = await viewer.textContent('#clock-black');
  await viewer.waitForFunction((t) => document.querySelector('#clock-black').textContent !== t, before, { timeout: 3000 });
  assert.equal(await viewer.textContent('#clock-white'), '3:00');
  await bob.fill('#move-input', 'f6-g5');
  await bob.press('#move-input', 'Enter');
  await waitMoves(viewer, 2);
  await viewer.waitForSelector('#clock-white.running');
  await shot(viewer, 'tv-brazilian');
  await bob.click('#resign');
  await bob.click('#resign');
  assert.match(await statusOf(viewer), /2-0 · White wins · resignation/);
  await viewer.context().close();
});

test('cold load of the game page: bytes and time to the first board', async () => {
  const id = await challenge(alice, bob, 'russian');
  const auth = await alice.evaluate(() => localStorage.getItem('damka.auth'));
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
    await context.addInitScript((a) => localStorage.setItem('damka.auth', a), auth);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    let bytes = 0;
    cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
    await page.goto(`${srv.url}/game/${id}`);
    await page.waitForFunction(() => performance.getEntriesByName('damka:first-board').length > 0);
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const res = performance.getEntriesByType('resource');
      return {
        firstBoard: performance.getEntriesByName('damka:first-board')[0].startTime,
        domContentLoaded: nav.domContentLoadedEventEnd,
        transfer: nav.transferSize + res.reduce((s, r) => s + r.transferSize, 0),
        decoded: nav.decodedBodySize + res.reduce((s, r) => s + r.decodedBodySize, 0),
        requests: 1 + res.length,
      };
    });
    runs.push({ ...t, cdpBytes: bytes });
    await context.close();
  }
  const median = (k) => runs.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const summary = {
    runs: runs.length,
    transfer_bytes: median('transfer'),
    cdp_encoded_bytes: median('cdpBytes'),
    decoded_bytes: median('decoded'),
    requests: median('requests'),
    first_board_ms: Math.round(median('firstBoard')),
    dom_content_loaded_ms: Math.round(median('domContentLoaded')),
  };
  writeFileSync(path.join(artefacts, 'performance.json'), JSON.stringify({ summary, runs }, null, 2));
  console.log('cold load of /game/:', JSON.stringify(summary));
  assert.ok(summary.transfer_bytes < 60000, `the game page stays small: ${summary.transfer_bytes} bytes`);
  await alice.click('#abort');
});
