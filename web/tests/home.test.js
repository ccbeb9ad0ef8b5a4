// The home page is the lobby, in a real browser against a real server: a visitor who
// never chose a name sees it live (a guest name given by itself); joining a pool from
// the grid gets a game, whose small board appears in another browser's lobby, moves
// there and goes when the game ends; a seek with a rating range made in one browser is
// seen by another and goes when taken; the players online counted. Screenshots on a
// desktop and a 375 px phone, in English and in Russian.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { clickMove, colorOf, guest, launch, newContext, shot, startServer } from './lib.js';

let srv;
let browser;

before(async () => {
  srv = await startServer();
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await srv.stop();
});

const gameId = (page) => new URL(page.url()).pathname.split('/').pop();
const onlineCount = (page) => page.$eval('#online', (e) => Number(e.textContent.replace(/\D+/g, '')));

async function visitor(options = {}) {
  const context = await newContext(browser, options);
  const page = await context.newPage();
  page.on('pageerror', (e) => { page.errors = [...(page.errors || []), e]; });
  await page.goto(srv.url + '/');
  return page;
}

test('a visitor sees the lobby live; a pool game from the grid shows, moves and goes; a seek is seen by another browser', async () => {
  // A visitor who chose no name: the lobby is there, live, under a guest name of its own.
  const watcher = await visitor();
  await watcher.waitForSelector('#pools .pool[data-pool="russian 3+2"]');
  await watcher.waitForSelector('#guest-name');
  const auto = await watcher.evaluate(() => JSON.parse(localStorage.getItem('damka.auth')));
  assert.ok(auto.auto && auto.guest && /^Guest\d{4}$/.test(auto.user.name), JSON.stringify(auto));
  await watcher.waitForFunction(() => /1/.test(document.querySelector('#online').textContent));
  assert.match(await watcher.textContent('#live-games'), /No game/);
  const before = await onlineCount(watcher);

  // Two players join the Russian 3+2 pool from the grid: the counts change, then a game.
  const alice = await guest(browser, srv.url, 'Alice');
  const bob = await guest(browser, srv.url, 'Bob');
  await watcher.waitForFunction((n) => Number(document.querySelector('#online').textContent.replace(/\D+/g, '')) === n, before + 2);
  await alice.click('[data-pool="russian 3+2"]');
  await alice.waitForSelector('#pool-state button');
  await watcher.waitForFunction(() => /1 waiting/.test(document.querySelector('[data-pool="russian 3+2"]').textContent));
  await bob.click('[data-pool="russian 3+2"]');
  await alice.waitForSelector('#board svg[data-variant="russian"]');
  await bob.waitForSelector('#board svg[data-variant="russian"]');
  const id = gameId(alice);
  assert.equal(gameId(bob), id);
  await watcher.waitForSelector(`#live-games .live-game[data-game="${id}"] svg[data-variant="russian"]`);
  await watcher.waitForFunction(() => /2 playing · 0 waiting/.test(document.querySelector('[data-pool="russian 3+2"]').textContent));
  const caption = await watcher.textContent(`.live-game[data-game="${id}"]`);
  assert.ok(caption.includes('Alice') && caption.includes('Bob'), caption);

  // A move shows on the small board.
  const white = (await colorOf(alice)) === 'white' ? alice : bob;
  const black = white === alice ? bob : alice;
  const before1 = await watcher.$eval(`.live-game[data-game="${id}"] svg`, (s) => s.innerHTML);
  await clickMove(white, 'c3-d4');
  await watcher.waitForFunction((g) => document.querySelector(`.live-game[data-game="${g}"]`).dataset.plies === '1', id);
  assert.match(await watcher.textContent(`.live-game[data-game="${id}"]`), /c3-d4/);
  const after1 = await watcher.$eval(`.live-game[data-game="${id}"] svg`, (s) => s.innerHTML);
  assert.notEqual(after1, before1, 'the small board moved');
  await shot(watcher, 'home-desktop');

  // A phone, in Russian: the same lobby, laid out in one column.
  const phone = await visitor({ viewport: { width: 375, height: 800 }, locale: 'ru-RU' });
  await phone.waitForSelector(`#live-games .live-game[data-game="${id}"] svg`);
  assert.match(await phone.textContent('.quick h2'), /Быстрая игра/);
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no sideways scrolling on a phone: ${overflow}px`);
  await shot(phone, 'home-phone-ru');

  // The game ends: it leaves the lobby.
  await black.click('#resign');
  await black.click('#resign');
  await watcher.waitForFunction((g) => !document.querySelector(`.live-game[data-game="${g}"]`), id);
  await watcher.waitForFunction(() => /0 playing/.test(document.querySelector('[data-pool="russian 3+2"]').textContent));

  // A seek with a rating range: seen by another browser, with its range; taken there.
  const carol = await guest(browser, srv.url, 'Carol');
  await carol.fill('#create input[name=rating_min]', '1400');
  await carol.fill('#create input[name=rating_max]', '1600');
  await carol.click('#create button[type=submit]');
  const dave = await guest(browser, srv.url, 'Dave');
  const row = '#seeks tr:has-text("Carol")';
  await dave.waitForSelector(row);
  assert.match(await dave.textContent(row), /1400–1600/);
  await watcher.waitForSelector(row);
  await dave.click(`${row} button:text("Play")`);
  await dave.waitForSelector('#board svg[data-variant="russian"]');
  await carol.waitForSelector('#board svg[data-variant="russian"]');
  await watcher.waitForFunction(() => !document.querySelector('#seeks').textContent.includes('Carol'));
  await shot(watcher, 'home-desktop-later');

  for (const p of [watcher, alice, bob, phone, carol, dave]) assert.deepEqual(p.errors || [], []);
});
