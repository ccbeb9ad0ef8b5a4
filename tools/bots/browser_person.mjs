// A person in a real browser against a bot (docs/bots.md, "A person in the browser
// against lichess-bot"): Debian's Chromium through playwright-core (web/tests/node_modules)
// signs in on damka's home page, challenges the bot from the create form, and plays until
// the game ends by clicking the board: a movable piece of its own picked at random, then
// one of the squares the board offers for it (a capture when one is offered, a queen when
// a pawn promotes). Once the bot's hello shows in the players' chat it sends `!help` (a
// lichess-bot command) there. Screenshots at the start and at the end; the chat lines of
// both rooms (the bot's greetings and answer) and the result are printed as JSON lines.
//
// Usage: node tools/bots/browser_person.mjs URL USERNAME PASSWORD BOT [VARIANT] [CLOCK] [OUTDIR]
//        e.g. node tools/bots/browser_person.mjs http://127.0.0.1:18091 HumanHal 'correct horse battery' SfAlpha chess 3+2 /tmp/shots

import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.resolve(here, '../../web/tests/package.json'));
const { chromium } = require('playwright-core');

const [url, username, password, bot, variant = 'chess', clock = '3+2', outdir = '.'] = process.argv.slice(2);
if (!bot) {
  console.error('usage: browser_person.mjs URL USERNAME PASSWORD BOT [VARIANT] [CLOCK] [OUTDIR]');
  process.exit(2);
}
mkdirSync(outdir, { recursive: true });

const report = (value) => console.log(JSON.stringify(value));
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const pick = (list) => list[Math.floor(Math.random() * list.length)];

/**
 * Signs in through the home page's account card. A visitor is a guest at once (the
 * lobby shows before signing in): the home page is drawn anew once the account's session
 * is welcomed, and the create form is filled only then.
 */
async function signIn(page) {
  await page.goto(url + '/');
  await page.fill('#username', username);
  await page.fill('#password', password);
  await page.click('#login');
  await page.waitForSelector('#tokens-link');
  await page.waitForFunction((id) => document.querySelector('#challenges')?.textContent.includes(id), username.toLowerCase());
  await page.waitForSelector('#pools .pool');
}

/** Challenges the bot from the create form; waits until the game is on screen. */
async function challenge(page) {
  const answer = await fetch(`${url}/api/user/${encodeURIComponent(bot)}`);
  if (!answer.ok) throw new Error(`no user ${bot}: ${answer.status}`);
  const { id } = await answer.json();
  await page.waitForSelector('#create');
  await page.selectOption('#create select[name=variant]', variant);
  await page.selectOption('#create select[name=time_control]', clock);
  await page.selectOption('#create select[name=color]', 'random');
  await page.fill('#create input[name=opponent]', id);
  await page.click('#create button[type=submit]');
  report({ challenged: bot, id, variant, clock });
  await page.waitForSelector(`#game[data-game] #board svg[data-variant="${variant}"]`, { timeout: 60000 });
  return new URL(page.url()).pathname.split('/').pop();
}

/** One move by clicks, if it is our turn: false when there is nothing to play. */
async function playOne(page) {
  const origins = await page.$$eval('#board g.pc.movable', (g) => g.map((x) => x.dataset.piece));
  if (!origins.length) return false;
  const from = pick(origins);
  await page.click(`#board [data-square="${from}"]`);
  const targets = await page.$$eval('#board [data-target]', (t) => t.map((x) => x.dataset.target));
  if (!targets.length) return true;
  const pieces = await page.$$eval('#board g.pc', (g) => g.map((x) => x.dataset.piece));
  const captures = targets.filter((t) => pieces.includes(t));
  await page.click(`#board [data-square="${pick(captures.length ? captures : targets)}"]`);
  const promotion = await page.$$('#board .promo-choice');
  if (promotion.length) {
    const queen = await page.$('#board .promo-choice[data-move$="q"]');
    await (queen || promotion[0]).dispatchEvent('pointerup');
  }
  return true;
}

/** The lines of each chat room of the game the page shows (each tab in turn). */
async function chat(page) {
  const rooms = {};
  for (const room of await page.$$eval('#chat .chat-tab', (t) => t.map((x) => x.dataset.room))) {
    await page.click(`#chat .chat-tab[data-room="${room}"]`);
    await pause(300);
    rooms[room] = await page.$$eval('#chat-lines li', (lines) => lines.map((li) => `${li.querySelector('.chat-name').textContent}: ${li.querySelector('.chat-text').textContent}`));
  }
  return rooms;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-dev-shm-usage'],
});
try {
  const page = await (await browser.newContext({ viewport: { width: 1200, height: 860 } })).newPage();
  page.on('pageerror', (e) => report({ pageerror: String(e) }));
  await signIn(page);
  const game = await challenge(page);
  const me = await page.evaluate(() => (document.querySelector('#player-white').classList.contains('bottom') ? 'white' : 'black'));
  report({ game, me });
  await page.screenshot({ path: path.join(outdir, `browser-${game}-start.png`) });
  let clicks = 0;
  let asked = false;
  while (!(await page.$('#status.over'))) {
    // A think of a second or so, as a person's, then a move if it is ours.
    await pause(700 + Math.random() * 800);
    if (await page.$('#status.over')) break;
    // The bot says hello when it first moves: the person answers with one of its
    // commands, in the players' room.
    const hello = await page.$eval('#chat-lines', (l) => l.querySelector('li .chat-text')?.textContent || null);
    if (hello && !asked) {
      asked = true;
      report({ hello, ply: (await page.$$('#moves .mv')).length });
      await page.fill('#chat-input', '!help');
      await page.press('#chat-input', 'Enter');
    }
    if (await playOne(page)) clicks++;
  }
  // The bot's goodbye comes after the end.
  await pause(3000);
  const moves = await page.$$eval('#moves .mv', (m) => m.map((x) => x.textContent));
  report({ game, result: await page.textContent('#status'), plies: moves.length, moves: moves.join(' '), turnsPlayed: clicks });
  report({ chat: await chat(page) });
  await page.click('#chat .chat-tab:first-child');
  await page.screenshot({ path: path.join(outdir, `browser-${game}-end.png`) });
} finally {
  await browser.close();
}
