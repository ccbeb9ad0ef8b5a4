// Cold load of the home page: bytes (gzip, as the server sends them) and the times to
// the lobby on screen (`#pools .pool`) and, when the page draws live games, to its first
// small board (the `damka:first-board` mark board.js sets). A live Russian game is started first so that there
// is a board to show. Medians of RUNS (default 7) cold loads, each in a new browser
// context (empty cache) with a guest token in local storage. Usage:
// WEB_TEST_BIN=.../damka node home-coldload.mjs
import { launch, guest, startServer } from './lib.js';

const srv = await startServer();
const browser = await launch();
const a = await guest(browser, srv.url, 'Ann');
const b = await guest(browser, srv.url, 'Bob');
await a.fill('#create input[name=opponent]', b.user.id);
await a.click('#create button[type=submit]');
await b.click('#challenges button:text("Accept")');
await a.waitForSelector('#board svg');
const auth = await b.evaluate(() => localStorage.getItem('damka.auth'));
const runs = [];
for (let i = 0; i < Number(process.env.RUNS || 7); i++) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
  await context.addInitScript((x) => localStorage.setItem('damka.auth', x), auth);
  const page = await context.newPage();
  await page.goto(`${srv.url}/`);
  await page.waitForSelector('#pools .pool');
  const lobbyMs = await page.evaluate(() => performance.now());
  const board = await page.waitForFunction(() => performance.getEntriesByName('damka:first-board').length > 0, null, { timeout: 5000 }).then(() => true, () => false);
  runs.push(await page.evaluate(([lobby, hasBoard]) => {
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource');
    return {
      transfer: nav.transferSize + res.reduce((s, r) => s + r.transferSize, 0),
      requests: 1 + res.length,
      domContentLoaded: nav.domContentLoadedEventEnd,
      lobby,
      firstBoard: hasBoard ? performance.getEntriesByName('damka:first-board')[0].startTime : null,
    };
  }, [lobbyMs, board]));
  await context.close();
}
const median = (k) => { const v = runs.map((r) => r[k]).filter((x) => x !== null).sort((x, y) => x - y); return v.length ? Math.round(v[Math.floor(v.length / 2)]) : null; };
console.log(JSON.stringify({ runs: runs.length, transfer_bytes: median('transfer'), requests: median('requests'), dom_content_loaded_ms: median('domContentLoaded'), lobby_ms: median('lobby'), first_board_ms: median('firstBoard') }));
await browser.close();
await srv.stop();
