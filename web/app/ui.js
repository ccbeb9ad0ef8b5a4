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
