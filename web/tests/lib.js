// Helpers for the browser tests: a real damka server on a free port, Debian's Chromium
// through playwright-core, signed-in players, moves made by clicking squares; the
// client's word tables as its files hold them.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const artefacts = path.join(here, 'artefacts');
mkdirSync(artefacts, { recursive: true });

/** The client's languages, as web/app/words/ has a directory for each. */
export const LANGS = ['en', 'ru', 'uk', 'mk'];

/**
 * The client's words as its files hold them, `{ <module>: { en: {...}, ru, uk, mk } }`,
 * read from web/app/words/<lang>/<module>.js: a module whose file is missing in a
 * language has no table in that language.
 */
export async function wordTables() {
  const out = {};
  for (const lang of LANGS) {
    const dir = path.join(root, 'web/app/words', lang);
    for (const f of existsSync(dir) ? readdirSync(dir).filter((x) => x.endsWith('.js')) : []) {
      const module = f.slice(0, -3);
      out[module] = out[module] || {};
      out[module][lang] = (await import(pathToFileURL(path.join(dir, f)))).default;
    }
  }
  return out;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** The environment without DAMKA_* settings of the caller: the server gets defaults. */
function serverEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DAMKA_')));
}

/** SIGTERM, then SIGKILL if the server is still waiting for its live games to end. */
function stop(child) {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 2000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Starts the damka binary (WEB_TEST_BIN, else target/debug/damka) on a free port. */
export async function startServer(env = {}) {
  const bin = process.env.WEB_TEST_BIN || path.join(root, 'target/debug/damka');
  if (!existsSync(bin)) throw new Error(`no damka binary at ${bin}: run cargo build -p damka first`);
  const port = await freePort();
  const child = spawn(bin, [], {
    cwd: root,
    env: {
      ...serverEnv(),
      DAMKA_LISTEN: `127.0.0.1:${port}`,
      // A fresh SQLite archive for every run.
      DAMKA_DATABASE__DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'damka-web-')),
      RUST_LOG: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.on('data', (d) => { log += d; });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(url + '/healthz');
      if (r.ok) return { url, port, child, log: () => log, stop: () => stop(child) };
    } catch (_) {
      /* not up yet */
    }
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error('damka did not start: ' + log);
}

export async function launch() {
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

const MIME = { js: 'text/javascript', css: 'text/css', svg: 'image/svg+xml' };

/**
 * A browser context. With WEB_TEST_LIVE_APP=1 its pages load the client's files from
 * web/app/ on disk instead of the binary's embedded copy: a developer's shortcut to try
 * a client change without rebuilding the server (the runner never sets it).
 */
export async function newContext(browser, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 860 }, ...options });
  if (process.env.WEB_TEST_LIVE_APP === '1') {
    await context.route(/\/assets\/[^/]+\/(words\/[a-z]+\/)?[a-z]+\.(js|css|svg)$/, (route) => {
      const file = new URL(route.request().url()).pathname.split('/').slice(3).join('/');
      route.fulfill({ body: readFileSync(path.join(root, 'web/app', file)), contentType: MIME[file.split('.').pop()] });
    });
  }
  return context;
}

/** A new browser context signed in as a guest through the home page. */
export async function guest(browser, url, name, options = {}) {
  const context = await newContext(browser, options);
  const page = await context.newPage();
  page.on('pageerror', (e) => { page.errors = [...(page.errors || []), e]; });
  await page.goto(url + '/');
  await page.fill('#guest-name', name);
  await page.click('#play-guest');
  await signedIn(page, name);
  return page;
}

/** A new browser context with a registered account, signed up through the home page. */
export async function register(browser, url, name, password) {
  const context = await newContext(browser);
  const page = await context.newPage();
  page.on('pageerror', (e) => { page.errors = [...(page.errors || []), e]; });
  await page.goto(url + '/');
  await page.fill('#username', name);
  await page.fill('#password', password);
  await page.click('#register');
  await signedIn(page, name);
  return page;
}

/**
 * Waits until `page` plays as `name` and sets `page.user`: the header names it, its own
 * connection is welcomed (the header's state is 'online' only then), and its lobby is
 * drawn. A visitor plays as an auto-named guest ("Guest1234") until signing in, whose
 * lobby is on screen before: waiting for the lobby alone would read that guest, whose
 * connection closes the moment the chosen name's opens.
 */
export async function signedIn(page, name) {
  await page.waitForFunction((n) => document.body.dataset.conn === 'online' && document.querySelector('#user .name')?.textContent === n, name, { timeout: 10000 });
  await page.waitForSelector('#pools .pool');
  page.user = await page.evaluate(() => JSON.parse(localStorage.getItem('damka.auth')).user);
  assert.equal(page.user.name, name);
}

/** Clicks a move square by square: `c3:e5:g3`, `28x8`, `e2e4`. */
export async function clickMove(page, text, chess = false) {
  const squares = chess ? [text.slice(0, 2), text.slice(2, 4)] : text.split(/[-:x]/);
  for (const sq of squares) await page.click(`#board [data-square="${sq}"]`);
}

/** The colour this page plays in the game on screen. */
export async function colorOf(page) {
  return page.evaluate(() => (document.querySelector('#player-white').classList.contains('bottom') ? 'white' : 'black'));
}

/**
 * Does `action` and resolves to the text of the first toast shown after it began: a
 * toast still on screen from before (another test's, an earlier action's) is not the
 * answer to this one.
 */
export async function toastAfter(page, action, timeout = 10000) {
  await page.evaluate(() => {
    const el = document.querySelector('#toast');
    if (window.toastWatch) window.toastWatch.disconnect();
    window.toastsSince = [];
    window.toastWatch = new MutationObserver(() => { if (!el.hidden) window.toastsSince.push(el.textContent); });
    window.toastWatch.observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
  });
  await action();
  const first = await page.waitForFunction(() => window.toastsSince.length > 0 && window.toastsSince[0], null, { timeout });
  return first.jsonValue();
}

/** Waits until the move list has `n` moves. */
export async function waitMoves(page, n) {
  await page.waitForFunction((k) => document.querySelectorAll('#moves .mv').length >= k, n, { timeout: 10000 });
}

export const shot = (page, name) => page.screenshot({ path: path.join(artefacts, name + '.png') });
