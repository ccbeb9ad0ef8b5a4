// The API tokens page in a real browser against a real server: a registered player
// makes a token with a description and two scopes, sees its secret once and the token
// listed, the token works on the API; revoked from the page, the API refuses it.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { launch, register, shot, startServer } from './lib.js';

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

const account = (token) => fetch(srv.url + '/api/account', { headers: { authorization: 'Bearer ' + token } });

test('a token is made, listed, used and revoked from the tokens page', async () => {
  const page = await register(browser, srv.url, 'Tokia', 'correct horse battery');
  await page.click('#tokens-link');
  await page.waitForSelector('#tokens-none');
  // No scope chosen: refused in the page, nothing made.
  await page.fill('#token-description', 'my board app');
  await page.click('#token-create');
  await page.waitForSelector('#tokens .error');
  await page.check('input[name=scope][value="board:play"]');
  await page.check('input[name=scope][value="preference:read"]');
  await page.click('#token-create');
  await page.waitForSelector('#token-secret');
  const secret = await page.inputValue('#token-secret');
  assert.match(secret, /^dmk_[0-9A-Za-z]{32}$/);
  const row = page.locator('#tokens-list tbody tr');
  assert.equal(await row.count(), 1);
  assert.equal(await row.locator('.token-description').textContent(), 'my board app');
  assert.match(await row.textContent(), /board:play, preference:read/);
  assert.doesNotMatch(await page.locator('#tokens-list').textContent(), new RegExp(secret), 'the list never shows a secret');
  const res = await account(secret);
  assert.equal(res.status, 200);
  assert.equal((await res.json()).username, 'Tokia');
  await shot(page, 'tokens-created');

  // Revoked from the page: listed as revoked, refused by the API.
  page.once('dialog', (d) => d.accept());
  await row.locator('button.revoke').click();
  await page.waitForSelector('#tokens-list tr.revoked');
  assert.equal(await page.locator('#tokens-list button.revoke').count(), 0);
  const refused = await account(secret);
  assert.equal(refused.status, 401);
  assert.match((await refused.json()).message, /revoked/);

  // The page speaks the player's language, chosen in the header.
  await page.selectOption('#lang', 'ru');
  await page.waitForFunction(() => /API-токены/.test(document.querySelector('#tokens h1').textContent));
  assert.match(await page.locator('#tokens h1').first().textContent(), /API-токены/);
  assert.match(await page.locator('#tokens-list .token-status').textContent(), /отозван/);
  assert.deepEqual(page.errors || [], []);
});
