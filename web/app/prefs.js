// A player's settings: the language, the board's colours, the piece set, coordinates,
// sound, premoves and the resign confirmation. Kept in this browser (localStorage, for
// guests too) and, for an account, on the server (`/api/account/preferences`, read at
// login, written on every change), so that they follow the player to a new browser.
// The page that changes them is settings.js, loaded when it is opened.

import { LANGS, currentLang, setLang } from './i18n.js';
import { api } from './net.js';
import { errorText } from './ui.js';

export const BOARDS = ['brown', 'green', 'blue', 'grey'];
export const PIECES = ['flat', 'classic'];
export const SWITCHES = ['coordinates', 'sound', 'premoves', 'confirm_resign'];
const DEFAULTS = { board: 'brown', pieces: 'flat', coordinates: true, sound: true, premoves: true, confirm_resign: true };
const KEY = 'damka.prefs';

function stored() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || '{}') || {};
  } catch (_) {
    return {};
  }
}

/** Only the known fields with allowed values: what a server or an old browser sent. */
function clean(p) {
  const out = {};
  if (BOARDS.includes(p.board)) out.board = p.board;
  if (PIECES.includes(p.pieces)) out.pieces = p.pieces;
  for (const k of SWITCHES) if (typeof p[k] === 'boolean') out[k] = p[k];
  return out;
}

let current = { ...DEFAULTS, ...clean(stored()) };
const listeners = new Set();
// When the player last changed each setting (a count of changes): an answer with the
// account's settings asked for before a change must not undo it.
let changes = 0;
const changedAt = new Map();

// Another tab of this browser changed the settings: this one follows.
window.addEventListener('storage', (e) => {
  if (e.key !== KEY) return;
  current = { ...DEFAULTS, ...clean(stored()) };
  applyPrefs();
  for (const f of listeners) f();
});

/** The settings now, with the language. */
export const prefs = () => ({ ...current, language: currentLang() });

/** What the board is drawn with. */
export const boardStyle = () => ({ pieces: current.pieces, coordinates: current.coordinates });

/** Call `f()` after the board's settings change (screens draw their board again). */
export function onPrefs(f) {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** The page's colours from the settings, and whether it makes sounds. */
export function applyPrefs() {
  document.documentElement.dataset.board = current.board;
  document.documentElement.dataset.sound = current.sound ? 'on' : 'off';
}

function keep(change) {
  const before = JSON.stringify(boardStyle()) + current.board;
  current = { ...current, ...clean(change) };
  localStorage.setItem(KEY, JSON.stringify(current));
  applyPrefs();
  if (LANGS.includes(change.language)) setLang(change.language);
  if (JSON.stringify(boardStyle()) + current.board !== before) for (const f of listeners) f();
}

const UNSENT = 'damka.prefs.unsent';

/** What an account changed that the server has not confirmed yet (the page was left
 * or the connection dropped while it was on its way): `{ user, change }`. */
function unsent(auth) {
  try {
    const u = JSON.parse(localStorage.getItem(UNSENT) || 'null');
    return u && u.user === auth.user.id ? u.change : {};
  } catch (_) {
    return {};
  }
}

/** The part of a change the server keeps. */
const forServer = (change) => ({ ...clean(change), ...(LANGS.includes(change.language) ? { language: change.language } : {}) });

/** Changes settings here and, for an account, on the server; resolves to the error
 * text when the server refused (the setting stays in this browser). A change the
 * server did not answer is sent again at the next login in this browser. */
export async function savePrefs(change, auth) {
  changes += 1;
  for (const k of Object.keys(forServer(change))) changedAt.set(k, changes);
  keep(change);
  if (!auth || auth.guest) return null;
  const body = forServer(change);
  localStorage.setItem(UNSENT, JSON.stringify({ user: auth.user.id, change: { ...unsent(auth), ...body } }));
  try {
    await api('PUT', '/api/account/preferences', body, auth.token);
    const left = unsent(auth);
    for (const [k, v] of Object.entries(body)) if (left[k] === v) delete left[k];
    localStorage.setItem(UNSENT, JSON.stringify({ user: auth.user.id, change: left }));
    return null;
  } catch (e) {
    // Refused: the server will not take it later either.
    if (e.status && e.status < 500) localStorage.removeItem(UNSENT);
    return errorText(e);
  }
}

/** At login: the account's settings replace this browser's, after what this browser
 * changed for the account and could not send. */
export async function loadAccountPrefs(auth) {
  const asked = changes;
  try {
    const left = unsent(auth);
    const p = Object.keys(left).length
      ? await api('PUT', '/api/account/preferences', left, auth.token)
      : await api('GET', '/api/account/preferences', undefined, auth.token);
    // What was sent is confirmed; a change made meanwhile stays unsent until its own
    // request answers, and stays shown.
    const still = unsent(auth);
    for (const [k, v] of Object.entries(left)) if (still[k] === v) delete still[k];
    localStorage.setItem(UNSENT, JSON.stringify({ user: auth.user.id, change: still }));
    const theirs = { ...p };
    for (const [k, at] of changedAt) if (at > asked) delete theirs[k];
    keep(theirs);
  } catch (_) {
    /* the browser's own settings stay */
  }
}

