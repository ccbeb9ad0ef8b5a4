// Small DOM helpers shared by the client's screens: element building, lookup, labels.

export const $ = (sel, root = document) => root.querySelector(sel);

/** An element with attributes (`on*` become listeners) and children. */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

export const title = (v) => v[0].toUpperCase() + v.slice(1);

/** A time control as the server sends it: the shorthand, or a structured object. */
export const tcText = (tc) => (typeof tc === 'string' ? tc : tc && tc.periods ? tc.periods.map((p) => `${p.time_ms / 60000}${p.increment_ms ? '+' + p.increment_ms / 1000 : ''}`).join(' / ') : '');

/** A duration for people: 1:05:09, 4:07, 0:09. */
export function fmtSpan(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** A result as the variant's rules write it: the IDF's 2-0, 1-1, 0-2 for draughts (a
 * win is two points), chess's 1-0, ½-½, 0-1. `winner` is 'white', 'black' or null (a
 * draw); an archived result ('1-0', '0-1', '1/2-1/2', '*') is read too. */
export function scoreText(variant, winner) {
  const w = winner === '1-0' ? 'white' : winner === '0-1' ? 'black' : winner === '1/2-1/2' ? null : winner;
  if (w === '*') return '*';
  if (variant === 'chess' || variant === 'chess960') return w === 'white' ? '1-0' : w === 'black' ? '0-1' : '½-½';
  return w === 'white' ? '2-0' : w === 'black' ? '0-2' : '1-1';
}

/** What a player reads for a server error: a sentence for the common codes; for the
 * rest the server's own message (which names the rule's article) without the
 * backticks meant for developers. */
const ERRORS = {
  illegal_move: 'That move is not legal here.',
  not_your_turn: 'It is not your turn.',
  game_not_found: 'This game is no longer here: it has ended, or the server restarted.',
  unavailable: 'The server is moving this game or is busy for a moment: try again shortly.',
  rate_limited: 'Too many tries: wait a little and try again.',
  busy: 'The computer players are all busy: try again in a moment.',
  invalid_level: 'Choose a level from 1 to 8.',
  engine_unavailable: 'No computer can play this game here right now.',
  user_offline: 'That player is not online.',
  self_challenge: 'You cannot challenge yourself.',
  own_seek: 'That is your own seek.',
  rated_needs_account: 'Rated games need an account: register or log in.',
  shutting_down: 'The server is restarting: new games start again in a moment.',
};

export function errorText(msg) {
  const known = msg && ERRORS[msg.code];
  if (known) return known;
  const text = ((msg && (msg.message || msg.code)) || 'Something went wrong.').replace(/`/g, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
