// Arenas and tournaments in the browser: the lists, creating an arena, an arena's live
// screen (join, pause, withdraw, the leaderboard, one's own sheet, the next pairing, the
// podium) and a tournament's (players, rounds, standings, crosstable, withdrawal). Loaded
// only when one of these screens is opened, so the game page does not carry it. Games open
// by themselves: the app follows every `game_start`; these screens show follow.js's state.

import { api } from './net.js';
import * as follow from './follow.js';
import { $, fmtSpan, h, scoreText, tcText, title } from './ui.js';

const { arena } = follow;

const isGuest = (id) => String(id).startsWith('guest:');
const nameLink = (id, name) => (isGuest(id) ? name : h('a', { href: '/@/' + encodeURIComponent(name) }, name));

// ---- arenas: list and create ------------------------------------------------------

function arenaRow(a) {
  const now = Date.now();
  const when = a.status === 'upcoming' ? `starts in ${fmtSpan(a.starts_at_ms - now)}`
    : a.status === 'running' ? `ends in ${fmtSpan(a.starts_at_ms + a.duration_ms - now)}` : a.status;
  return h('tr', { 'data-arena': a.id },
    h('td', {}, h('a', { href: '/arena/' + a.id }, a.name), a.private ? h('span', { 'aria-label': 'password needed', title: 'password needed' }, ' 🔒') : ''),
    h('td', {}, `${title(a.variant)} ${tcText(a.time_control)}`),
    h('td', {}, a.rated ? 'rated' : 'casual'),
    h('td', {}, when),
    h('td', {}, `${a.players} players`));
}

export function arenasScreen() {
  const { app, view } = follow.ctx;
  document.title = 'damka · arenas';
  const lists = h('div', { id: 'arena-lists' }, h('p', { class: 'muted' }, 'Loading…'));
  view.replaceChildren(h('div', { class: 'events' },
    h('section', { class: 'card wide' }, h('h1', {}, 'Arenas'), lists),
    app.auth && !app.auth.guest ? arenaForm() : h('section', { class: 'card' }, h('h2', {}, 'Create an arena'),
      h('p', { class: 'muted' }, 'Registered players create arenas; everyone may join them.'))));
  const load = async () => {
    let all;
    try {
      all = await api('GET', '/api/arenas');
    } catch (e) {
      lists.replaceChildren(h('p', { class: 'error' }, e.message));
      return;
    }
    const section = (key, label) => h('section', { id: 'arenas-' + key },
      h('h2', {}, label),
      all[key] && all[key].length ? h('table', { class: 'list' }, h('caption', { class: 'sr-only' }, label), h('tbody', {}, all[key].map(arenaRow)))
        : h('p', { class: 'muted' }, 'None.'));
    lists.replaceChildren(section('running', 'Running'), section('upcoming', 'Upcoming'),
      ...(all.finishing.length ? [section('finishing', 'Finishing')] : []), section('finished', 'Finished'));
  };
  load();
  const timer = setInterval(load, 5000);
  return {
    update: (msg) => { if (msg.type === 'arena_created') follow.ctx.go('/arena/' + msg.arena.id); },
    leave: () => clearInterval(timer),
  };
}

function field(label, input) {
  return h('label', { class: 'field' }, h('span', {}, label), input);
}

function arenaForm() {
  const { VARIANTS, RULESETS, TCS, send } = follow.ctx;
  const name = h('input', { name: 'name', required: true, maxlength: 60, value: 'Blitz arena' });
  const variant = h('select', { name: 'variant' }, VARIANTS.map((v) => h('option', { value: v }, title(v))));
  const ruleset = h('select', { name: 'ruleset' });
  const fill = () => ruleset.replaceChildren(...(RULESETS[variant.value] || [['', 'Standard rules']]).map(([v, l]) => h('option', { value: v }, l)));
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
  const password = h('input', { name: 'password', autocomplete: 'off', placeholder: 'none: open to all' });
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
  h('h2', {}, 'Create an arena'),
  field('Name', name),
  h('div', { class: 'grid2' }, field('Variant', variant), field('Rule set', ruleset), field('Time control (min+s)', tc), field('Starts in (minutes)', starts),
    field('Duration (minutes)', duration), field('Rated games needed', minGames), field('Lowest rating', minRating), field('Highest rating', maxRating)),
  tcs,
  h('label', { class: 'check' }, rated, ' Rated'),
  h('label', { class: 'check' }, berserk, ' Berserk allowed'),
  field('Password', password),
  h('button', { type: 'submit' }, 'Create arena'));
}

// ---- one arena ------------------------------------------------------------------

const RESULT = { win: 'won', draw: 'drawn', loss: 'lost' };
const games = (n) => `${n} game${n === 1 ? '' : 's'}`;

function sheetMarks(sheet) {
  return h('ol', { class: 'sheet', id: 'arena-sheet', 'aria-label': 'Your games' }, sheet.map((e) => {
    const marks = [e.flag === 'double' ? 'on a streak' : '', e.flag === 'null_draw' ? 'a repeated draw, no point' : '', e.berserk ? 'berserk' : '', e.berserk_point ? 'berserk point' : ''].filter(Boolean);
    return h('li', { class: `pts ${e.result} ${e.flag}`, 'data-game': e.game_id, title: `${RESULT[e.result] || e.result} against ${e.opponent}` },
      h('a', { href: '/game/' + e.game_id, 'aria-label': `${RESULT[e.result] || e.result} against ${e.opponent}, ${e.points} points${marks.length ? ', ' + marks.join(', ') : ''}` },
        String(e.points), e.flag === 'double' ? '★' : '', e.berserk ? '⚡' : ''));
  }));
}

function leaderboard(lines, meId) {
  if (!lines.length) return h('p', { class: 'muted' }, 'Nobody yet.');
  return h('table', { class: 'list standings', id: 'arena-standings' },
    h('caption', { class: 'sr-only' }, 'Standings'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col', class: 'hide-narrow' }, 'Games'), h('th', { scope: 'col' }, 'Score'))),
    h('tbody', {}, lines.map((l) => h('tr', { class: l.user === meId ? 'me' : '', 'data-user': l.user },
      h('td', {}, String(l.rank)),
      h('td', {}, nameLink(l.user, l.name), h('small', { class: 'muted' }, ` ${l.rating}`), l.fire ? h('span', { class: 'fire', 'aria-label': 'on a streak', title: 'on a streak' }, ' ★') : '',
        h('div', { class: 'points', 'aria-hidden': 'true' }, (l.points || []).join(' '))),
      h('td', { class: 'hide-narrow' }, String(l.games)),
      h('td', { class: 'score' }, h('b', {}, String(l.score)))))));
}

export function arenaScreen(id) {
  const { app, view, send } = follow.ctx;
  document.title = 'damka · arena';
  const a = arena(id);
  const head = h('section', { class: 'card wide arena-head', id: 'arena', 'data-arena': id });
  const me = h('section', { class: 'card', id: 'arena-me', 'aria-live': 'polite' });
  const board = h('section', { class: 'card', id: 'arena-board' });
  const podium = h('section', { class: 'card wide', id: 'arena-podium', hidden: true });
  view.replaceChildren(h('div', { class: 'events' }, head, podium, me, board));
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
      head.replaceChildren(h('p', { class: 'error' }, e.status === 404 ? 'No such arena.' : e.message));
    }
  };

  const status = () => (a.final ? 'finished' : (a.standings && a.standings.status) || (a.info && a.info.status) || 'upcoming');
  const remaining = () => (a.standings ? a.standings.remaining_ms - (performance.now() - a.at) : a.info ? (a.info.status === 'upcoming' ? a.info.starts_at_ms : a.info.starts_at_ms + a.info.duration_ms) - Date.now() : 0);

  // Past its end by the server's clock (the standings' countdown where there is one).
  const isOver = () => status() === 'finished' || (status() !== 'upcoming' && remaining() <= 0);

  function clockText() {
    const s = status();
    if (s === 'finished') return 'Finished';
    if (s === 'upcoming') return `Starts in ${fmtSpan(remaining())}`;
    return remaining() > 0 ? `Ends in ${fmtSpan(remaining())}` : 'Over: the last games are being played';
  }

  function nextText() {
    const m = a.standings && a.standings.me;
    if (!m || a.membership !== 'active' || status() !== 'running') return '';
    if (m.game_id) return '';
    if (m.next_wave_at_ms && m.next_wave_at_ms > Date.now()) return `Next game starts in ${Math.ceil((m.next_wave_at_ms - Date.now()) / 1000)} s`;
    return remaining() > 0 ? 'Waiting for an opponent…' : 'No new games: the arena is closing.';
  }

  function actions() {
    const s = status();
    const out = [];
    if (s === 'finished' || !app.auth) return out;
    const join = () => send({ type: 'arena_join', arena_id: id, ...(password && password.value ? { password: password.value } : {}) });
    if (a.membership === 'active') {
      out.push(h('button', { id: 'arena-pause', onclick: () => send({ type: 'arena_pause', arena_id: id }) }, 'Pause'),
        h('button', { id: 'arena-withdraw', onclick: () => send({ type: 'arena_withdraw', arena_id: id }) }, 'Withdraw'));
    } else if (a.membership === 'paused') {
      out.push(h('button', { id: 'arena-join', onclick: join }, '▶ Resume'));
    } else {
      if (a.info && a.info.private) {
        password = password || h('input', { id: 'arena-password', type: 'password', 'aria-label': 'Arena password', placeholder: 'Password' });
        out.push(password);
      }
      out.push(h('button', { id: 'arena-join', onclick: join }, 'Join'));
    }
    return out;
  }

  function draw() {
    const i = a.info;
    if (!i) return;
    document.title = `damka · ${i.name}`;
    const st = a.standings;
    const conds = [i.berserk ? 'berserk allowed' : '', i.min_games ? `${i.min_games} rated games needed` : '', i.min_rating ? `rating ≥ ${i.min_rating}` : '',
      i.max_rating ? `rating ≤ ${i.max_rating}` : '', i.private ? 'password' : ''].filter(Boolean).join(' · ');
    head.replaceChildren(
      h('h1', {}, i.name),
      h('p', { class: 'muted' }, `${title(i.variant)}${i.ruleset === 'russian_ua' ? ' (Ukrainian rules)' : ''} · ${tcText(i.time_control)} · ${i.rated ? 'rated' : 'casual'} · ${fmtSpan(i.duration_ms)}${conds ? ' · ' + conds : ''}`),
      h('p', { class: 'arena-clock' }, h('span', { id: 'arena-status', 'data-status': status(), role: 'timer' }, clockText()),
        st ? h('span', { id: 'arena-count' }, ` · ${st.players} players · ${st.playing} playing`) : ''),
      h('div', { class: 'actions', id: 'arena-actions' }, actions()),
      st && st.featured ? h('p', {}, h('a', { id: 'arena-featured', href: '/game/' + st.featured }, '▶ Watch the featured game')) : '');
    const m = st && st.me;
    if (m && a.membership !== 'withdrawn') {
      me.hidden = false;
      const l = m.standing;
      me.replaceChildren(h('h2', {}, 'You'),
        h('p', { id: 'arena-rank' }, `Rank ${l.rank} · ${l.score} points · ${games(l.games)}${l.fire ? ' · ★ on a streak' : ''}${a.membership === 'paused' ? ' · paused' : ''}`),
        m.game_id && !follow.ctx.app.games.get(m.game_id)?.outcome ? h('p', {}, h('a', { id: 'arena-current', class: 'button', href: '/game/' + m.game_id }, 'Back to your game')) : '',
        h('p', { id: 'arena-next', role: 'status' }, nextText()),
        m.sheet.length ? sheetMarks(m.sheet) : h('p', { class: 'muted' }, 'No games yet.'));
    } else {
      me.hidden = !a.membership;
      me.replaceChildren(h('h2', {}, 'You'), h('p', { id: 'arena-rank' }, a.membership === 'withdrawn' ? 'You left this arena.' : a.membership === 'active' ? 'Joined: waiting for the standings…' : ''));
    }
    const lines = a.final ? a.final.standings : st ? st.top : [];
    board.replaceChildren(h('h2', {}, a.final ? 'Final standings' : 'Leaderboard'), leaderboard(lines, app.me && app.me.id));
    if (a.final) {
      podium.hidden = false;
      podium.replaceChildren(h('h2', {}, 'Podium'), h('ol', { class: 'podium', id: 'podium' }, a.final.podium.map((l, k) => h('li', { 'data-user': l.user },
        h('span', { class: `medal m${k + 1}`, 'aria-label': `place ${k + 1}` }, String(k + 1)), h('b', {}, l.name), ` ${l.score} points · ${games(l.games)}`))));
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
  document.title = 'damka · tournaments';
  const list = h('div', { id: 'tournament-list' }, h('p', { class: 'muted' }, 'Loading…'));
  view.replaceChildren(h('div', { class: 'events' }, h('section', { class: 'card wide' }, h('h1', {}, 'Tournaments'), list,
    h('p', { class: 'muted' }, 'Tournaments are run by organisers under the IDF rules; players are entered by the organiser.'))));
  const load = async () => {
    try {
      const all = await api('GET', '/api/tournaments');
      list.replaceChildren(all.length ? h('table', { class: 'list' }, h('caption', { class: 'sr-only' }, 'Tournaments'), h('tbody', {}, all.map((t) => h('tr', { 'data-tournament': t.id },
        h('td', {}, h('a', { href: '/tournament/' + t.id }, t.name)),
        h('td', {}, `${title(t.variant)} ${tcText(t.time_control)}`),
        h('td', { class: 'hide-narrow' }, t.system.replace('_', ' ')),
        h('td', {}, t.status === 'running' ? `round ${t.round} of ${t.rounds}` : t.status),
        h('td', {}, `${t.players} players`))))) : h('p', { class: 'muted' }, 'No tournaments.'));
    } catch (e) {
      list.replaceChildren(h('p', { class: 'error' }, e.message));
    }
  };
  load();
  const timer = setInterval(load, 5000);
  // A tournament one plays in announces itself: show it at once.
  return { update: (msg) => { if (msg.type === 'tournament') load(); }, leave: () => clearInterval(timer) };
}

const RESULT_MARK = { white_win: 'white', black_win: 'black', draw: null };

export function tournamentScreen(id) {
  const { app, view, send } = follow.ctx;
  document.title = 'damka · tournament';
  const root = h('div', { class: 'events', id: 'tournament', 'data-tournament': id }, h('p', { class: 'muted' }, 'Loading…'));
  view.replaceChildren(root);
  let withdrawn = false;

  function draw() {
    const t = app.tournaments.get(id);
    if (!t) return;
    const s = t.summary;
    document.title = `damka · ${s.name}`;
    const bySeed = (seed) => t.players[seed - 1];
    const pname = (seed) => (bySeed(seed) ? bySeed(seed).user.name : `#${seed}`);
    const mySeed = app.me ? (t.players.find((p) => p.user.id === app.me.id) || {}).seed : undefined;
    const myPlayer = mySeed ? bySeed(mySeed) : null;
    let current = null;
    for (const r of t.rounds) for (const m of r.matches) for (const g of m.games) if (!g.result && (g.white === mySeed || g.black === mySeed)) current = g.game_id;
    const head = h('section', { class: 'card wide' },
      h('h1', {}, s.name),
      h('p', { class: 'muted' }, `${title(s.variant)} · ${tcText(s.time_control)} · ${s.system.replace('_', ' ')} · ${s.players} players`),
      h('p', { id: 'tournament-status', role: 'status' }, s.status === 'finished' ? 'Finished'
        : s.status === 'running' ? `Round ${s.round} of ${s.rounds}${s.round_in_progress ? ' in progress' : ': the next round starts soon'}` : 'Upcoming: the first round starts soon'),
      myPlayer ? h('p', { id: 'tournament-me' }, myPlayer.withdrawn || withdrawn ? 'You have withdrawn (it takes effect when the round ends).'
        : current ? h('a', { class: 'button', id: 'tournament-current', href: '/game/' + current }, 'Go to your game')
          : s.status === 'finished' ? '' : 'Your next game opens here by itself when it starts.') : '',
      h('div', { class: 'actions' }, myPlayer && !myPlayer.withdrawn && !withdrawn && s.status !== 'finished'
        ? h('button', { id: 'tournament-withdraw', onclick: (e) => {
          if (!e.target.dataset.armed) { e.target.dataset.armed = '1'; e.target.textContent = 'Withdraw? Click again'; return; }
          send({ type: 'tournament_withdraw', tournament_id: id });
          withdrawn = true;
          draw();
        } }, 'Withdraw') : '',
      h('a', { class: 'button', href: `/api/tournaments/${id}/pdn`, download: `${id}.pdn` }, 'Download PDN')));
    const tbNames = t.standings.length ? t.standings[0].tiebreaks.map((x) => x.name) : [];
    const standings = h('section', { class: 'card' }, h('h2', {}, 'Standings'), h('table', { class: 'list standings', id: 'tournament-standings' },
      h('caption', { class: 'sr-only' }, 'Standings'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, 'Player'), h('th', { scope: 'col' }, 'Score'), tbNames.map((n) => h('th', { scope: 'col', class: 'hide-narrow' }, n)))),
      h('tbody', {}, t.standings.map((l) => h('tr', { class: l.seed === mySeed ? 'me' : '', 'data-seed': l.seed },
        h('td', {}, l.place === l.place_to ? String(l.place) : `${l.place}-${l.place_to}`),
        h('td', {}, pname(l.seed), bySeed(l.seed) && bySeed(l.seed).withdrawn ? h('small', { class: 'muted' }, ' (withdrawn)') : '', l.playoff && s.status === 'finished' ? h('small', {}, ' playoff') : ''),
        h('td', { class: 'score' }, h('b', {}, String(l.score))),
        l.tiebreaks.map((x) => h('td', { class: 'hide-narrow' }, String(x.value))))))));
    const n = t.players.length;
    const cross = h('section', { class: 'card scroll-x' }, h('h2', {}, 'Crosstable'), h('table', { class: 'crosstable', id: 'crosstable' },
      h('caption', { class: 'sr-only' }, 'Crosstable: points of the row player against the column player'),
      h('thead', {}, h('tr', {}, h('th', {}, ''), t.players.map((p) => h('th', { scope: 'col', title: p.user.name }, String(p.seed))))),
      h('tbody', {}, Array.from({ length: n }, (_, i) => h('tr', {}, h('th', { scope: 'row' }, `${i + 1} ${pname(i + 1)}`),
        Array.from({ length: n }, (__, j) => h('td', { class: i === j ? 'self' : '' }, i === j ? '×' : t.crosstable[i] && t.crosstable[i][j] !== null && t.crosstable[i][j] !== undefined ? String(t.crosstable[i][j]) : '')))))));
    const rounds = h('section', { class: 'card wide' }, h('h2', {}, 'Rounds'), t.rounds.length ? '' : h('p', { class: 'muted' }, 'No round paired yet.'), t.rounds.slice().reverse().map((r) => h('div', { class: 'round', 'data-round': r.number },
      h('h3', {}, `Round ${r.number}`),
      h('ul', { class: 'list' }, r.matches.map((m) => h('li', {}, `${pname(m.white)} – ${pname(m.black)}${m.opening ? ` (ballot ${m.opening})` : ''}${m.forfeit ? ' · forfeit' : ''}: `,
        m.games.map((g, k) => [k ? ', ' : '', h('a', { href: '/game/' + g.game_id, 'data-game': g.game_id }, g.result ? (g.result in RESULT_MARK ? scoreText(s.variant, RESULT_MARK[g.result]) : g.result) : 'live')]))),
      r.bye ? h('li', {}, `${pname(r.bye)}: bye`) : ''))));
    root.replaceChildren(head, standings, cross, rounds);
  }

  api('GET', `/api/tournaments/${encodeURIComponent(id)}`).then((t) => {
    if (!app.tournaments.has(id)) app.tournaments.set(id, t);
    draw();
  }).catch((e) => root.replaceChildren(h('p', { class: 'error' }, e.status === 404 ? 'No such tournament.' : e.message)));
  if (app.auth) send({ type: 'tournament_watch', tournament_id: id });
  draw();
  return {
    online: () => send({ type: 'tournament_watch', tournament_id: id }),
    update: (msg) => { if (msg.type === 'tournament' && msg.tournament.summary.id === id) draw(); },
    error: (msg) => {
      if (msg.code === 'not_in_tournament') {
        withdrawn = false;
        follow.ctx.toast(msg.message);
        draw();
        return true;
      }
      return false;
    },
    leave: () => {
      // Players follow their tournament without asking: only a watcher stops watching.
      const t = app.tournaments.get(id);
      if (!(t && app.me && t.players.some((p) => p.user.id === app.me.id))) send({ type: 'tournament_unwatch', tournament_id: id });
    },
  };
}
