// The chat panel of the game, arena and tournament screens: one tab per room (a game's
// players and spectators, an arena, a tournament), each joined with `chat_join` and
// joined again after a reconnection from the last line seen; a line field; per line,
// block and report buttons for accounts (the server refuses both to guests, who only
// read), and delete and time-out for moderators; a mute per room, kept in this
// browser. Every line is built from DOM text nodes, never markup: a line holding HTML
// shows as the characters typed. The users one blocks are the server's (`blocks`),
// shared by every panel; their lines are never shown.

import { loadWords, t } from './i18n.js';
import { h } from './ui.js';

await loadWords('chat');

/** Lines kept per room on screen. */
const KEEP = 200;
const MAX_CHARS = 140;

const blocked = new Set();
let blocksAsked = false;
const panels = new Set();

const mutedRooms = () => new Set(JSON.parse(localStorage.getItem('damka.chat.muted') || '[]'));
function setMuted(room, on) {
  const m = mutedRooms();
  if (on) m.add(room);
  else m.delete(room);
  localStorage.setItem('damka.chat.muted', JSON.stringify([...m]));
}

/** The messages of the chat: true if `msg` was one (every panel has seen it). */
export function chatMessage(msg) {
  if (msg.type === 'blocks') {
    blocked.clear();
    for (const u of msg.users) blocked.add(u);
    for (const p of panels) p.redraw();
    return true;
  }
  if (!['chat_history', 'chat_line', 'chat_deleted', 'chat_timed_out', 'chat_reported'].includes(msg.type)) return false;
  for (const p of panels) p.take(msg);
  return true;
}

/** Which chat errors a panel answers in its own status line (not as a toast). */
const CHAT_ERRORS = ['bad_chat_line', 'rate_limited', 'timed_out', 'chat_forbidden', 'not_a_moderator', 'chat_line_not_found'];

/**
 * A chat panel. `rooms`: `[{ room, label }]`; `ctx`: `{ send, me: () => user }`.
 * Returns `{ el, handle(msg), online(), error(msg), leave() }`: the screen keeps `el`
 * across its redraws; the app hands it every message (`handle` is true for the chat's
 * own), every error (`error` is true for those it shows) and reconnections.
 */
export function chatPanel(rooms, ctx) {
  const state = new Map(rooms.map((r) => [r.room, { ...r, lines: new Map(), last: 0, writable: false, moderator: false, joined: false }]));
  let current = rooms[0].room;
  const tabs = h('div', { class: 'chat-tabs', role: 'tablist' });
  const list = h('ol', { class: 'chat-lines', id: 'chat-lines', 'aria-label': t('chat.lines') });
  // What a screen reader says: each new line once (the list redraws whole, so it is no
  // live region itself: it would be read out again at every line).
  const spoken = h('p', { class: 'sr-only', id: 'chat-live', 'aria-live': 'polite' });
  const note = h('p', { class: 'chat-note', id: 'chat-note', role: 'status' });
  const input = h('input', { id: 'chat-input', maxlength: MAX_CHARS, autocomplete: 'off', 'aria-label': t('chat.say'), placeholder: t('chat.say') });
  const form = h('form', { class: 'chat-form', onsubmit: (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    ctx.send({ type: 'chat_say', room: current, text });
    input.value = '';
  } }, input);
  const mute = h('button', { type: 'button', class: 'link chat-mute', id: 'chat-mute', onclick: () => {
    setMuted(current, !mutedRooms().has(current));
    draw();
  } });
  const el = h('section', { class: 'card chat', id: 'chat', 'aria-label': t('chat.title') },
    h('div', { class: 'chat-head' }, tabs, mute), list, spoken, note, form);

  const join = (s) => ctx.send(s.joined ? { type: 'chat_join', room: s.room, after: s.last } : { type: 'chat_join', room: s.room });

  function say(text) {
    note.textContent = text;
  }

  function lineEl(s, line) {
    const me = ctx.me();
    const mine = me && me.id === line.user;
    const tools = h('span', { class: 'chat-tools' });
    if (!mine && me && !me.guest) {
      tools.append(
        h('button', { type: 'button', class: 'link', 'data-act': 'block', title: t('chat.block_title', { name: line.name }), onclick: () => ctx.send({ type: 'block', user: line.user }) }, t('chat.block')),
        h('button', { type: 'button', class: 'link', 'data-act': 'report', title: t('chat.report_title'), onclick: () => ctx.send({ type: 'chat_report', room: s.room, seq: line.seq, reason: '' }) }, t('chat.report')));
    }
    if (s.moderator) {
      tools.append(
        h('button', { type: 'button', class: 'link', 'data-act': 'delete', onclick: () => ctx.send({ type: 'chat_delete', room: s.room, seq: line.seq }) }, t('chat.delete')),
        mine ? '' : h('button', { type: 'button', class: 'link', 'data-act': 'timeout', onclick: () => ctx.send({ type: 'chat_timeout', room: s.room, user: line.user, minutes: 15 }) }, t('chat.timeout')));
    }
    // Text nodes only: the name and the line are never read as markup.
    return h('li', { 'data-seq': line.seq, 'data-user': line.user, class: mine ? 'mine' : '' },
      h('b', { class: 'chat-name' }, line.name), ' ', h('span', { class: 'chat-text' }, line.text), ' ', tools);
  }

  function draw() {
    tabs.replaceChildren(...[...state.values()].map((s) => h('button', {
      type: 'button', role: 'tab', class: 'chat-tab', 'data-room': s.room, 'aria-selected': s.room === current ? 'true' : 'false',
      onclick: () => { current = s.room; say(''); draw(); },
    }, s.label)));
    const s = state.get(current);
    const muted = mutedRooms().has(current);
    mute.textContent = muted ? t('chat.unmute') : t('chat.mute');
    mute.setAttribute('aria-pressed', muted ? 'true' : 'false');
    list.hidden = muted;
    list.replaceChildren(...(muted ? [] : [...s.lines.values()].filter((l) => !blocked.has(l.user)).map((l) => lineEl(s, l))));
    list.scrollTop = list.scrollHeight;
    const me = ctx.me();
    form.hidden = muted || !s.writable;
    if (!muted && !s.writable && s.joined && !note.textContent) say(me && me.guest ? t('chat.guests_read') : '');
  }

  function take(msg) {
    const s = state.get(msg.room);
    if (!s) return;
    if (msg.type === 'chat_history') {
      s.joined = true;
      s.writable = msg.writable;
      s.moderator = !!msg.moderator;
      for (const l of msg.lines) s.lines.set(l.seq, l);
    } else if (msg.type === 'chat_line') {
      s.lines.set(msg.line.seq, msg.line);
      if (msg.room === current) say('');
      if (msg.room === current && !mutedRooms().has(current) && !blocked.has(msg.line.user)) spoken.textContent = `${msg.line.name}: ${msg.line.text}`;
    } else if (msg.type === 'chat_deleted') {
      s.lines.delete(msg.seq);
    } else if (msg.type === 'chat_timed_out') {
      const me = ctx.me();
      if (msg.room === current) say(me && me.id === msg.user ? t('chat.you_timed_out') : t('chat.timed_out', { name: nameOf(msg.user) }));
    } else if (msg.type === 'chat_reported') {
      if (msg.room === current) say(t('chat.reported'));
    }
    for (const l of s.lines.keys()) {
      if (s.lines.size <= KEEP) break;
      s.lines.delete(l);
    }
    s.last = Math.max(s.last, ...s.lines.keys(), 0);
    draw();
  }

  function nameOf(user) {
    for (const s of state.values()) for (const l of s.lines.values()) if (l.user === user) return l.name;
    return user;
  }

  const panel = { take, redraw: draw };
  panels.add(panel);
  if (!blocksAsked) {
    blocksAsked = true;
    ctx.send({ type: 'list_blocks' });
  }
  for (const s of state.values()) join(s);
  draw();

  return {
    el,
    handle: chatMessage,
    online: () => {
      ctx.send({ type: 'list_blocks' });
      for (const s of state.values()) join(s);
    },
    error: (msg) => {
      if (!CHAT_ERRORS.includes(msg.code)) return false;
      say(t(msg.code === 'rate_limited' ? 'chat.error.rate_limited' : `error.${msg.code}`));
      return true;
    },
    leave: () => {
      panels.delete(panel);
      for (const s of state.values()) if (s.joined) ctx.send({ type: 'chat_leave', room: s.room });
    },
  };
}

/** A game's chat: its players get their own room and the spectators' room, everyone
 * else the spectators' room. */
export function gameChat(gameId, player, ctx) {
  const spectators = { room: `game:${gameId}:spectator`, label: t('chat.spectators') };
  return chatPanel(player ? [{ room: `game:${gameId}:player`, label: t('chat.players') }, spectators] : [spectators], ctx);
}

/** An arena's or a tournament's chat (`room`: `arena:<id>`, `tournament:<id>`). */
export function eventChat(room, ctx) {
  return chatPanel([{ room, label: t('chat.room') }], ctx);
}
