// Chat in a real browser against a real server: two players talk in their room and a
// spectator in the spectators' room; markup in a line shows as the characters typed and
// never runs; a guest reads but cannot write, block or report; a muted room shows
// nothing and a blocked user's lines are not shown (nor delivered), nor their challenge
// received; lines come back after a reload.
// Screenshots go to artefacts/ (look at them).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { guest, launch, register, shot, startServer, toastAfter } from './lib.js';

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

/** The texts of the chat lines the page shows. */
const shown = (page) => page.evaluate(() => [...document.querySelectorAll('#chat-lines li .chat-text')].map((e) => e.textContent));

/** Waits until the page shows a line of exactly `text`. */
const sees = (page, text) => page.waitForFunction((t) => [...document.querySelectorAll('#chat-lines li .chat-text')].some((e) => e.textContent === t), text, { timeout: 10000 });

async function say(page, text) {
  await page.fill('#chat-input', text);
  await page.press('#chat-input', 'Enter');
}

const tab = (page, room) => page.click(`#chat .chat-tab[data-room="${room}"]`);

test('players and a spectator chat; markup stays text; a guest reads only; mute and block hide lines', async () => {
  const ann = await register(browser, srv.url, 'ann', 'ann password one');
  const ben = await register(browser, srv.url, 'ben', 'ben password one');
  const cat = await register(browser, srv.url, 'cat', 'cat password one');
  const dan = await guest(browser, srv.url, 'Dan');

  // Ann challenges Ben; both land on the game, each with the players' and spectators' tabs.
  await ann.waitForSelector('#create');
  await ann.fill('#create input[name=opponent]', ben.user.id);
  await ann.click('#create button[type=submit]');
  await ben.click('#challenges button:text("Accept")');
  for (const p of [ann, ben]) await p.waitForSelector('#game #board svg');
  const id = gameId(ann);
  assert.equal(gameId(ben), id);
  const players = `game:${id}:player`;
  const spectators = `game:${id}:spectator`;
  for (const p of [ann, ben]) {
    await p.waitForSelector(`#chat .chat-tab[data-room="${players}"][aria-selected="true"]`);
    await p.waitForSelector(`#chat .chat-tab[data-room="${spectators}"]`);
  }

  const hostile = 'Good luck, <b>Ben</b> <img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';
  await say(ann, hostile);
  await sees(ben, hostile);
  await sees(ann, hostile);
  assert.equal(await ben.evaluate(() => window.pwned), undefined, 'the markup did not run');
  assert.equal(await ben.locator('#chat-lines .chat-text b, #chat-lines img, #chat-lines script').count(), 0, 'no element was made of it');
  await say(ben, 'Спасибо, и тебе удачи!');
  await sees(ann, 'Спасибо, и тебе удачи!');

  // The spectators: Cat writes, Dan (a guest) reads only; neither sees the players' room.
  for (const p of [cat, dan]) {
    await p.goto(`${srv.url}/game/${id}`);
    await p.waitForSelector(`#chat .chat-tab[data-room="${spectators}"][aria-selected="true"]`);
    assert.equal(await p.locator(`#chat .chat-tab[data-room="${players}"]`).count(), 0);
  }
  await dan.waitForSelector('#chat-note:text("Guests can read the chat")');
  assert.equal(await dan.isVisible('#chat-input'), false, 'a guest has no line field');
  await say(cat, 'Nice opening');
  await sees(dan, 'Nice opening');
  assert.equal(await dan.locator('#chat-lines [data-act]').count(), 0, 'a guest neither blocks nor reports (the server refuses both)');
  assert.equal(await cat.locator('#chat-lines [data-act]').count(), 0, 'nobody blocks or reports themselves');
  assert.deepEqual(await shown(cat), ['Nice opening'], 'the players\' lines stay theirs');
  await tab(ann, spectators);
  await sees(ann, 'Nice opening');
  await tab(ben, spectators);
  await sees(ben, 'Nice opening');
  await shot(ben, 'chat-game-spectators');

  // Ben blocks Cat: Cat's lines go from his screen and new ones never reach him.
  await ben.click(`#chat-lines li[data-user="${cat.user.id}"] [data-act=block]`);
  await ben.waitForFunction(() => document.querySelectorAll('#chat-lines li').length === 0);
  await say(cat, 'can Ben hear me?');
  await sees(ann, 'can Ben hear me?');
  await sees(dan, 'can Ben hear me?');
  await say(ann, 'Ann to the spectators');
  await sees(ben, 'Ann to the spectators');
  assert.deepEqual(await shown(ben), ['Ann to the spectators'], 'nothing of Cat\'s reached Ben');
  // A challenge from Cat to Ben is refused: he blocks her.
  await cat.click('.brand');
  await cat.waitForSelector('#create');
  await cat.fill('#create input[name=opponent]', ben.user.id);
  assert.equal(await toastAfter(cat, () => cat.click('#create button[type=submit]')), 'This player does not take challenges from you.');
  assert.equal(await ben.locator('#challenges button:text("Accept")').count(), 0);

  // Ann mutes the players' room: Ben's next line is not shown until she unmutes it.
  await tab(ann, players);
  await ann.click('#chat-mute');
  await ann.waitForSelector('#chat-lines', { state: 'hidden' });
  await tab(ben, players);
  await say(ben, 'are you there?');
  await sees(ben, 'are you there?');
  assert.equal(await ann.isVisible('#chat-lines'), false);
  await shot(ann, 'chat-game-muted');
  await ann.click('#chat-mute');
  await sees(ann, 'are you there?');

  // A reload: the lines come back from the server, in order.
  await ben.reload();
  await ben.waitForSelector(`#chat .chat-tab[data-room="${players}"]`);
  await sees(ben, 'are you there?');
  assert.deepEqual(await shown(ben), [hostile, 'Спасибо, и тебе удачи!', 'are you there?']);
  await shot(ben, 'chat-game-players');
  await shot(dan, 'chat-game-guest');
  for (const p of [ann, ben, cat, dan]) assert.deepEqual(p.errors || [], []);
});
