// The client in Russian, Ukrainian and Macedonian through a real server and Chromium:
// the language switched from the header's selector redraws the page at once; every page
// a player sees (the lobby, a game, an arena, a tournament, a profile, the settings)
// then shows no English word of the client's tables; the settings and the language
// survive a reload and a new browser for the same account (and stay in a guest's
// browser); the first visit takes the browser's language; sounds follow the setting.
// Screenshots of the home page, a game, an arena and a profile in Russian and Ukrainian,
// at desktop size and on a 375 px phone, go to artefacts/ (look at them).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { LANGS, clickMove, guest, launch, newContext, register, shot, signedIn, startServer, waitMoves, wordTables } from './lib.js';

let srv;
let browser;
let olena;
let bob;
const ids = {};

/** Every word of the client's tables, per language. */
async function words() {
  const out = Object.fromEntries(LANGS.map((l) => [l, {}]));
  for (const w of Object.values(await wordTables())) for (const l of LANGS) Object.assign(out[l], w[l]);
  return out;
}

const forms = (w) => (typeof w === 'object' ? Object.values(w) : [w]).map(String);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The English pieces (the text between {variables}) that a page in `lang` must not
 * show: those of words whose translation differs and does not contain them. */
function englishPieces(all, lang) {
  const out = new Set();
  for (const [key, en] of Object.entries(all.en)) {
    const there = forms(all[lang][key] ?? '').join('\n');
    for (const form of forms(en)) {
      for (let piece of form.split(/\{\w+\}/)) {
        piece = piece.trim().replace(/^[\s·:,(–-]+|[\s·:,)–-]+$/g, '');
        if (/[A-Za-z]{2,}/.test(piece) && !there.includes(piece)) out.add(piece);
      }
    }
  }
  return [...out].map((p) => ({ piece: p, re: new RegExp(`(^|[^A-Za-z])${escape(p)}($|[^A-Za-z])`) }));
}

/** The text a player sees: visible text nodes, placeholders, chosen options. */
function visibleText(page) {
  return page.evaluate(() => {
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const n = walker.currentNode;
      const el = n.parentElement;
      if (!el || !n.textContent.trim() || el.closest('script, style, noscript, option, [hidden]')) continue;
      if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
      out.push(n.textContent.trim());
    }
    for (const i of document.querySelectorAll('input[placeholder]')) if (i.getClientRects().length) out.push(i.placeholder);
    for (const s of document.querySelectorAll('select')) if (s.getClientRects().length && s.selectedOptions[0]) out.push(s.selectedOptions[0].textContent.trim());
    return out;
  });
}

async function noEnglish(page, pieces, where) {
  const texts = await visibleText(page);
  const found = [];
  for (const text of texts) for (const { piece, re } of pieces) if (re.test(text)) found.push(`"${piece}" in "${text}"`);
  assert.deepEqual(found, [], `English left on ${where}`);
}

/** The pages of the walk: the address and what shows that it has drawn. */
const pages = () => [
  ['home', '/', '#pools .pool'],
  ['game', `/game/${ids.game}`, '#board svg .pc'],
  ['arena', `/arena/${ids.arena}`, '#arena h1'],
  ['tournament', `/tournament/${ids.tournament}`, '#tournament-standings'],
  ['profile', '/@/Olena', '#games tbody tr'],
  ['settings', '/settings', '#settings-board svg'],
];

async function open(page, href, ready) {
  await page.goto(srv.url + href);
  await page.waitForSelector(ready, { timeout: 10000 });
  // Lists and counts fetched after the first draw.
  await page.waitForLoadState('networkidle');
}

before(async () => {
  srv = await startServer({ DAMKA_TOURNAMENTS__ORGANISERS: '["orga"]' });
  browser = await launch();
  olena = await register(browser, srv.url, 'Olena', 'correct horse battery');
  bob = await register(browser, srv.url, 'Bohdan', 'staple battery horse');
  const token = await olena.evaluate(() => JSON.parse(localStorage.getItem('damka.auth')).token);
  /** Olena challenges Bohdan (White, 5+3), who accepts; one move each. */
  const game = async (rated) => {
    for (const p of [olena, bob]) {
      await p.click('.brand');
      await p.waitForSelector('#create');
    }
    await olena.fill('#create input[name=opponent]', bob.user.id);
    await olena.selectOption('#create select[name=color]', 'white');
    await olena.setChecked('#create #rated', rated);
    await olena.click('#create button[type=submit]');
    await bob.click('#challenges li button');
    await olena.waitForSelector('#board svg .pc');
    await bob.waitForSelector('#board svg .pc');
    await clickMove(olena, 'c3-d4');
    await waitMoves(bob, 1);
    await clickMove(bob, 'f6-g5');
    await waitMoves(olena, 2);
    return new URL(olena.url()).pathname.split('/').pop();
  };
  // A rated game Bohdan resigns (the profile has a rating and a game), then a casual
  // game that stays live for the walk.
  await game(true);
  await bob.click('#resign');
  await bob.click('#resign');
  await olena.waitForSelector('#status.over', { timeout: 10000 });
  ids.game = await game(false);
  // An arena Olena creates, starting in an hour.
  const post = (p, body, bearer) => fetch(srv.url + p, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + bearer }, body: JSON.stringify(body),
  });
  let res = await post('/api/arenas', { name: 'Кубок', variant: 'russian', time_control: '3+2', rated: true, starts_in_secs: 3600, duration_secs: 1800, berserk: true }, token);
  assert.equal(res.status, 201, await res.clone().text());
  ids.arena = (await res.json()).id;
  // A tournament an organiser enters both players in.
  res = await fetch(srv.url + '/api/account/register', {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'orga', password: 'organiser password' }),
  });
  const orga = (await res.json()).token;
  res = await post('/api/tournaments', {
    name: 'Кубок лиги', variant: 'russian', time_control: '5+3', system: { kind: 'round_robin', cycles: 1 },
    players: [olena.user, bob.user], start: 'command',
  }, orga);
  assert.equal(res.status, 201, await res.clone().text());
  ids.tournament = (await res.json()).summary.id;
});

after(async () => {
  if (browser) await browser.close();
  if (srv) await srv.stop();
});

test('every page in Russian, Ukrainian and Macedonian shows no English word of the client', async () => {
  const all = await words();
  await open(olena, `/game/${ids.game}`, '#board svg .pc');
  assert.equal(await olena.textContent('nav a[href="/arenas"]'), 'Arenas');
  for (const lang of ['ru', 'uk', 'mk']) {
    await open(olena, `/game/${ids.game}`, '#board svg .pc');
    // Switched on the page: the header and the game redraw at once, without a reload.
    await olena.evaluate(() => { window.sameDocument = true; });
    await olena.selectOption('#lang', lang);
    // Both: a word may be the same in two languages (uk and mk say "Арени").
    await olena.waitForFunction(([w, l]) => document.documentElement.lang === l
      && document.querySelector('nav a[href="/arenas"]').textContent === w, [all[lang]['nav.arenas'], lang]);
    assert.equal(await olena.evaluate(() => window.sameDocument), true, 'no reload');
    assert.equal(await olena.evaluate(() => document.documentElement.lang), lang);
    assert.match(await olena.textContent('#status'), new RegExp(escape(all[lang]['game.to_move_white'])));
    const pieces = englishPieces(all, lang);
    assert.ok(pieces.length > 200, `English words to look for: ${pieces.length}`);
    for (const [name, href, ready] of pages()) {
      await open(olena, href, ready);
      await noEnglish(olena, pieces, `${lang} ${name}`);
      if (lang !== 'mk' && name !== 'settings' && name !== 'tournament') await shot(olena, `lang-${lang}-${name}`);
    }
  }
  assert.deepEqual(olena.errors || [], []);
});

test('on a 375 px phone, in Russian and Ukrainian: nothing scrolls sideways and both clocks stay on screen', async () => {
  const context = await newContext(browser, { viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
  const phone = await context.newPage();
  phone.on('pageerror', (e) => { phone.errors = [...(phone.errors || []), e]; });
  await phone.goto(srv.url + '/');
  await phone.fill('#username', 'Olena');
  await phone.fill('#password', 'correct horse battery');
  await phone.click('#login');
  await signedIn(phone, 'Olena');
  for (const lang of ['ru', 'uk']) {
    await phone.selectOption('#lang', lang);
    for (const [name, href, ready] of pages().filter(([n]) => ['home', 'game', 'arena', 'profile'].includes(n))) {
      await open(phone, href, ready);
      const width = await phone.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 375, `${lang} ${name} scrolls sideways: ${width}px`);
      if (name === 'game') {
        for (const c of ['white', 'black']) {
          const box = await phone.locator(`#clock-${c}`).boundingBox();
          assert.ok(box && box.y >= 0 && box.y + box.height <= 667, `${lang}: the ${c} clock is on screen (${JSON.stringify(box)})`);
        }
      }
      await shot(phone, `lang-${lang}-${name}-phone`);
    }
  }
  assert.deepEqual(phone.errors || [], []);
  await context.close();
});

test('settings and language survive a reload and a new browser for the same account, and stay in a guest\'s browser', async () => {
  await open(olena, '/settings', '#settings-board svg');
  await olena.selectOption('#pref-language', 'uk');
  await olena.waitForFunction(() => document.documentElement.lang === 'uk');
  await olena.selectOption('#pref-board', 'green');
  await olena.selectOption('#pref-pieces', 'classic');
  await olena.uncheck('#pref-coordinates');
  await olena.uncheck('#pref-confirm_resign');
  await olena.waitForFunction(() => /обліковому/.test(document.querySelector('#settings-status').textContent));
  // The preview shows the choice at once: classic men, no coordinates.
  await olena.waitForSelector('#settings-board svg.set-classic');
  assert.equal(await olena.locator('#settings-board .coord').count(), 0);
  const check = async (page) => {
    await open(page, '/settings', '#settings-board svg.set-classic');
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'uk');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.board), 'green');
    assert.equal(await page.inputValue('#lang'), 'uk');
    assert.equal(await page.inputValue('#pref-pieces'), 'classic');
    assert.equal(await page.isChecked('#pref-coordinates'), false);
    assert.equal(await page.isChecked('#pref-confirm_resign'), false);
    assert.equal(await page.isChecked('#pref-sound'), true);
    assert.equal(await page.textContent('#nav-settings'), 'Налаштування');
  };
  await olena.reload();
  await check(olena);
  // A new browser, English by its languages, logs in: the account's settings arrive.
  const context = await newContext(browser);
  const fresh = await context.newPage();
  await fresh.goto(srv.url + '/');
  assert.equal(await fresh.evaluate(() => document.documentElement.lang), 'en');
  await fresh.fill('#username', 'Olena');
  await fresh.fill('#password', 'correct horse battery');
  await fresh.click('#login');
  await fresh.waitForFunction(() => document.documentElement.lang === 'uk', null, { timeout: 10000 });
  await check(fresh);
  // Without the resign confirmation, one click resigns the game.
  await open(fresh, `/game/${ids.game}`, '#resign');
  await fresh.click('#resign');
  await fresh.waitForSelector('#status.over', { timeout: 10000 });
  assert.match(await fresh.textContent('#status'), /^0-2 · Чорні виграли · здача/);
  await context.close();
  // A guest's settings stay in the guest's browser.
  const visitor = await guest(browser, srv.url, 'Visitor');
  await open(visitor, '/settings', '#settings-board svg');
  await visitor.selectOption('#pref-board', 'blue');
  await visitor.waitForFunction(() => document.querySelector('#settings-status').textContent.length > 0);
  assert.equal(await visitor.textContent('#settings-status'), 'Saved in this browser.');
  await visitor.reload();
  await visitor.waitForSelector('#settings-board svg');
  assert.equal(await visitor.inputValue('#pref-board'), 'blue');
  assert.equal(await visitor.evaluate(() => document.documentElement.dataset.board), 'blue');
  await visitor.context().close();
});

test('a language chosen while the account\'s settings are still on their way at login stays chosen', async () => {
  const first = await register(browser, srv.url, 'Taras', 'taras password one');
  const put = first.waitForResponse((r) => r.url().endsWith('/api/account/preferences') && r.request().method() === 'PUT');
  await first.selectOption('#lang', 'uk');
  assert.equal((await put).status(), 200);
  await first.context().close();
  // A new browser logs in; the account's settings (Ukrainian) are read but their answer
  // is held back until the player has picked Russian in the header.
  const context = await newContext(browser);
  const page = await context.newPage();
  let release;
  const held = new Promise((r) => { release = r; });
  let gets = 0;
  await page.route('**/api/account/preferences', async (route) => {
    if (route.request().method() !== 'GET' || ++gets > 1) return route.continue();
    const answer = await route.fetch();
    await held;
    await route.fulfill({ response: answer });
  });
  await page.goto(srv.url + '/');
  await page.fill('#username', 'Taras');
  await page.fill('#password', 'taras password one');
  await page.click('#login');
  await signedIn(page, 'Taras');
  const saved = page.waitForResponse((r) => r.url().endsWith('/api/account/preferences') && r.request().method() === 'PUT');
  await page.selectOption('#lang', 'ru');
  await page.waitForFunction(() => document.documentElement.lang === 'ru');
  assert.equal((await saved).status(), 200);
  const late = page.waitForEvent('requestfinished', (r) => r.url().endsWith('/api/account/preferences') && r.method() === 'GET');
  release();
  await late;
  // Applying an answer loads its language's words first: let those requests end.
  await page.waitForLoadState('networkidle');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'ru', 'the older answer undid the choice');
  assert.equal(await page.inputValue('#lang'), 'ru');
  await page.reload();
  await page.waitForSelector('#pools .pool');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'ru');
  await context.close();
});

test('at the first visit the language is the browser\'s when the client speaks it, else English', async () => {
  const all = await words();
  for (const [locale, lang] of [['uk-UA', 'uk'], ['mk-MK', 'mk'], ['ru-RU', 'ru'], ['de-DE', 'en']]) {
    const context = await newContext(browser, { locale });
    const page = await context.newPage();
    await open(page, '/', '#play-guest');
    assert.equal(await page.evaluate(() => document.documentElement.lang), lang, locale);
    assert.equal(await page.textContent('#play-guest'), all[lang]['signin.play_guest']);
    if (lang !== 'en') await noEnglish(page, englishPieces(all, lang), `${lang} sign-in`);
    // A guest named from this page plays in the same language.
    if (lang === 'ru') {
      await page.fill('#guest-name', 'Гость');
      await page.click('#play-guest');
      await signedIn(page, 'Гость');
      await page.waitForLoadState('networkidle');
      await noEnglish(page, englishPieces(all, lang), 'ru guest lobby');
    }
    await context.close();
  }
});

test('sound follows the setting: a game\'s start and moves sound, and nothing once sound is off', async () => {
  // Every tone the page starts is counted by wrapping the Web Audio oscillator.
  const player = async (name) => {
    const context = await newContext(browser);
    await context.addInitScript(() => {
      window.tones = [];
      const start = OscillatorNode.prototype.start;
      OscillatorNode.prototype.start = function (...a) {
        window.tones.push(this.frequency.value);
        return start.apply(this, a);
      };
    });
    const page = await context.newPage();
    await open(page, '/', '#play-guest');
    await page.fill('#guest-name', name);
    await page.click('#play-guest');
    await signedIn(page, name);
    return page;
  };
  const [ana, ivo] = [await player('Ana'), await player('Ivo')];
  const tones = (p) => p.evaluate(() => window.tones.length);
  await ana.fill('#create input[name=opponent]', ivo.user.id);
  await ana.selectOption('#create select[name=color]', 'white');
  await ana.click('#create button[type=submit]');
  await ivo.click('#challenges li button');
  await ana.waitForSelector('#board svg .pc');
  await ivo.waitForSelector('#board svg .pc');
  assert.equal(await tones(ivo), 3, 'the start: three notes');
  await clickMove(ana, 'c3-d4');
  await waitMoves(ivo, 1);
  await ivo.waitForFunction(() => window.tones.length === 4);
  assert.equal(await ivo.evaluate(() => window.tones[3]), 440, 'a move');
  // Ivo turns sound off in another tab of the same browser (a guest's settings are the
  // browser's; the game's tab follows at once) and hears nothing of the next moves.
  const settings = await ivo.context().newPage();
  await open(settings, '/settings', '#pref-sound');
  await settings.uncheck('#pref-sound');
  await ivo.waitForFunction(() => document.documentElement.dataset.sound === 'off');
  await clickMove(ivo, 'f6-g5');
  await waitMoves(ana, 2);
  await clickMove(ana, 'g3-f4');
  await waitMoves(ivo, 3);
  assert.equal(await tones(ivo), 4, 'no tone with sound off');
  assert.ok(await tones(ana) >= 5, 'the other player still hears');
  await ana.context().close();
  await ivo.context().close();
});

test('a game drawn by a rule names the rule in the player\'s language', async () => {
  const player = async (name) => {
    const context = await newContext(browser, { locale: 'ru-RU' });
    const page = await context.newPage();
    await open(page, '/', '#play-guest');
    await page.fill('#guest-name', name);
    await page.click('#play-guest');
    await signedIn(page, name);
    return page;
  };
  const [white, black] = [await player('Vera'), await player('Lev')];
  await white.selectOption('#create select[name=variant]', 'chess');
  await white.fill('#create input[name=opponent]', black.user.id);
  await white.selectOption('#create select[name=color]', 'white');
  await white.click('#create button[type=submit]');
  await black.click('#challenges li button');
  await white.waitForSelector('#board svg[data-variant="chess"]');
  await black.waitForSelector('#board svg[data-variant="chess"]');
  const knights = ['g1f3', 'g8f6', 'f3g1', 'f6g8'];
  for (const [i, mv] of [...knights, ...knights].entries()) {
    await clickMove(i % 2 === 0 ? white : black, mv, true);
    await waitMoves(white, i + 1);
    await waitMoves(black, i + 1);
  }
  // The start position for the third time: White claims the draw.
  await white.click('#claim-draw');
  await black.waitForSelector('#status.over', { timeout: 10000 });
  assert.equal(await black.textContent('#status'), '½-½ · Ничья · повторение позиции (FIDE 9.2 (троекратное повторение позиции))');
  await white.context().close();
  await black.context().close();
});
