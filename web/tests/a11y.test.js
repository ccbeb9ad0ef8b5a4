// Accessibility and the pages' looks through a real server and Chromium: a game made
// and played from the home page with the keyboard only (Tab, Enter, arrows), each step
// with a visible focus ring, the board's squares and the move list read from the
// accessibility tree in the page's language, the clocks and the status spoken politely
// (not every tenth); text contrast of at least WCAG AA (4.5:1, 3:1 for large text) in
// the light and the dark theme; a moderator on one node timing out and deleting the
// lines of a user on another node (two nodes on one Redis and one SQLite file); a
// tournament's rounds giving each game of a micro-match from the pair's viewpoint
// (2-0, 0-2); and screenshots of the arena and the profile in Russian and Ukrainian on a
// desktop and a 375 px phone (artefacts/a11y-*.png: look at them).

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { artefacts, guest, launch, newContext, register, shot, signedIn, startServer, waitMoves } from './lib.js';

let srv;
let browser;

before(async () => {
  srv = await startServer({ DAMKA_TOURNAMENTS__ORGANISERS: '["orga"]' });
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await srv.stop();
});

/** The focused element: its id, square, role, accessible name and whether it shows a
 * focus ring (an outline, or on the board the frame drawn over the square). */
const focused = (page) => page.evaluate(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const cs = getComputedStyle(el);
  const outline = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2;
  const ring = !!el.dataset.square && !!el.ownerSVGElement?.querySelector('.focus-ring');
  return {
    id: el.id, tag: el.tagName.toLowerCase(), square: el.dataset.square || null, name: el.name || null,
    type: el.type || null, text: (el.textContent || '').trim().slice(0, 40), label: el.getAttribute('aria-label'), ring: outline || ring,
  };
});

/**
 * Presses Tab until the focus is on what `want(focused)` accepts, checking on the way
 * that every element the focus lands on shows a ring. Fails after `max` presses.
 */
async function tabTo(page, want, what, max = 120) {
  const noRing = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const f = await focused(page);
    if (f && !f.ring) noRing.push(f);
    if (f && want(f)) {
      assert.deepEqual(noRing, [], `every element Tab reached on the way to ${what} shows a focus ring`);
      return f;
    }
  }
  throw new Error(`Tab never reached ${what}`);
}

/** Moves the board's focus to `name` with the arrow keys. */
async function arrowTo(page, name) {
  for (let i = 0; i < 30; i++) {
    const at = await page.evaluate((n) => {
      const cur = document.activeElement;
      const to = document.querySelector(`#board [data-square="${n}"]`);
      return { cur: cur.dataset.square, dx: +to.getAttribute('x') - +cur.getAttribute('x'), dy: +to.getAttribute('y') - +cur.getAttribute('y') };
    }, name);
    if (at.cur === name) return;
    await page.keyboard.press(at.dy < 0 ? 'ArrowUp' : at.dy > 0 ? 'ArrowDown' : at.dx < 0 ? 'ArrowLeft' : 'ArrowRight');
  }
  throw new Error(`the arrows never reached ${name}`);
}

/** Logs an existing account in through the home page. */
async function login(browser, url, name, password, options = {}) {
  const context = await newContext(browser, options);
  const page = await context.newPage();
  page.on('pageerror', (e) => { page.errors = [...(page.errors || []), e]; });
  await page.goto(url + '/');
  await page.fill('#username', name);
  await page.fill('#password', password);
  await page.click('#login');
  await signedIn(page, name);
  return page;
}

async function account(url, username, password) {
  const res = await fetch(url + '/api/account/register', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }),
  });
  assert.ok(res.ok, await res.clone().text());
  return res.json();
}

test('a game made and played with the keyboard only; squares, moves, clocks and status read by a screen reader', async () => {
  const ann = await register(browser, srv.url, 'Anna', 'anna password one');
  const ben = await register(browser, srv.url, 'Boris', 'boris password one');
  // Boris reads the client in Russian.
  await ben.selectOption('#lang', 'ru');
  await ben.waitForFunction(() => document.documentElement.lang === 'ru');

  // Home: from the top of the page, Tab to the challenge form, type, Tab on, Enter.
  await ann.evaluate(() => document.activeElement?.blur());
  await tabTo(ann, (f) => f.name === 'color', 'the colour choice');
  await ann.keyboard.press('ArrowDown'); // random -> white
  assert.equal(await ann.inputValue('#create select[name=color]'), 'white');
  await tabTo(ann, (f) => f.name === 'opponent', 'the opponent field');
  await ann.keyboard.type(ben.user.id);
  await tabTo(ann, (f) => f.tag === 'button' && f.type === 'submit', 'the create button');
  await ann.keyboard.press('Enter');
  // Boris accepts with the keyboard.
  await ben.waitForSelector('#challenges li button');
  await ben.evaluate(() => document.activeElement?.blur());
  await tabTo(ben, (f) => f.tag === 'button' && !!f.text && !!f.text.match(/Принять/), 'the accept button');
  await ben.keyboard.press('Enter');
  for (const p of [ann, ben]) await p.waitForSelector('#board svg .pc');

  // The board as a screen reader has it: a grid of labelled squares in the page's language.
  assert.equal(await ann.getByRole('grid', { name: 'Russian draughts board' }).count(), 1);
  assert.equal(await ann.getByRole('gridcell', { name: 'c3, white man' }).count(), 1);
  assert.equal(await ann.getByRole('gridcell', { name: 'f6, black man' }).count(), 1);
  assert.equal(await ann.getByRole('gridcell', { name: 'd4', exact: true }).count(), 1);
  assert.equal(await ben.getByRole('gridcell', { name: 'c3, белая простая' }).count(), 1);
  assert.equal(await ann.getByRole('row').count(), 8);
  assert.equal(await ann.getByRole('gridcell').count(), 32);
  // Numbered boards say "square n"; a chess piece's colour agrees with its gender.
  const labels = (page) => page.evaluate(async () => {
    const { Board } = await import(document.querySelector('link[href$="/board.js"]:not([href*="/words/"])').href);
    const label = (variant, fen, sq) => {
      const host = document.createElement('div');
      new Board(host, variant, () => {}).set({ fen, legal: [], mine: null });
      return host.querySelector(`[data-square="${sq}"]`).getAttribute('aria-label');
    };
    return [label('international', 'W:W32:BK19', '32'), label('international', 'W:W32:BK19', '19'), label('chess', '4k3/8/8/8/8/8/8/4K2R w K - 0 1', 'e1'), label('chess', '4k3/8/8/8/8/8/8/4K2R w K - 0 1', 'h1')];
  });
  assert.deepEqual(await labels(ann), ['square 32, white man', 'square 19, black king', 'e1, white king', 'h1, white rook']);
  assert.deepEqual(await labels(ben), ['поле 32, белая простая', 'поле 19, чёрная дамка', 'e1, белый король', 'h1, белая ладья']);

  // Tab into the board, arrows to c3, Enter, arrows to d4, Enter: the move is made.
  await ann.evaluate(() => document.activeElement?.blur());
  await tabTo(ann, (f) => !!f.square, 'the board');
  assert.equal(await ann.locator('#board [data-square][tabindex="0"]').count(), 1, 'the board is one tab stop');
  await arrowTo(ann, 'c3');
  await ann.keyboard.press('Enter');
  assert.equal(await ann.getByRole('gridcell', { name: 'd4, move here' }).count(), 1, 'the targets are named');
  await arrowTo(ann, 'd4');
  assert.equal((await focused(ann)).ring, true, 'the focused square is framed');
  await shot(ann, 'a11y-keyboard-board-focus');
  await ann.keyboard.press('Enter');
  await waitMoves(ben, 1);
  // Boris answers with the keyboard too; his focus stays on the board as it redraws.
  await ben.evaluate(() => document.activeElement?.blur());
  await tabTo(ben, (f) => !!f.square, 'the board');
  await arrowTo(ben, 'f6');
  await ben.keyboard.press('Enter');
  await arrowTo(ben, 'g5');
  await ben.keyboard.press('Enter');
  await waitMoves(ann, 2);
  assert.equal((await focused(ben)).square, 'g5', 'the focus stays where it was');

  // The move list: an ordered list whose lines are named.
  assert.match(await ann.locator('#moves').ariaSnapshot(), /- list "Moves":\n\s+- listitem "1\. White c3-d4, Black f6-g5"/);
  assert.match(await ben.locator('#moves').ariaSnapshot(), /- listitem "1\. Белые c3-d4, чёрные f6-g5"/);
  // The last move and the clocks are said politely; the status is a status.
  const live = ann.locator('#game-live');
  assert.equal(await live.getAttribute('aria-live'), 'polite');
  await ann.waitForFunction(() => /^Black: f6-g5\. Clocks: White \d+:\d\d, Black \d+:\d\d$/.test(document.querySelector('#game-live').textContent));
  assert.equal(await ann.getByRole('status').filter({ hasText: 'White to move' }).count(), 1);
  // Not every tenth: nothing more is said while the clock runs (above a minute).
  await ann.evaluate(() => {
    window.spoken = 0;
    new MutationObserver(() => { window.spoken += 1; }).observe(document.querySelector('#game-live'), { childList: true, characterData: true, subtree: true });
  });
  await ann.waitForTimeout(2500);
  assert.equal(await ann.evaluate(() => window.spoken), 0, 'the running clock is not read out each tick');
  assert.equal(await ann.locator('#moves[aria-live]').count(), 0, 'the whole list is not re-read at each move');

  // The game's buttons and the chat by keyboard: Tab to the chat field, type, Enter.
  await tabTo(ann, (f) => f.id === 'resign', 'resign');
  await tabTo(ann, (f) => f.id === 'chat-input', 'the chat');
  await ann.keyboard.type('typed with keys');
  await ann.keyboard.press('Enter');
  await ben.waitForSelector('#chat-lines li:has-text("typed with keys")');
  assert.equal(await ben.textContent('#chat-live[aria-live="polite"]'), 'Anna: typed with keys', 'the new line is said once');
  assert.equal(await ben.locator('#chat-lines[aria-live]').count(), 0, 'the chat is not re-read at each line');
  await shot(ann, 'a11y-keyboard-game');
  for (const p of [ann, ben]) assert.deepEqual(p.errors || [], []);
  for (const p of [ann, ben]) await p.context().close();
});

/** Every visible text's contrast against what is behind it, below the WCAG AA minimum. */
function lowContrast(page) {
  return page.evaluate(() => {
    const rgba = (s) => {
      const m = s.match(/rgba?\(([^)]+)\)/);
      if (!m) return [0, 0, 0, 0];
      const p = m[1].split(/[,\s/]+/).filter(Boolean).map(Number);
      return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    };
    const over = (top, under) => {
      const a = top[3];
      return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1);
    };
    const background = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const c = rgba(getComputedStyle(e).backgroundColor);
        if (c[3] > 0) layers.push(c);
        if (c[3] >= 1) break;
      }
      let bg = [255, 255, 255, 1];
      for (const l of layers.reverse()) bg = over(l, bg);
      return bg;
    };
    const lum = (c) => {
      const [r, g, b] = c.slice(0, 3).map((v) => {
        v /= 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const out = [];
    const seen = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const el = walker.currentNode.parentElement;
      if (!el || seen.has(el) || !walker.currentNode.textContent.trim()) continue;
      seen.add(el);
      if (el.closest('svg, script, style, [hidden], .sr-only, option, :disabled, .lost')) continue;
      if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
      let opacity = 1;
      for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
      const cs = getComputedStyle(el);
      const bg = background(el);
      const fg = over([...rgba(cs.color).slice(0, 3), rgba(cs.color)[3] * opacity], bg);
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      const size = parseFloat(cs.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${el.className} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)} (${cs.color} on rgb(${bg.slice(0, 3).map(Math.round)}))`);
    }
    return out;
  });
}

test('text contrast is at least WCAG AA in the light and the dark theme: text, links, buttons', async () => {
  const ann = await register(browser, srv.url, 'Clara', 'clara password one');
  const ben = await register(browser, srv.url, 'Denis', 'denis password one');
  await ann.fill('#create input[name=opponent]', ben.user.id);
  await ann.click('#create button[type=submit]');
  await ben.click('#challenges li button');
  await ann.waitForSelector('#board svg .pc');
  // A finished game: its result in the accent colour, the replay button.
  await ann.click('#resign');
  await ann.click('#resign');
  await ann.waitForSelector('#status.over');
  const game = ann.url();
  const pages = [['home', srv.url + '/', '#pools .pool'], ['game', game, '#status.over'], ['profile', srv.url + '/@/Clara', '#profile h1, main h1'], ['tournaments', srv.url + '/tournaments', '#tournament-list']];
  const found = [];
  for (const scheme of ['light', 'dark']) {
    await ben.emulateMedia({ colorScheme: scheme });
    for (const [name, url, ready] of pages) {
      await ben.goto(url);
      await ben.waitForSelector(ready);
      await ben.waitForLoadState('networkidle');
      // A link and a button of the page are among the texts checked.
      assert.ok(await ben.locator('a').count() > 0 && await ben.locator('button').count() > 0, name);
      for (const f of await lowContrast(ben)) found.push(`${scheme} ${name}: ${f}`);
      if (name !== 'tournaments') await shot(ben, `a11y-${scheme}-${name}`);
    }
  }
  assert.deepEqual(found, [], 'text below the WCAG AA contrast');
  for (const p of [ann, ben]) await p.context().close();
});

test('a moderator on node A deletes a line and times out a user whose browser is on node B', async () => {
  // Two nodes on one Redis (a prefix of this run's own) and one SQLite file; the
  // moderator is named by id (an account's id is its name in lower case).
  const prefix = `web-a11y-${process.pid}-${Date.now()}:`;
  const shared = {
    DAMKA_DATABASE__DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'damka-a11y-')),
    DAMKA_REDIS__URL: 'redis://127.0.0.1:6379',
    DAMKA_REDIS__PREFIX: prefix,
    DAMKA_CHAT__MODERATORS: '["warden"]',
  };
  const a = await startServer({ ...shared, DAMKA_NODE_ID: 'a11y-a' });
  const b = await startServer({ ...shared, DAMKA_NODE_ID: 'a11y-b' });
  try {
    for (const [name, pass] of [['Warden', 'warden password'], ['Ivan', 'ivan password one'], ['Petro', 'petro password one']]) await account(a.url, name, pass);
    const warden = await login(browser, a.url, 'Warden', 'warden password');
    const ivan = await login(browser, b.url, 'Ivan', 'ivan password one');
    const petro = await login(browser, b.url, 'Petro', 'petro password one');
    await ivan.fill('#create input[name=opponent]', petro.user.id);
    await ivan.click('#create button[type=submit]');
    await petro.click('#challenges li button');
    for (const p of [ivan, petro]) await p.waitForSelector('#board svg .pc');
    const id = new URL(ivan.url()).pathname.split('/').pop();
    const room = `game:${id}:spectator`;
    // The moderator watches the game from node A; the players use the spectators' room.
    await warden.goto(`${a.url}/game/${id}`);
    await warden.waitForSelector(`#chat .chat-tab[data-room="${room}"][aria-selected="true"]`);
    for (const p of [ivan, petro]) await p.click(`#chat .chat-tab[data-room="${room}"]`);
    const line = (p, text) => p.locator('#chat-lines li', { hasText: text });
    const say = async (p, text) => {
      await p.fill('#chat-input', text);
      await p.press('#chat-input', 'Enter');
    };
    await say(ivan, 'rude words');
    for (const p of [warden, petro, ivan]) await line(p, 'rude words').waitFor();
    await say(ivan, 'more rude words');
    for (const p of [warden, petro]) await line(p, 'more rude words').waitFor();
    // Deleted on node A: gone on both nodes' pages.
    await line(warden, 'rude words').first().locator('[data-act=delete]').click();
    for (const p of [warden, petro, ivan]) await p.waitForFunction(() => ![...document.querySelectorAll('#chat-lines .chat-text')].some((e) => e.textContent === 'rude words'));
    assert.equal(await line(petro, 'more rude words').count(), 1, 'only that line went');
    // Timed out from node A: node B tells Ivan, and refuses his next line.
    await line(warden, 'more rude words').locator('[data-act=timeout]').click();
    await ivan.waitForFunction(() => /timed you out/.test(document.querySelector('#chat-note').textContent));
    await petro.waitForFunction(() => /Ivan/.test(document.querySelector('#chat-note').textContent));
    await ivan.evaluate(() => { document.querySelector('#chat-note').textContent = ''; });
    await say(ivan, 'am I muted?');
    await ivan.waitForFunction(() => document.querySelector('#chat-note').textContent === 'A moderator timed you out of the chat for now.');
    await say(petro, 'Petro still talks');
    for (const p of [warden, ivan]) await line(p, 'Petro still talks').waitFor();
    for (const p of [warden, petro, ivan]) assert.equal(await line(p, 'am I muted?').count(), 0, 'the timed-out line reached nobody');
    await shot(ivan, 'a11y-chat-timed-out-node-b');
    await shot(warden, 'a11y-chat-moderator-node-a');
    for (const p of [warden, ivan, petro]) assert.deepEqual(p.errors || [], []);
    for (const p of [warden, ivan, petro]) await p.context().close();
  } finally {
    await a.stop();
    await b.stop();
    // The run's keys go with it: the prefix is this run's own.
    const drop = "for _, k in ipairs(redis.call('KEYS', ARGV[1] .. '*')) do redis.call('DEL', k) end return 1";
    execFileSync('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'EVAL', drop, '0', prefix]);
  }
});

test('the rounds give each game of a micro-match from the pair\'s viewpoint, as the IDF writes it', async () => {
  const org = await account(srv.url, 'orga', 'organiser password');
  const [eva, fil] = [await guest(browser, srv.url, 'Eva'), await guest(browser, srv.url, 'Fil')];
  const res = await fetch(`${srv.url}/api/tournaments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + org.token },
    body: JSON.stringify({
      name: 'Micro', variant: 'russian', time_control: '1+0', system: { kind: 'round_robin', cycles: 1 },
      players: [eva.user, fil.user], break_ms: 300, start: 'command',
    }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const tid = (await res.json()).summary.id;
  for (const p of [eva, fil]) {
    await p.goto(`${srv.url}/tournament/${tid}`);
    await p.waitForSelector('#tournament-withdraw');
  }
  const round = await fetch(`${srv.url}/api/tournaments/${tid}/rounds`, { method: 'POST', headers: { authorization: 'Bearer ' + org.token } });
  assert.equal(round.status, 202, await round.clone().text());
  // In each game White resigns: each player wins the game in which they have Black.
  let last = '';
  for (let k = 0; k < 2; k++) {
    for (const p of [eva, fil]) await p.waitForFunction((old) => /^\/game\//.test(location.pathname) && location.pathname !== old && document.querySelector('#board svg .pc'), last, { timeout: 20000 });
    last = new URL(eva.url()).pathname;
    const white = (await eva.evaluate(() => document.querySelector('#player-white').classList.contains('bottom'))) ? eva : fil;
    await white.waitForSelector('#resign');
    await white.click('#resign');
    await white.click('#resign');
    await eva.waitForSelector('#status.over', { timeout: 10000 });
  }
  await eva.goto(`${srv.url}/tournament/${tid}`);
  await eva.waitForSelector('#tournament-status:text("Finished")', { timeout: 15000 });
  const tour = await (await fetch(`${srv.url}/api/tournaments/${tid}`)).json();
  const m = tour.rounds[0].matches[0];
  assert.deepEqual(m.games.map((g) => g.result), ['black_win', 'black_win'], 'by the board: Black won both');
  const cross = await eva.$$eval('#crosstable tbody tr', (rows) => rows.map((r) => [...r.cells].slice(1).map((c) => c.textContent)));
  assert.deepEqual(cross, [['×', '1'], ['1', '×']], 'the crosstable: a drawn micro-match, a point each');
  const name = (seed) => tour.players[seed - 1].user.name;
  assert.equal(await eva.textContent('.round[data-round="1"] li'), `${name(m.white)} – ${name(m.black)}: 0-2, 2-0`);
  await shot(eva, 'a11y-tournament-micro-match');
  for (const p of [eva, fil]) await p.context().close();
});

test('the arena and the profile in Russian and Ukrainian, on a desktop and a 375 px phone: nothing cut off or sideways', async () => {
  const names = ['Oleksandra_Kovalenko', 'Bohdan-Khmelnytskyi'];
  const [ola, bog] = [await register(browser, srv.url, names[0], 'olena password one'), await register(browser, srv.url, names[1], 'bohdan password one')];
  const token = await ola.evaluate(() => JSON.parse(localStorage.getItem('damka.auth')).token);
  const res = await fetch(srv.url + '/api/arenas', {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
    body: JSON.stringify({ name: 'Вечірній бліц: кубок Києва та Одеси', variant: 'russian', time_control: '1+0', rated: true, starts_in_secs: 0, duration_secs: 1800, berserk: true }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const id = (await res.json()).id;
  for (const p of [ola, bog]) {
    await p.goto(`${srv.url}/arena/${id}`);
    await p.click('#arena-join');
  }
  // Paired; Bohdan pauses (no second game) and resigns: a rated game on both profiles.
  for (const p of [ola, bog]) await p.waitForSelector('#game #board svg .pc', { timeout: 20000 });
  await bog.click('#arena-pause-game');
  await bog.waitForSelector('#arena-pause-game', { state: 'detached' });
  await bog.click('#resign');
  await bog.click('#resign');
  await ola.waitForSelector('#status.over', { timeout: 10000 });
  for (const [device, options] of [['desktop', {}], ['phone', { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true }]]) {
    const page = await login(browser, srv.url, names[0], 'olena password one', options);
    const width = options.viewport ? 375 : 1200;
    for (const lang of ['ru', 'uk']) {
      await page.selectOption('#lang', lang);
      await page.waitForFunction((l) => document.documentElement.lang === l, lang);
      for (const [screen, href, ready] of [['arena', `/arena/${id}`, '#arena h1'], ['profile', `/@/${names[0]}`, '#games tbody tr']]) {
        await page.goto(srv.url + href);
        await page.waitForSelector(ready, { timeout: 10000 });
        await page.waitForLoadState('networkidle');
        await page.screenshot({ path: path.join(artefacts, `a11y-${screen}-${lang}-${device}.png`), fullPage: true });
        const wide = await page.evaluate(() => [document.documentElement.scrollWidth, ...[...document.querySelectorAll('body *')]
          .filter((e) => e.getBoundingClientRect().right > 376).slice(0, 5).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)]);
        assert.ok(wide[0] <= width, `${screen} ${lang} ${device} scrolls sideways: ${wide.join(', ')}`);
        // The players' names are whole: no element that shows one cuts it off.
        const cut = await page.evaluate((ns) => [...document.querySelectorAll('main *')].filter((e) => e.children.length === 0
          && ns.some((n) => e.textContent.includes(n)) && e.getClientRects().length && e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible')
          .map((e) => `${e.tagName} "${e.textContent}" ${e.scrollWidth}>${e.clientWidth}`), names);
        assert.deepEqual(cut, [], `${screen} ${lang} ${device}: names cut off`);
        // The arena's sheet and the profile's results meet the contrast minimum too.
        if (device === 'desktop' && lang === 'ru') {
          for (const scheme of ['dark', 'light']) {
            await page.emulateMedia({ colorScheme: scheme });
            assert.deepEqual(await lowContrast(page), [], `${screen} ${scheme}: text below the WCAG AA contrast`);
          }
        }
      }
    }
    assert.deepEqual(page.errors || [], []);
    await page.context().close();
  }
  for (const p of [ola, bog]) await p.context().close();
});
