// Arenas and tournaments in a real browser against a real server: an arena created
// through the client, its players paired and their games opening by themselves, the
// standings changing, a paused player left out, berserk, the podium; a tournament whose
// games open by themselves, game after game.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { clickMove, colorOf, guest, launch, register, shot, startServer, waitMoves } from './lib.js';

let srv;
let browser;
let arenaId;
let tournamentId;

before(async () => {
  srv = await startServer({
    // Short waves and frequent standings so that the test does not wait on them.
    DAMKA_ARENA__WAVE_MS: '300',
    DAMKA_ARENA__STANDINGS_MS: '200',
    DAMKA_TOURNAMENTS__ORGANISERS: '["orga"]',
  });
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await srv.stop();
});

const path = (page) => new URL(page.url()).pathname;
const onGame = (page, not) => page.waitForFunction((old) => /^\/game\//.test(location.pathname) && location.pathname !== old
  && document.querySelector('#game #board svg') !== null, not || '', { timeout: 20000 });

/** Polls `check` (no fixed sleep stands for an event) until it is true or `ms` pass. */
async function until(check, ms = 20000, what = 'condition') {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One move each from the start position, then `loser` resigns; `during` runs first. */
async function shortGame(pages, loser, during) {
  const white = (await colorOf(pages[0])) === 'white' ? pages[0] : pages[1];
  const black = white === pages[0] ? pages[1] : pages[0];
  await clickMove(white, 'c3-d4');
  await waitMoves(black, 1);
  await clickMove(black, 'f6-g5');
  await waitMoves(white, 2);
  if (during) await during();
  await loser.click('#resign');
  await loser.click('#resign');
  // The result as each page shows it when it arrives (an arena may open the next game).
  const [a, b] = await Promise.all([white, black].map(async (p) => (await p.waitForFunction(() => {
    const s = document.querySelector('#status.over');
    return s && s.textContent;
  })).jsonValue()));
  assert.equal(a, b);
  assert.match(a, /resignation/);
}

const nameOf = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('damka.auth')).user.name);

/** Clicks a button that may be redrawn meanwhile, until it has been clicked. */
const press = (page, sel) => page.locator(sel).click();

test('arena: created in the client, three join, games open by themselves, standings change, a paused player is not paired, podium', async () => {
  const ann = await register(browser, srv.url, 'ann', 'ann password one');
  const ben = await register(browser, srv.url, 'ben', 'ben password one');
  const cat = await guest(browser, srv.url, 'Cat');

  // Ann creates a casual arena of 42 s with 12 s games: pairing stops 12 s before its end.
  await ann.click('nav a[href="/arenas"]');
  await ann.waitForSelector('#arena-create');
  await ann.fill('#arena-create input[name=name]', 'Quick arena');
  await ann.fill('#arena-create input[name=time_control]', '0.2+0');
  await ann.fill('#arena-create input[name=duration]', '0.7');
  await ann.uncheck('#arena-create input[name=rated]');
  await shot(ann, 'arena-create');
  await ann.click('#arena-create button[type=submit]');
  const endsAt = Date.now() + 42000;
  await ann.waitForSelector('#arena[data-arena] h1');
  const id = await ann.getAttribute('#arena', 'data-arena');
  arenaId = id;
  assert.equal(await ann.textContent('#arena h1'), 'Quick arena');
  await ann.click('#arena-join');

  // The others find it in the list.
  for (const p of [ben, cat]) {
    await p.click('nav a[href="/arenas"]');
    await p.click(`#arenas-running a[href="/arena/${id}"]`);
    await p.click('#arena-join');
  }
  // Two are paired and their boards open by themselves; the third waits on the arena page.
  const players = [ann, ben, cat];
  const onBoard = async (p) => /^\/game\//.test(path(p)) && (await p.$('#game #board svg')) !== null;
  await until(async () => (await Promise.all(players.map(onBoard))).filter(Boolean).length === 2, 20000, 'the first pairing');
  const flags = await Promise.all(players.map(onBoard));
  const [p1, p2] = players.filter((_, i) => flags[i]);
  const waiting = players.find((_, i) => !flags[i]);
  assert.match(path(waiting), /^\/arena\//, 'the third player is still on the arena page');
  await shot(p1, 'arena-game-1');

  // The player who will lose pauses from the board during the game, then resigns.
  const loser = (await colorOf(p1)) === 'black' ? p1 : p2;
  const winner = loser === p1 ? p2 : p1;
  const firstGame = path(winner);
  await shortGame([p1, p2], loser, async () => {
    await press(loser, '#arena-pause-game');
    await loser.waitForSelector('#arena-pause-game', { state: 'detached' });
  });
  await loser.waitForSelector('#arena-next:text("Paused")');

  // The winner's next game opens by itself, against the player who waited.
  await until(async () => path(winner) !== firstGame && (await onBoard(winner)) && (await onBoard(waiting)), 20000, 'the second pairing');
  assert.equal(path(winner), path(waiting));

  // The loser, back on the arena page: the standings changed; one game on the sheet, lost.
  const winnerName = await nameOf(winner);
  await press(loser, '#back-to-arena');
  await loser.waitForFunction((n) => [...document.querySelectorAll('#arena-standings tbody tr')]
    .some((r) => r.textContent.includes(n) && r.querySelector('.score').textContent === '2'), winnerName, { timeout: 10000 });
  await loser.waitForSelector('#arena-sheet li');
  assert.equal(await loser.$$eval('#arena-sheet li', (l) => l.length), 1);
  assert.match(await loser.getAttribute('#arena-sheet li', 'class'), /loss/);
  assert.match(await loser.textContent('#arena-rank'), /paused/);
  await loser.waitForSelector('#arena-join:text("Resume")');
  await shot(loser, 'arena-paused-player');

  // Berserk before one's first move: the clock is halved on both screens.
  const second = [winner, waiting];
  const berserker = (await colorOf(winner)) === 'black' ? winner : waiting;
  const other = berserker === winner ? waiting : winner;
  const berserkColor = await colorOf(berserker);
  await press(berserker, '#berserk');
  await other.waitForSelector(`#player-${berserkColor} .berserk`);
  assert.equal(await other.textContent(`#clock-${berserkColor}`), '6.0');
  await berserker.waitForSelector('#berserk', { state: 'detached' });
  // Both pause during the game, so that nobody is paired after it; the winner of the
  // first game loses this one.
  await shortGame(second, winner, async () => {
    for (const p of second) {
      await press(p, '#arena-pause-game');
      await p.waitForSelector('#arena-pause-game', { state: 'detached' });
    }
  });
  await shot(other, 'arena-game-2-berserk');

  // The arena ends: every page shows the podium; the paused player was never paired again.
  for (const p of second) await press(p, '#back-to-arena');
  // However fast the games went, the arena runs its whole 42 s: wait for its end, then
  // give the last game's archive and the final standings 20 s more.
  for (const p of players) await p.waitForSelector('#podium li', { timeout: Math.max(endsAt - Date.now(), 0) + 20000 });
  assert.equal(path(loser), `/arena/${id}`, 'never sent to another game');
  assert.equal(await ann.$$eval('#podium li', (l) => l.length), 3);
  const loserName = await nameOf(loser);
  const lines = await ann.$$eval('#arena-standings tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  const last = lines[lines.length - 1];
  assert.equal(last[0], '3');
  assert.match(last[1], new RegExp(loserName));
  assert.equal(last[2], '1', 'one game: not paired after the pause');
  assert.equal(last[3], '0');
  assert.equal(await ann.textContent('#arena-status'), 'Finished');
  await shot(ann, 'arena-podium');
  for (const p of players) assert.deepEqual(p.errors || [], []);
  for (const p of players) await p.context().close();
});

test('tournament: listed, followed live, and each game of the micro-match opens by itself', async () => {
  const dee = await guest(browser, srv.url, 'Dee');
  const eve = await guest(browser, srv.url, 'Eve');
  // The organiser (named in tournaments.organisers) creates it through the API.
  const reg = await fetch(`${srv.url}/api/account/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'orga', password: 'organiser password' }),
  });
  assert.ok(reg.ok, await reg.clone().text());
  const { token } = await reg.json();
  // Both players wait on the list first: nothing exists yet.
  for (const p of [dee, eve]) {
    await p.click('nav a[href="/tournaments"]');
    await p.waitForSelector('#tournament-list p.muted:text("No tournaments.")');
  }
  const res = await fetch(`${srv.url}/api/tournaments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
    body: JSON.stringify({
      name: 'Browser cup', variant: 'russian', time_control: '1+0',
      system: { kind: 'round_robin', cycles: 1 }, players: [dee.user, eve.user],
      break_ms: 300, start: 'command',
    }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const tid = (await res.json()).summary.id;
  tournamentId = tid;
  // The list shows it at once (players are told); both open it and wait there.
  for (const p of [dee, eve]) {
    await p.click(`#tournament-list a[href="/tournament/${tid}"]`, { timeout: 10000 });
    await p.waitForSelector('#tournament-standings');
    await p.waitForSelector('#tournament-withdraw');
  }
  await shot(dee, 'tournament-before');
  const round = await fetch(`${srv.url}/api/tournaments/${tid}/rounds`, { method: 'POST', headers: { authorization: 'Bearer ' + token } });
  assert.equal(round.status, 202, await round.clone().text());
  // Game 1 opens by itself on both pages.
  await onGame(dee);
  await onGame(eve);
  const game1 = path(dee);
  assert.equal(path(eve), game1);
  await shortGame([dee, eve], eve);
  // Game 2 of the micro-match (colours swapped) opens by itself.
  await onGame(dee, game1);
  await onGame(eve, game1);
  assert.equal(path(dee), path(eve));
  assert.equal(await colorOf(eve), (await colorOf(dee)) === 'white' ? 'black' : 'white');
  // IDF 7.3.10: game 2 starts at once with the break (break_ms, 300 ms here) on White's
  // running clock; White may move once it is over.
  await dee.waitForTimeout(600);
  await shortGame([dee, eve], eve);
  // Back on the tournament page: finished, Dee first with both games.
  await dee.click('#back-to-tournament');
  await dee.waitForSelector('#tournament-status:text("Finished")', { timeout: 15000 });
  const first = await dee.$$eval('#tournament-standings tbody tr', (rows) => [...rows[0].cells].map((c) => c.textContent));
  assert.equal(first[0], '1');
  assert.match(first[1], /Dee/);
  const cross = await dee.$$eval('#crosstable tbody tr', (rows) => rows.map((r) => [...r.cells].slice(1).map((c) => c.textContent)));
  assert.deepEqual(cross.map((r) => r.filter((c) => c !== '×')), [[String(first[2])], ['0']]);
  assert.equal(await dee.$$eval('.round a[data-game]', (a) => a.length), 2);
  // Each game's result as the IDF writes it (a win is 2-0 or 0-2).
  for (const r of await dee.$$eval('.round a[data-game]', (a) => a.map((x) => x.textContent))) assert.match(r, /^(2-0|0-2)$/);
  await shot(dee, 'tournament-finished');
  for (const p of [dee, eve]) assert.deepEqual(p.errors || [], []);
  for (const p of [dee, eve]) await p.context().close();
});

test('the arena and tournament screens fit a 375 px phone', async () => {
  assert.ok(arenaId && tournamentId, 'the tests above made an arena and a tournament');
  const phone = await guest(browser, srv.url, 'Pia', { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
  const fits = async (name) => {
    const w = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(w <= 375, `${name} scrolls sideways: ${w}px`);
    await shot(phone, 'phone-' + name);
  };
  await phone.click('nav a[href="/arenas"]');
  await phone.waitForSelector(`#arenas-finished a[href="/arena/${arenaId}"]`);
  await fits('arenas');
  await phone.click(`#arenas-finished a[href="/arena/${arenaId}"]`);
  await phone.waitForSelector('#podium li');
  await fits('arena');
  await phone.click('nav a[href="/tournaments"]');
  await phone.click(`#tournament-list a[href="/tournament/${tournamentId}"]`);
  await phone.waitForSelector('#crosstable');
  await fits('tournament');
  assert.deepEqual(phone.errors || [], []);
  await phone.context().close();
});
