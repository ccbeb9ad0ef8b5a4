// Arenas and tournaments in the browser: the lists, creating an arena, an arena's live
// screen (join, pause, withdraw, the leaderboard, one's own sheet, the next pairing, the
// podium) and a tournament's (players, rounds, standings, crosstable, withdrawal), each
// with its chat room (chat.js). Loaded
// only when one of these screens is opened, so the game page does not carry it. Games open
// by themselves: the app follows every `game_start`; these screens show follow.js's state.

import { api } from './net.js';
import { eventChat } from './chat.js';
import * as follow from './follow.js';
import { $, errorText, fmtSpan, h, scoreText, tcText, variantName } from './ui.js';
import { fmtDateTime, loadWords, t } from './i18n.js';

await loadWords('events');

const { arena } = follow;

const isGuest = (id) => String(id).startsWith('guest:');
const nameLink = (id, name) => (isGuest(id) ? name : h('a', { href: '/@/' + encodeURIComponent(name) }, name));

// ---- arenas: list and create ------------------------------------------------------

function arenaRow(a) {
  const now = Date.now();
  const when = a.status === 'upcoming' ? t('arena.starts_in', { time: fmtSpan(a.starts_at_ms - now) })
    : a.status === 'running' ? t('arena.ends_in', { time: fmtSpan(a.starts_at_ms + a.duration_ms - now) }) : t('status.' + a.status);
  return h('tr', { 'data-arena': a.id },
    h('td', {}, h('a', { href: '/arena/' + a.id }, a.name), a.private ? h('span', { 'aria-label': t('arena.password_needed'), title: t('arena.password_needed') }, ' 🔒') : ''),
    h('td', {}, `${variantName(a.variant)} ${tcText(a.time_control)}`),
    h('td', {}, a.rated ? t('game.rated') : t('game.casual')),
    h('td', { title: a.starts_at_ms ? fmtDateTime(a.starts_at_ms) : null }, when),
    h('td', {}, t('events.players', { n: a.players })));
}

export function arenasScreen() {
  const { app, view } = follow.ctx;
  document.title = `damka · ${t('nav.arenas')}`;
  const lists = h('div', { id: 'arena-lists' }, h('p', { class: 'muted' }, t('common.loading')));
  view.replaceChildren(h('div', { class: 'events' },
    h('section', { class: 'card wide' }, h('h1', {}, t('nav.arenas')), lists),
    app.auth && !app.auth.guest ? arenaForm() : h('section', { class: 'card' }, h('h2', {}, t('arena.create')),
      h('p', { class: 'muted' }, t('arena.create_note')))));
  const load = async () => {
    let all;
    try {
      all = await api('GET', '/api/arenas');
    } catch (e) {
      lists.replaceChildren(h('p', { class: 'error' }, errorText(e)));
      return;
    }
    const section = (key, label) => h('section', { id: 'arenas-' + key },
      h('h2', {}, label),
      all[key] && all[key].length ? h('table', { class: 'list' }, h('caption', { class: 'sr-only' }, label), h('tbody', {}, all[key].map(arenaRow)))
        : h('p', { class: 'muted' }, t('events.none')));
    lists.replaceChildren(section('running', t('arena.running')), section('upcoming', t('arena.upcoming')),
      ...(all.finishing.length ? [section('finishing', t('arena.finishing'))] : []), section('finished', t('arena.finished')));
  };
  load();
  const timer = setInterval(load, 5000);
  return {
    update: (msg) => { if (msg.type === 'arena_created') follow.ctx.go('/arena/' + msg.arena.id); },
    relang: () => { clearInterval(timer); follow.ctx.go(location.pathname, true); },
    leave: () => clearInterval(timer),
  };
}

function field(label, input) {
  return h('label', { class: 'field' }, h('span', {}, label), input);
}

function arenaForm() {
  const { VARIANTS, RULESETS, TCS, send } = follow.ctx;
  const name = h('input', { name: 'name', required: true, maxlength: 60, value: t('arena.default_name') });
  const variant = h('select', { name: 'variant' }, VARIANTS.map((v) => h('option', { value: v }, variantName(v))));
  const ruleset = h('select', { name: 'ruleset' });
  const fill = () => ruleset.replaceChildren(...(RULESETS[variant.value] || [['', 'ruleset.standard']]).map(([v, l]) => h('option', { value: v }, t(l))));
  variant.addEventListener('change', fill);
  fill();
  const tc = h('input', { name: 'time_control', list: 'arena-tcs', value: '3+2', required: true, pattern: '[0-9.]+\\+[0-9]+' });
  const tcs = h('datalist', { id: 'arena-tcs' }, TCS.map((t) => h('option', { value: t })));
  const starts = h('input', { name: 'starts_in', type: 'number', min: 0, step: 'any', value: 0 });
  const duration = h('input', { name: 'duration', type: 'number', min: 0.2, step: 'any', value: 30, required: true });
  const rated = h('input', { type: 'checkbox', name: 'rated', checked: true });
  const berserk = h('input', { type: 'checkbox', name: 'berserk', checked: true });
  const minGames = h('input', { name: 'min_games', type: 'number', min: 0, step: 1, placeholder: '0' });
  const minRating = h('input', { name: 'min_rating', type: 'number', min: 0, step: 1 });
  const maxRating = h('input', { name: 'max_rating', type: 'number', min: 0, step: 1 });
  const password = h('input', { name: 'password', autocomplete: 'off', placeholder: t('arena.password_none') });
  const num = (i) => (i.value.trim() === '' ? undefined : Number(i.value));
  return h('form', {
    class: 'card create', id: 'arena-create',
    onsubmit: (e) => {
      e.preventDefault();
      const msg = {
        type: 'arena_create', name: name.value.trim(), variant: variant.value, time_control: tc.value.trim(),
        rated: rated.checked, berserk: berserk.checked,
        starts_in_secs: Math.round(Number(starts.value || 0) * 60), duration_secs: Math.round(Number(duration.value) * 60),
      };
      if (ruleset.value) msg.ruleset = ruleset.value;
      for (const [k, i] of [['min_games', minGames], ['min_rating', minRating], ['max_rating', maxRating]]) if (num(i) !== undefined) msg[k] = num(i);
      if (password.value) msg.password = password.value;
      send(msg);
    },
  },
  h('h2', {}, t('arena.create')),
  field(t('arena.name'), name),
  h('div', { class: 'grid2' }, field(t('form.variant'), variant), field(t('form.ruleset'), ruleset), field(t('arena.tc'), tc), field(t('arena.starts_in_min'), starts),
    field(t('arena.duration_min'), duration), field(t('arena.min_games'), minGames), field(t('arena.min_rating'), minRating), field(t('arena.max_rating'), maxRating)),
  tcs,
  h('label', { class: 'check' }, rated, ' ', t('game.rated_cap')),
  h('label', { class: 'check' }, berserk, ' ', t('arena.berserk_allowed_cap')),
  field(t('signin.password'), password),
  h('button', { type: 'submit' }, t('arena.create_button')));
}

// ---- one arena ------------------------------------------------------------------

const games = (n) => t('profile.games', { n });
const resultAgainst = (e) => t('arena.result_' + e.result, { name: e.opponent });

function sheetMarks(sheet) {
  return h('ol', { class: 'sheet', id: 'arena-sheet', 'aria-label': t('arena.your_games') }, sheet.map((e) => {
    const marks = [e.flag === 'double' ? t('arena.on_streak') : '', e.flag === 'null_draw' ? t('arena.null_draw') : '', e.berserk ? t('game.berserk') : '', e.berserk_point ? t('arena.berserk_point') : ''].filter(Boolean);
    return h('li', { class: `pts ${e.result} ${e.flag}`, 'data-game': e.game_id, title: resultAgainst(e) },
      h('a', { href: '/game/' + e.game_id, 'aria-label': `${resultAgainst(e)}, ${t('events.points', { n: e.points })}${marks.length ? ', ' + marks.join(', ') : ''}` },
        String(e.points), e.flag === 'double' ? '★' : '', e.berserk ? '⚡' : ''));
  }));
}

function leaderboard(lines, meId) {
  if (!lines.length) return h('p', { class: 'muted' }, t('arena.nobody'));
  return h('table', { class: 'list standings', id: 'arena-standings' },
    h('caption', { class: 'sr-only' }, t('events.standings')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, t('events.player')), h('th', { scope: 'col', class: 'hide-narrow' }, t('profile.games_heading')), h('th', { scope: 'col' }, t('events.score')))),
    h('tbody', {}, lines.map((l) => h('tr', { class: l.user === meId ? 'me' : '', 'data-user': l.user },
      h('td', {}, String(l.rank)),
      h('td', {}, nameLink(l.user, l.name), h('small', { class: 'muted' }, ` ${l.rating}`), l.fire ? h('span', { class: 'fire', 'aria-label': t('arena.on_streak'), title: t('arena.on_streak') }, ' ★') : '',
        h('div', { class: 'points', 'aria-hidden': 'true' }, (l.points || []).join(' '))),
      h('td', { class: 'hide-narrow' }, String(l.games)),
      h('td', { class: 'score' }, h('b', {}, String(l.score)))))));
}

export function arenaScreen(id) {
  const { app, view, send } = follow.ctx;
  document.title = `damka · ${t('game.arena')}`;
  const a = arena(id);
  const head = h('section', { class: 'card wide arena-head', id: 'arena', 'data-arena': id });
  const me = h('section', { class: 'card', id: 'arena-me', 'aria-live': 'polite' });
  const board = h('section', { class: 'card', id: 'arena-board' });
  const podium = h('section', { class: 'card wide', id: 'arena-podium', hidden: true });
  if (app.auth) app.chat = eventChat(`arena:${id}`, { send, me: () => app.me });
  view.replaceChildren(h('div', { class: 'events' }, head, podium, me, board, app.chat ? app.chat.el : ''));
  let password = null;
  let finalLoaded = false;
  // Set once the live arena is known to be over (its `finished` standings came, or
  // watching it was refused because it is gone): from then on the page asks the archive
  // again until the podium is there, since the arena may have ended while this page was
  // not subscribed to it.
  let settling = false;
  let retry = null;
  let gone = false;
  const askAgain = () => {
    if (!gone && !retry) retry = setTimeout(() => { retry = null; load(); }, 1000);
  };

  const load = async () => {
    try {
      const r = await api('GET', `/api/arenas/${encodeURIComponent(id)}`);
      a.info = r.arena;
      if (r.podium) {
        a.final = r;
        a.info.status = 'finished';
      } else {
        if (r.standings && !a.standings) {
          a.standings = r.standings;
          a.at = performance.now();
        }
        if (settling) askAgain();
      }
      draw();
    } catch (e) {
      // 503: being archived right now.
      if (e.status === 503 || (settling && a.info)) return askAgain();
      head.replaceChildren(h('p', { class: 'error' }, e.status === 404 ? t('error.arena_not_found') : errorText(e)));
    }
  };

  const status = () => (a.final ? 'finished' : (a.standings && a.standings.status) || (a.info && a.info.status) || 'upcoming');
  const remaining = () => (a.standings ? a.standings.remaining_ms - (performance.now() - a.at) : a.info ? (a.info.status === 'upcoming' ? a.info.starts_at_ms : a.info.starts_at_ms + a.info.duration_ms) - Date.now() : 0);

  // Past its end by the server's clock (the standings' countdown where there is one).
  const isOver = () => status() === 'finished' || (status() !== 'upcoming' && remaining() <= 0);

  function clockText() {
    const s = status();
    if (s === 'finished') return t('arena.finished');
    if (s === 'upcoming') return t('arena.starts_in_cap', { time: fmtSpan(remaining()) });
    return remaining() > 0 ? t('arena.ends_in_cap', { time: fmtSpan(remaining()) }) : t('arena.over');
  }

  function nextText() {
    const m = a.standings && a.standings.me;
    if (!m || a.membership !== 'active' || status() !== 'running') return '';
    if (m.game_id) return '';
    if (m.next_wave_at_ms && m.next_wave_at_ms > Date.now()) return t('game.next_in', { n: Math.ceil((m.next_wave_at_ms - Date.now()) / 1000) });
    return remaining() > 0 ? t('arena.waiting') : t('arena.closing');
  }

  function actions() {
    const s = status();
    const out = [];
    if (s === 'finished' || !app.auth) return out;
    const join = () => send({ type: 'arena_join', arena_id: id, ...(password && password.value ? { password: password.value } : {}) });
    if (a.membership === 'active') {
      out.push(h('button', { id: 'arena-pause', onclick: () => send({ type: 'arena_pause', arena_id: id }) }, t('arena.pause')),
        h('button', { id: 'arena-withdraw', onclick: () => send({ type: 'arena_withdraw', arena_id: id }) }, t('events.withdraw')));
    } else if (a.membership === 'paused') {
      out.push(h('button', { id: 'arena-join', onclick: join }, '▶ ' + t('arena.resume')));
    } else {
      if (a.info && a.info.private) {
        password = password || h('input', { id: 'arena-password', type: 'password', 'aria-label': t('arena.password'), placeholder: t('signin.password') });
        out.push(password);
      }
      out.push(h('button', { id: 'arena-join', onclick: join }, t('arena.join')));
    }
    return out;
  }

  function draw() {
    const i = a.info;
    if (!i) return;
    document.title = `damka · ${i.name}`;
    const st = a.standings;
    const conds = [i.berserk ? t('arena.berserk_allowed') : '', i.min_games ? t('arena.needs_games', { n: i.min_games }) : '', i.min_rating ? t('arena.rating_min', { rating: i.min_rating }) : '',
      i.max_rating ? t('arena.rating_max', { rating: i.max_rating }) : '', i.private ? t('arena.with_password') : ''].filter(Boolean).join(' · ');
    head.replaceChildren(
      h('h1', {}, i.name),
      h('p', { class: 'muted' }, `${variantName(i.variant)}${i.ruleset === 'russian_ua' ? ` (${t('ruleset.ua_short')})` : ''} · ${tcText(i.time_control)} · ${i.rated ? t('game.rated') : t('game.casual')} · ${fmtSpan(i.duration_ms)}${conds ? ' · ' + conds : ''}`),
      h('p', { class: 'arena-clock' }, h('span', { id: 'arena-status', 'data-status': status(), role: 'timer' }, clockText()),
        st ? h('span', { id: 'arena-count' }, ` · ${t('events.players', { n: st.players })} · ${t('arena.playing', { n: st.playing })}`) : ''),
      h('div', { class: 'actions', id: 'arena-actions' }, actions()),
      st && st.featured ? h('p', {}, h('a', { id: 'arena-featured', href: '/game/' + st.featured }, '▶ ' + t('arena.featured'))) : '');
    const m = st && st.me;
    if (m && a.membership !== 'withdrawn') {
      me.hidden = false;
      const l = m.standing;
      me.replaceChildren(h('h2', {}, t('arena.you')),
        h('p', { id: 'arena-rank' }, `${t('arena.rank', { rank: l.rank })} · ${t('events.points', { n: l.score })} · ${games(l.games)}${l.fire ? ' · ★ ' + t('arena.on_streak') : ''}${a.membership === 'paused' ? ' · ' + t('arena.paused') : ''}`),
        m.game_id && !follow.ctx.app.games.get(m.game_id)?.outcome ? h('p', {}, h('a', { id: 'arena-current', class: 'button', href: '/game/' + m.game_id }, t('arena.back_to_game'))) : '',
        h('p', { id: 'arena-next', role: 'status' }, nextText()),
        m.sheet.length ? sheetMarks(m.sheet) : h('p', { class: 'muted' }, t('arena.no_games')));
    } else {
      me.hidden = !a.membership;
      me.replaceChildren(h('h2', {}, t('arena.you')), h('p', { id: 'arena-rank' }, a.membership === 'withdrawn' ? t('arena.left') : a.membership === 'active' ? t('arena.joined_waiting') : ''));
    }
    const lines = a.final ? a.final.standings : st ? st.top : [];
    board.replaceChildren(h('h2', {}, a.final ? t('arena.final_standings') : t('arena.leaderboard')), leaderboard(lines, app.me && app.me.id));
    if (a.final) {
      podium.hidden = false;
      podium.replaceChildren(h('h2', {}, t('arena.podium')), h('ol', { class: 'podium', id: 'podium' }, a.final.podium.map((l, k) => h('li', { 'data-user': l.user },
        h('span', { class: `medal m${k + 1}`, 'aria-label': t('arena.place', { place: k + 1 }) }, String(k + 1)), h('b', {}, l.name), ` ${t('events.points', { n: l.score })} · ${games(l.games)}`))));
    }
  }

  const tick = setInterval(() => {
    const s = $('#arena-status', head);
    if (s) s.textContent = clockText();
    const n = $('#arena-next', me);
    if (n) n.textContent = nextText();
  }, 500);

  load();
  if (app.auth) send({ type: 'arena_watch', arena_id: id });
  draw();
  return {
    online: () => send({ type: 'arena_watch', arena_id: id }),
    relang: () => draw(),
    update: (msg) => {
      if ((msg.type === 'arena_standings' && msg.standings.arena_id === id) || (msg.type === 'arena_member' && msg.arena_id === id)) {
        if (msg.type === 'arena_standings' && msg.standings.status === 'finished' && !finalLoaded) {
          finalLoaded = true;
          settling = true;
          load();
        }
        draw();
      } else if (msg.type === 'game_event' && msg.event.kind === 'game_over') draw();
    },
    error: (msg) => {
      // A finished arena's actor is gone: watching it is refused, and the page shows the
      // archive once it is written (it may have ended since the page loaded).
      if (msg.code !== 'arena_not_found' || (a.info && !isOver())) return false;
      settling = true;
      if (!a.final) load();
      return true;
    },
    leave: () => {
      gone = true;
      clearTimeout(retry);
      clearInterval(tick);
      if ((!a.membership || a.membership === 'withdrawn') && status() !== 'finished') send({ type: 'arena_unwatch', arena_id: id });
    },
  };
}

// ---- tournaments ----------------------------------------------------------------

export function tournamentsScreen() {
  const { view } = follow.ctx;
  document.title = `damka · ${t('nav.tournaments')}`;
  const list = h('div', { id: 'tournament-list' }, h('p', { class: 'muted' }, t('common.loading')));
  view.replaceChildren(h('div', { class: 'events' }, h('section', { class: 'card wide' }, h('h1', {}, t('nav.tournaments')), list,
    h('p', { class: 'muted' }, t('tournament.note')))));
  const load = async () => {
    try {
      const all = await api('GET', '/api/tournaments');
      list.replaceChildren(all.length ? h('table', { class: 'list' }, h('caption', { class: 'sr-only' }, t('nav.tournaments')), h('tbody', {}, all.map((x) => h('tr', { 'data-tournament': x.id },
        h('td', {}, h('a', { href: '/tournament/' + x.id }, x.name)),
        h('td', {}, `${variantName(x.variant)} ${tcText(x.time_control)}`),
        h('td', { class: 'hide-narrow' }, systemName(x.system)),
        h('td', {}, x.status === 'running' ? t('tournament.round_of', { round: x.round, rounds: x.rounds }) : t('status.' + x.status)),
        h('td', {}, t('events.players', { n: x.players })))))) : h('p', { class: 'muted' }, t('tournament.none')));
    } catch (e) {
      list.replaceChildren(h('p', { class: 'error' }, errorText(e)));
    }
  };
  load();
  const timer = setInterval(load, 5000);
  // A tournament one plays in announces itself: show it at once.
  return { update: (msg) => { if (msg.type === 'tournament') load(); }, relang: () => { clearInterval(timer); follow.ctx.go(location.pathname, true); }, leave: () => clearInterval(timer) };
}

const RESULT_MARK = { white_win: 'white', black_win: 'black', draw: null };

/**
 * A game of a micro-match as the IDF writes it, from the viewpoint of the pair as listed
 * ("Ann – Ben"): Ann's points first, whichever colour she had in that game, so a match
 * each won reads "2-0, 0-2" (the games alternate colours; by the board it is "2-0, 2-0").
 */
function pairResult(variant, match, game) {
  if (!(game.result in RESULT_MARK)) return game.result;
  const winner = RESULT_MARK[game.result];
  const swapped = game.white !== match.white;
  return scoreText(variant, winner && swapped ? (winner === 'white' ? 'black' : 'white') : winner);
}

/** A pairing system (`round_robin`, `swiss`, ...) in words. */
const systemName = (sys) => t('system.' + sys);

export function tournamentScreen(id) {
  const { app, view, send } = follow.ctx;
  document.title = `damka · ${t('game.tournament')}`;
  const root = h('div', { class: 'events', id: 'tournament', 'data-tournament': id }, h('p', { class: 'muted' }, t('common.loading')));
  view.replaceChildren(root);
  let withdrawn = false;
  const chat = app.auth ? eventChat(`tournament:${id}`, { send, me: () => app.me }) : null;
  app.chat = chat;

  function draw() {
    const tour = app.tournaments.get(id);
    if (!tour) return;
    const s = tour.summary;
    document.title = `damka · ${s.name}`;
    const bySeed = (seed) => tour.players[seed - 1];
    const pname = (seed) => (bySeed(seed) ? bySeed(seed).user.name : `#${seed}`);
    const mySeed = app.me ? (tour.players.find((p) => p.user.id === app.me.id) || {}).seed : undefined;
    const myPlayer = mySeed ? bySeed(mySeed) : null;
    let current = null;
    for (const r of tour.rounds) for (const m of r.matches) for (const g of m.games) if (!g.result && (g.white === mySeed || g.black === mySeed)) current = g.game_id;
    const head = h('section', { class: 'card wide' },
      h('h1', {}, s.name),
      h('p', { class: 'muted' }, `${variantName(s.variant)} · ${tcText(s.time_control)} · ${systemName(s.system)} · ${t('events.players', { n: s.players })}`),
      h('p', { id: 'tournament-status', role: 'status' }, s.status === 'finished' ? t('arena.finished')
        : s.status === 'running' ? t(s.round_in_progress ? 'tournament.round_running' : 'tournament.round_next', { round: s.round, rounds: s.rounds }) : t('tournament.upcoming')),
      myPlayer ? h('p', { id: 'tournament-me' }, myPlayer.withdrawn || withdrawn ? t('tournament.withdrawn')
        : current ? h('a', { class: 'button', id: 'tournament-current', href: '/game/' + current }, t('tournament.go_game'))
          : s.status === 'finished' ? '' : t('tournament.next_opens')) : '',
      h('div', { class: 'actions' }, myPlayer && !myPlayer.withdrawn && !withdrawn && s.status !== 'finished'
        ? h('button', { id: 'tournament-withdraw', onclick: (e) => {
          if (!e.target.dataset.armed) { e.target.dataset.armed = '1'; e.target.textContent = t('tournament.withdraw_confirm'); return; }
          send({ type: 'tournament_withdraw', tournament_id: id });
          withdrawn = true;
          draw();
        } }, t('events.withdraw')) : '',
      h('a', { class: 'button', href: `/api/tournaments/${id}/pdn`, download: `${id}.pdn` }, t('replay.download', { format: 'PDN' }))));
    const tbNames = tour.standings.length ? tour.standings[0].tiebreaks.map((x) => x.name) : [];
    const standings = h('section', { class: 'card' }, h('h2', {}, t('events.standings')), h('table', { class: 'list standings', id: 'tournament-standings' },
      h('caption', { class: 'sr-only' }, t('events.standings')),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, t('events.player')), h('th', { scope: 'col' }, t('events.score')), tbNames.map((n) => h('th', { scope: 'col', class: 'hide-narrow' }, n)))),
      h('tbody', {}, tour.standings.map((l) => h('tr', { class: l.seed === mySeed ? 'me' : '', 'data-seed': l.seed },
        h('td', {}, l.place === l.place_to ? String(l.place) : `${l.place}-${l.place_to}`),
        h('td', {}, pname(l.seed), bySeed(l.seed) && bySeed(l.seed).withdrawn ? h('small', { class: 'muted' }, ` (${t('tournament.withdrawn_short')})`) : '', l.playoff && s.status === 'finished' ? h('small', {}, ' ' + t('tournament.playoff')) : ''),
        h('td', { class: 'score' }, h('b', {}, String(l.score))),
        l.tiebreaks.map((x) => h('td', { class: 'hide-narrow' }, String(x.value))))))));
    const n = tour.players.length;
    const cross = h('section', { class: 'card scroll-x' }, h('h2', {}, t('tournament.crosstable')), h('table', { class: 'crosstable', id: 'crosstable' },
      h('caption', { class: 'sr-only' }, t('tournament.crosstable_caption')),
      h('thead', {}, h('tr', {}, h('th', {}, ''), tour.players.map((p) => h('th', { scope: 'col', title: p.user.name }, String(p.seed))))),
      h('tbody', {}, Array.from({ length: n }, (_, i) => h('tr', {}, h('th', { scope: 'row' }, `${i + 1} ${pname(i + 1)}`),
        Array.from({ length: n }, (__, j) => h('td', { class: i === j ? 'self' : '' }, i === j ? '×' : tour.crosstable[i] && tour.crosstable[i][j] !== null && tour.crosstable[i][j] !== undefined ? String(tour.crosstable[i][j]) : '')))))));
    const rounds = h('section', { class: 'card wide' }, h('h2', {}, t('tournament.rounds')), tour.rounds.length ? '' : h('p', { class: 'muted' }, t('tournament.no_round')), tour.rounds.slice().reverse().map((r) => h('div', { class: 'round', 'data-round': r.number },
      h('h3', {}, t('tournament.round', { round: r.number })),
      h('ul', { class: 'list' }, r.matches.map((m) => h('li', {}, `${pname(m.white)} – ${pname(m.black)}${m.opening ? ` (${t('tournament.ballot', { ballot: m.opening })})` : ''}${m.forfeit ? ' · ' + t('tournament.forfeit') : ''}: `,
        m.games.map((g, k) => [k ? ', ' : '', h('a', { href: '/game/' + g.game_id, 'data-game': g.game_id }, g.result ? pairResult(s.variant, m, g) : t('tournament.live'))]))),
      r.bye ? h('li', {}, `${pname(r.bye)}: ${t('tournament.bye')}`) : ''))));
    root.replaceChildren(head, standings, cross, rounds, chat ? chat.el : '');
  }

  api('GET', `/api/tournaments/${encodeURIComponent(id)}`).then((t) => {
    if (!app.tournaments.has(id)) app.tournaments.set(id, t);
    draw();
  }).catch((e) => root.replaceChildren(h('p', { class: 'error' }, e.status === 404 ? t('error.tournament_not_found') : errorText(e))));
  if (app.auth) send({ type: 'tournament_watch', tournament_id: id });
  draw();
  return {
    online: () => send({ type: 'tournament_watch', tournament_id: id }),
    update: (msg) => { if (msg.type === 'tournament' && msg.tournament.summary.id === id) draw(); },
    relang: () => draw(),
    error: (msg) => {
      if (msg.code === 'not_in_tournament') {
        withdrawn = false;
        follow.ctx.toast(errorText(msg));
        draw();
        return true;
      }
      return false;
    },
    leave: () => {
      // Players follow their tournament without asking: only a watcher stops watching.
      const tour = app.tournaments.get(id);
      if (!(tour && app.me && tour.players.some((p) => p.user.id === app.me.id))) send({ type: 'tournament_unwatch', tournament_id: id });
    },
  };
}
