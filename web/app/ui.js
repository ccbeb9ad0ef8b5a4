// Small DOM helpers shared by the client's screens: element building, lookup, and the
// words every screen shows alike (variants, sides, results' reasons, server errors by
// their code), in the current language through i18n.js.

import { hasWord, loadWords, t } from './i18n.js';

await loadWords('ui');

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

/** A variant's name as its players call it (`russian` -> Russian draughts). */
export const variantName = (v) => (hasWord('variant.' + v) ? t('variant.' + v) : title(String(v)));

/** A side as the subject of a sentence: White, Black. */
export const sideName = (c) => t('side.' + c);

/** The key of a rule's description: `rule.` and its English words in snake case. */
const ruleKey = (text) => 'rule.' + text.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');

/** The rule that ended a game (an outcome's `detail`, an archived game's `rule`) in the
 * current language: the article stays as the rules number it, its description is
 * translated (`IDF 8.2.3 (threefold repetition)`, `the opponent cannot win (FIDE 6.9)`,
 * `both flags fell`); a text the client does not know is shown as sent. */
export function ruleText(detail) {
  const text = String(detail);
  if (hasWord(ruleKey(text))) return t(ruleKey(text));
  const m = text.match(/^(.*?)\s*\(([^()]*)\)$/);
  if (!m) return text;
  if (hasWord(ruleKey(m[2]))) return `${m[1]} (${t(ruleKey(m[2]))})`;
  if (hasWord(ruleKey(m[1]))) return `${t(ruleKey(m[1]))} (${m[2]})`;
  return text;
}

/** Why a game ended, from the server's reason code. */
export const reasonText = (r) => (hasWord('reason.' + r) ? t('reason.' + r) : String(r).replace(/_/g, ' '));

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

const ARTICLED = new Set(['claim_refused', 'draw_offer_not_allowed', 'takeback_not_allowed', 'abort_not_allowed', 'break_not_over']);
const ARTICLE = /\b(?:FIDE|IDF|INT|FRI|UA rule)(?:\s+(?:s\.\d+\s+)?\d+(?:\.\d+)*)(?:,\s*(?:s\.\d+\s+)?\d+(?:\.\d+)*)*/g;

/** What a player reads for a server error (a WebSocket `error` message or a refused
 * HTTP call): the sentence for its code in the current language; for a code the client
 * does not know, the server's own message without the backticks meant for developers. */
export function errorText(msg) {
  const code = msg && msg.code;
  if (code && hasWord('error.' + code)) {
    // Refusals under a rule name its article (FIDE 9.2, IDF s.2 9.2): kept beside the words.
    const articles = ARTICLED.has(code) ? String(msg.message || '').match(ARTICLE) : null;
    return t('error.' + code) + (articles ? ` (${[...new Set(articles)].join('; ')})` : '');
  }
  const text = ((msg && msg.message) || t('error.unknown')).replace(/`/g, '');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
