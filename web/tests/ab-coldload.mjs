// A/B cold load of the game page, in one session: the same server, browser and machine
// load, alternating between two client trees served by Playwright's routing (old: a
// directory given as OLD_APP; new: web/app/). Uncompressed on both sides, so only the
// time to the first board compares; bytes come from the real test (`cold load` in
// web.test.js, gzip as the server sends it). Usage: OLD_APP=/tmp/oldapp node ab-coldload.mjs
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { guest, root, startServer } from './lib.js';

const MIME = { js: 'text/javascript', css: 'text/css', svg: 'image/svg+xml', html: 'text/html' };
const trees = { old: process.env.OLD_APP, new: path.join(root, 'web/app') };
const srv = await startServer();
// A document fulfilled by routing has no address space: let its WebSocket reach loopback.
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-features=LocalNetworkAccessChecks'],
});
const a = await guest(browser, srv.url, 'Ann');
const b = await guest(browser, srv.url, 'Bob');
await a.fill('#create input[name=opponent]', b.user.id);
await a.click('#create button[type=submit]');
await b.click('#challenges button:text("Accept")');
await a.waitForSelector('#board svg');
const id = new URL(a.url()).pathname.split('/').pop();
const auth = await a.evaluate(() => localStorage.getItem('damka.auth'));
const times = { old: [], new: [] };
for (let i = 0; i < Number(process.env.AB_RUNS || 30); i++) {
  const which = i % 2 ? 'new' : 'old';
  const dir = trees[which];
  const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
  await context.addInitScript((x) => localStorage.setItem('damka.auth', x), auth);
  await context.route(/\/game\/[A-Za-z0-9_-]+$/, (r) => r.fulfill({ body: readFileSync(path.join(dir, 'index.html'), 'utf8').replaceAll('{{BUILD}}', which), contentType: MIME.html }));
  await context.route(/\/assets\/(old|new)\/(words\/)?[a-z]+\.(js|css|svg)$/, (r) => {
    const file = new URL(r.request().url()).pathname.split('/').slice(3).join('/');
    r.fulfill({ body: readFileSync(path.join(dir, file)), contentType: MIME[file.split('.').pop()] });
  });
  const page = await context.newPage();
  if (process.env.AB_DEBUG) { page.on('console', (m) => console.log(which, m.text())); page.on('pageerror', (e) => console.log(which, 'error', e.message)); page.on('requestfailed', (r) => console.log(which, 'failed', r.url())); page.on('response', (r) => console.log(which, r.status(), r.url())); }
  await page.goto(`${srv.url}/game/${id}`);
  await page.waitForFunction(() => performance.getEntriesByName('damka:first-board').length > 0);
  times[which].push(await page.evaluate(() => performance.getEntriesByName('damka:first-board')[0].startTime));
  await context.close();
}
const median = (v) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)];
console.log(JSON.stringify({ old_first_board_ms: Math.round(median(times.old)), new_first_board_ms: Math.round(median(times.new)), ratio: +(median(times.new) / median(times.old)).toFixed(2), times }));
await browser.close();
await srv.stop();
