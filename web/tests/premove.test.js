// Premoves in the browser end to end: a real damka server, Debian's Chromium, two players
// in Russian games. A move queued while the opponent thinks is played the moment the
// opponent's move arrives (a multi-capture route too), dropped when it is not legal
// then, cancelled by a click on it, and not taken at all with the setting off.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { clickMove, guest, launch, shot, startServer, waitMoves } from './lib.js';

let srv;
let browser;
let white;
let black;

before(async () => {
  srv = await startServer();
  browser = await launch();
  white = await guest(browser, srv.url, 'Wanda');
  black = await guest(browser, srv.url, 'Boris');
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await srv.stop();
});

const gameId = (page) => new URL(page.url()).pathname.split('/').pop();

/** White challenges Black to a Russian game from `fen`; both end on the game page. */
async function challenge(fen = '') {
  await white.click('.brand');
  await black.click('.brand');
  await white.waitForSelector('#create');
  await white.selectOption('#create select[name=variant]', 'russian');
  await white.selectOption('#create select[name=time_control]', '5+3');
  await white.selectOption('#create select[name=color]', 'white');
  await white.fill('#create input[name=opponent]', black.user.id);
  await white.fill('#create input[name=fen]', fen);
  await white.click('#create button[type=submit]');
  await black.click('#challenges button:text("Accept")');
  for (const p of [white, black]) await p.waitForSelector('#game[data-game] #board svg[data-variant="russian"]');
  assert.equal(gameId(white), gameId(black));
  return gameId(white);
}

const moves = (page) => page.$$eval('#moves .mv', (m) => m.map((x) => x.textContent));
const premoveOf = (page) => page.$eval('#board svg', (s) => s.dataset.premove || null);
const running = (page, c) => page.$eval(`#clock-${c}`, (e) => e.classList.contains('running'));

/** Waits until the server has had time to answer anything `page` might have sent. */
async function settle(page) {
  await page.waitForTimeout(600);
}

async function resign(page) {
  await page.click('#resign');
  await page.click('#resign');
  await page.waitForSelector('#status.over', { timeout: 10000 });
}

test('a premove is played when the opponent moves; an illegal one is dropped; a cancelled one is not played', async () => {
  const id = await challenge();
  // Black queues f6-g5 while White thinks: shown on the board, nothing sent.
  await clickMove(black, 'f6-g5');
  assert.equal(await premoveOf(black), 'f6-g5');
  assert.equal(await black.$$eval('#board rect.sq.premove', (r) => r.map((x) => x.dataset.square).sort().join()), 'f6,g5');
  await shot(black, 'premove-queued');
  await settle(black);
  assert.deepEqual(await moves(white), []);
  // White moves: Black's premove follows without another click.
  await clickMove(white, 'c3-d4');
  await waitMoves(white, 2);
  await waitMoves(black, 2);
  assert.deepEqual(await moves(white), ['c3-d4', 'f6-g5']);
  assert.equal(await premoveOf(black), null);
  assert.ok(await running(white, 'white'), "White's clock runs after the premove");

  // A premove that White's answer makes illegal (d4-e5 forces d6:f4) is dropped.
  await clickMove(black, 'b6-a5');
  assert.equal(await premoveOf(black), 'b6-a5');
  await clickMove(white, 'd4-e5');
  await waitMoves(black, 3);
  await settle(black);
  assert.deepEqual(await moves(black), ['c3-d4', 'f6-g5', 'd4-e5']);
  assert.equal(await premoveOf(black), null);
  assert.ok(await running(black, 'black'), "Black's clock runs: the dropped premove was not played");
  await clickMove(black, 'd6:f4');
  await waitMoves(white, 4);

  // A premove cancelled by a click on it is not played.
  await clickMove(black, 'b6-a5');
  assert.equal(await premoveOf(black), 'b6-a5');
  await black.click('#board [data-square="a5"]');
  assert.equal(await premoveOf(black), null);
  assert.equal(await black.$$eval('#board rect.sq.premove', (r) => r.length), 0);
  await clickMove(white, 'g3:e5');
  await waitMoves(black, 5);
  await settle(black);
  assert.equal((await moves(white)).length, 5);
  assert.ok(await running(black, 'black'), 'Black is to move: the cancelled premove was not played');

  await resign(white);
  // The server's record holds Black's premove as Black's move.
  const archived = await (await fetch(`${srv.url}/api/games/${id}`)).json();
  assert.deepEqual(archived.moves.map((m) => m.san).slice(0, 2), ['c3-d4', 'f6-g5']);
});

test('a multi-capture premove, entered square by square, is played when the capture arrives', async () => {
  await challenge('W:Wd4,e3,h2:Bb6,h8');
  // Black queues the double capture b6:d4:f2 before White offers the man on c5.
  await clickMove(black, 'b6:d4:f2');
  assert.equal(await premoveOf(black), 'b6-d4-f2');
  await clickMove(white, 'd4-c5');
  await waitMoves(white, 2);
  const played = await moves(white);
  assert.equal(played[0], 'd4-c5');
  assert.deepEqual(played[1].split(/[-:x]/), ['b6', 'd4', 'f2']);
  assert.equal(await white.$$eval('#board .pc.w', (p) => p.map((x) => x.dataset.piece).join()), 'h2', 'both white men taken');
  await resign(white);
});

test('with premoves switched off in the settings a move cannot be queued', async () => {
  await black.goto(srv.url + '/settings');
  await black.waitForSelector('#pref-premoves');
  assert.equal(await black.isChecked('#pref-premoves'), true, 'premoves are on by default');
  await black.uncheck('#pref-premoves');
  await black.waitForFunction(() => JSON.parse(localStorage.getItem('damka.prefs')).premoves === false);
  try {
    await challenge();
    await clickMove(black, 'f6-g5');
    assert.equal(await premoveOf(black), null);
    assert.equal(await black.$$eval('#board rect.sq.premove, #board rect.sq.chosen', (r) => r.length), 0);
    await clickMove(white, 'c3-d4');
    await waitMoves(black, 1);
    await settle(black);
    assert.deepEqual(await moves(white), ['c3-d4']);
    assert.ok(await running(black, 'black'), 'Black is to move');
    await resign(white);
  } finally {
    await black.goto(srv.url + '/settings');
    await black.check('#pref-premoves');
  }
});

test('a takeback drops the premove', async () => {
  await challenge();
  await clickMove(white, 'c3-d4');
  await waitMoves(black, 1);
  await clickMove(black, 'f6-g5');
  await waitMoves(white, 2);
  // Black queues b6-a5 (legal after the takeback too), then asks to take f6-g5 back;
  // White grants it.
  await clickMove(black, 'b6-a5');
  assert.equal(await premoveOf(black), 'b6-a5');
  await black.click('#takeback');
  await white.click('#offers button:text("Accept")');
  await black.waitForFunction(() => document.querySelectorAll('#moves .mv').length === 1);
  await settle(black);
  assert.deepEqual(await moves(white), ['c3-d4']);
  assert.equal(await premoveOf(black), null);
  assert.ok(await running(black, 'black'), 'Black is to move again, nothing played for it');
  await resign(white);
});
