// damka's browser client: sign-in, lobby (pools, seeks, challenges), the game screen
// for players and spectators, TV, profiles and the replay of archived games. Plain ES
// modules; the server sends every legal move, so there is no rules engine here.

import { Board, DRAUGHTS, isChess, readFen } from './board.js';
import { Conn, api } from './net.js';
import { $, errorText, h, scoreText, title } from './ui.js';
import { arenaFor, bind, remember, tournamentFor } from './follow.js';

const VARIANTS = [...DRAUGHTS, 'chess', 'chess960'];
const RULESETS = { russian: [['russian_idf', 'IDF rules'], ['russian_ua', 'Ukrainian draw rules']] };
const REASONS = {
  checkmate: 'checkmate', stalemate: 'stalemate', no_pieces: 'no pieces left', no_moves: 'no legal move',
  resignation: 'resignation', timeout: 'time forfeit', agreement: 'draw agreed', repetition: 'repetition',
  move_rule: 'move rule', insufficient_material: 'insufficient material', rule_draw: 'drawn by rule',
  abandoned: 'opponent left', aborted: 'aborted',
};

const view = $('#view');

// ---- session --------------------------------------------------------------------

const app = {
  auth: JSON.parse(localStorage.getItem('damka.auth') || 'null'),
  conn: null,
  me: null,
  games: new Map(), // id -> game state kept up to date from events
  challenges: new Map(),
  seeks: [],
  pool: null,
  arenas: new Map(), // id -> { info, standings, membership } from arena messages
  arenaGames: new Map(), // game id -> arena id, for my arena games
  tournaments: new Map(), // id -> the latest `tournament` view
  screen: null,
  toast: null,
};

function saveAuth(auth) {
  app.auth = auth;
  if (auth) localStorage.setItem('damka.auth', JSON.stringify(auth));
  else localStorage.removeItem('damka.auth');
  if (app.conn) app.conn.close();
  app.conn = null;
  app.me = null;
  connect();
  renderHeader();
}

function connect() {
  if (!app.auth || app.conn) return;
  app.conn = new Conn(app.auth.token, {
    status: (s, code) => {
      document.body.dataset.conn = s;
      $('#conn').textContent = s === 'online' ? '' : s === 'offline' ? 'reconnecting…' : 'connecting…';
      if (s === 'offline' && code === 4001) saveAuth(null);
    },
    welcome: (msg, again) => {
      app.me = msg.user;
      renderHeader();
      if (again) {
        // Back after a drop: every followed game from the last version seen.
        for (const g of app.games.values()) send({ type: 'resume', game_id: g.game_id, last_version: g.version });
      }
      if (app.screen && app.screen.online) app.screen.online();
    },
    message: onMessage,
  });
}

const send = (msg) => app.conn && app.conn.send(msg);

function toast(text) {
  const t = $('#toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(app.toast);
  app.toast = setTimeout(() => (t.hidden = true), 4000);
}

function onMessage(msg) {
  remember(msg);
  switch (msg.type) {
    case 'game_start':
      // Both players were online to be paired; the state may predate the other's join.
      app.games.set(msg.game.game_id, fresh({ ...msg.game, connected: [true, true] }));
      app.pool = null;
      // An accepted challenge between these two players is gone.
      for (const [cid, c] of app.challenges) {
        const ids = [msg.game.white.id, msg.game.black.id];
        if (ids.includes(c.from.id) && ids.includes(c.to)) app.challenges.delete(cid);
      }
      {
        // The next game of the arena or tournament whose game is on screen opens once
        // that game's result has been seen for a moment (7.3.10 starts game 2 of a
        // micro-match the instant game 1 ends); anything else opens at once.
        const next = '/game/' + msg.game.game_id;
        const event = msg.game.arena || msg.game.tournament;
        const here = location.pathname.startsWith('/game/') ? app.games.get(location.pathname.slice(6)) : null;
        if (!event || !here || here.game_id === msg.game.game_id || (here.arena || here.tournament) !== event) {
          go(next);
        } else {
          app.nextGame = next;
          const left = here.outcome ? (app.overAt || 0) + RESULT_PAUSE_MS - performance.now() : RESULT_PAUSE_MS + 3000;
          openNextLater(Math.max(0, left));
        }
      }
      return;
    case 'game_state': {
      const g = fresh(msg.game);
      app.games.set(g.game_id, g);
      break;
    }
    case 'game_event': {
      const g = app.games.get(msg.game_id);
      if (g && msg.version > g.version) {
        g.version = msg.version;
        apply(g, msg.event);
      }
      // The result of an arena or tournament game on screen is shown a moment before
      // the next game of the event opens (a rematch or a challenge opens at once).
      if (msg.event.kind === 'game_over' && location.pathname === '/game/' + msg.game_id) {
        app.overAt = performance.now();
        if (app.nextGame) openNextLater(RESULT_PAUSE_MS);
      }
      break;
    }
    case 'seeks':
      app.seeks = msg.seeks;
      break;
    case 'seek_created':
      app.seeks = [...app.seeks.filter((s) => s.seek_id !== msg.seek.seek_id), msg.seek];
      break;
    case 'seek_removed':
      app.seeks = app.seeks.filter((s) => s.seek_id !== msg.seek_id);
      break;
    case 'challenge_received':
    case 'challenge_sent':
      app.challenges.set(msg.challenge.challenge_id, { ...msg.challenge, mine: msg.type === 'challenge_sent' });
      if (msg.type === 'challenge_received') toast(`${msg.challenge.from.name} challenges you to ${title(msg.challenge.variant)}`);
      break;
    case 'challenge_removed':
      app.challenges.delete(msg.challenge_id);
      break;
    case 'pool_joined':
      app.pool = msg;
      break;
    case 'pool_left':
      app.pool = null;
      break;
    case 'error':
      if (app.screen && app.screen.error && app.screen.error(msg)) return;
      toast(errorText(msg));
      break;
    default:
      break;
  }
  if (app.screen && app.screen.update) app.screen.update(msg);
}

/** How long a result stays on screen before the next game opens by itself. */
const RESULT_PAUSE_MS = 2000;

/** Opens the next game waiting (`app.nextGame`) in `ms`, unless another timer did. */
function openNextLater(ms) {
  const next = app.nextGame;
  setTimeout(() => {
    if (next && app.nextGame === next) {
      app.nextGame = null;
      go(next);
    }
  }, ms);
}

/** A game state as the client keeps it. */
function fresh(state) {
  const g = { ...state, legal_moves: state.legal_moves || [], last: null, at: performance.now() };
  g.rematch_offer = null;
  return g;
}

function apply(g, ev) {
  switch (ev.kind) {
    case 'move':
      g.moves = [...g.moves, ev.played.move];
      g.fen = ev.fen;
      g.legal_moves = ev.legal_moves || [];
      g.turn = ev.by === 'white' ? 'black' : 'white';
      g.clock = ev.clock;
      g.at = performance.now();
      g.last = ev.played;
      g.takeback_offer = null;
      g.connected = [...g.connected];
      g.connected[ev.by === 'white' ? 0 : 1] = true;
      // Draw offers change by their own events (a move declines with `draw_declined`).
      break;
    case 'draw_offered':
      g.draw_offer = ev.by;
      break;
    case 'draw_declined':
      g.draw_offer = null;
      break;
    case 'takeback_offered':
      g.takeback_offer = ev.by;
      break;
    case 'takeback_declined':
      g.takeback_offer = null;
      break;
    case 'taken_back':
      g.moves = g.moves.slice(0, g.moves.length - ev.plies);
      g.fen = ev.fen;
      g.legal_moves = ev.legal_moves || [];
      g.turn = readFen(g.variant, ev.fen).turn;
      g.clock = ev.clock;
      g.at = performance.now();
      g.last = null;
      g.takeback_offer = null;
      break;
    case 'player_left':
      g.connected = [...g.connected];
      g.connected[ev.color === 'white' ? 0 : 1] = false;
      g.claim_at = performance.now() + ev.claim_after_ms;
      g.left = ev.color;
      break;
    case 'player_returned':
      g.connected = [...g.connected];
      g.connected[ev.color === 'white' ? 0 : 1] = true;
      g.left = null;
      break;
    case 'spectators':
      g.spectators = ev.count;
      break;
    case 'archived':
      if (ev.ratings) g.ratings = ev.ratings;
      break;
    case 'game_over':
      if (ev.ratings) g.ratings = ev.ratings;
      g.outcome = ev.outcome;
      g.clock = ev.clock;
      g.at = performance.now();
      g.legal_moves = [];
      g.draw_offer = null;
      g.takeback_offer = null;
      break;
    case 'rematch_offered':
      g.rematch_offer = ev.by;
      break;
    case 'rematch_declined':
      g.rematch_offer = null;
      break;
    case 'rematch_started':
      g.rematch = ev.game_id;
      break;
    case 'berserk':
      g.berserk = [...(g.berserk || []), ev.by];
      g.clock = ev.clock;
      g.at = performance.now();
      break;
    default:
      break;
  }
}

// ---- router ---------------------------------------------------------------------

function go(path, replace) {
  if (location.pathname !== path) {
    if (replace) history.replaceState(null, '', path);
    else history.pushState(null, '', path);
  }
  route();
}

window.addEventListener('popstate', route);
document.addEventListener('click', (e) => {
  const a = e.target.closest('a[href^="/"]');
  if (!a || e.ctrlKey || e.metaKey || a.target || a.hasAttribute('download')) return;
  e.preventDefault();
  go(a.getAttribute('href'));
});

function route() {
  if (app.screen && app.screen.leave) app.screen.leave();
  app.screen = null;
  const p = location.pathname;
  let m;
  if ((m = p.match(/^\/game\/([A-Za-z0-9_-]+)$/))) app.screen = gameScreen(m[1]);
  else if ((m = p.match(/^\/tv(?:\/([a-z0-9]+))?$/))) app.screen = tvScreen(m[1] || 'russian');
  else if ((m = p.match(/^\/@\/([^/]+)$/))) app.screen = profileScreen(decodeURIComponent(m[1]));
  else if (p === '/arenas') events(p, (e) => e.arenasScreen());
  else if ((m = p.match(/^\/arena\/([A-Za-z0-9_-]+)$/))) events(p, (e) => e.arenaScreen(m[1]));
  else if (p === '/tournaments') events(p, (e) => e.tournamentsScreen());
  else if ((m = p.match(/^\/tournament\/([A-Za-z0-9_-]+)$/))) events(p, (e) => e.tournamentScreen(m[1]));
  else if (p === '/') app.screen = homeScreen();
  else app.screen = notFoundScreen(p);
}

/** An address the client does not know: say so, and where to go. */
function notFoundScreen(path) {
  document.title = 'damka · page not found';
  view.replaceChildren(h('section', { class: 'card not-found', id: 'not-found' },
    h('h1', {}, 'This page does not exist'),
    h('p', {}, `Nothing lives at ${path}. The link may be old or mistyped.`),
    h('p', {}, h('a', { href: '/', class: 'button' }, 'Go to the lobby'), ' ', h('a', { href: '/tv' }, 'Watch a live game'))));
  return {};
}

/** An arena or tournament screen: its module is loaded the first time one is opened. */
function events(path, open) {
  import('./events.js').then((e) => {
    if (location.pathname === path && !app.screen) app.screen = open(e);
  }).catch((err) => view.replaceChildren(h('p', { class: 'error' }, `Could not load this page: ${err.message}`)));
}

function renderHeader() {
  const u = $('#user');
  u.replaceChildren();
  if (app.auth) {
    const name = (app.me && app.me.name) || app.auth.user.name;
    u.append(
      app.auth.guest ? h('span', { class: 'name' }, name) : h('a', { href: '/@/' + encodeURIComponent(name), class: 'name' }, name),
      h('button', { class: 'link', id: 'sign-out', onclick: () => { saveAuth(null); go('/'); } }, 'Sign out'),
    );
  }
}

// ---- home -----------------------------------------------------------------------

function signIn() {
  const msg = h('p', { class: 'error', role: 'alert' });
  const guestName = h('input', { id: 'guest-name', name: 'name', placeholder: 'Your name', 'aria-label': 'Guest name', maxlength: 20, required: true });
  const user = h('input', { id: 'username', name: 'username', placeholder: 'Username', 'aria-label': 'Username', autocomplete: 'username' });
  const pass = h('input', { id: 'password', name: 'password', type: 'password', placeholder: 'Password', 'aria-label': 'Password', autocomplete: 'current-password' });
  const account = async (kind) => {
    msg.textContent = '';
    try {
      const r = await api('POST', `/api/account/${kind}`, { username: user.value.trim(), password: pass.value });
      saveAuth({ token: r.token, user: r.user, guest: false });
      route();
    } catch (e) {
      msg.textContent = e.status === 404 || e.status === 405 ? 'Accounts are not available on this server yet: play as a guest.' : e.message;
    }
  };
  return h('section', { class: 'card signin' },
    h('h2', {}, 'Play'),
    h('form', {
      onsubmit: async (e) => {
        e.preventDefault();
        msg.textContent = '';
        try {
          const r = await api('POST', '/api/auth/guest', { name: guestName.value.trim() });
          saveAuth({ token: r.token, user: r.user, guest: true });
          route();
        } catch (err) {
          msg.textContent = err.message;
        }
      },
    }, guestName, h('button', { id: 'play-guest', type: 'submit' }, 'Play as guest')),
    h('form', { onsubmit: (e) => { e.preventDefault(); account('login'); } },
      user, pass,
      h('div', { class: 'row' },
        h('button', { id: 'login', type: 'submit' }, 'Log in'),
        h('button', { id: 'register', type: 'button', onclick: () => account('register') }, 'Register'))),
    msg);
}

const TCS = ['1+0', '3+0', '3+2', '5+3', '10+5', '15+10', '30+0'];
function tcOptions() {
  return TCS.map((t) => h('option', { value: t }, t));
}

function createForm() {
  const variant = h('select', { name: 'variant', 'aria-label': 'Variant' }, VARIANTS.map((v) => h('option', { value: v }, title(v))));
  const ruleset = h('select', { name: 'ruleset', 'aria-label': 'Rule set' });
  const fillRules = () => {
    ruleset.replaceChildren(...(RULESETS[variant.value] || [['', 'Standard rules']]).map(([v, l]) => h('option', { value: v }, l)));
  };
  variant.addEventListener('change', fillRules);
  fillRules();
  const tc = h('select', { name: 'time_control', 'aria-label': 'Time control' }, tcOptions());
  tc.value = '5+3';
  const rated = h('input', { type: 'checkbox', name: 'rated', id: 'rated' });
  const color = h('select', { name: 'color', 'aria-label': 'Colour' }, ['random', 'white', 'black'].map((c) => h('option', { value: c }, title(c))));
  const opponent = h('input', { name: 'opponent', placeholder: 'Opponent id (empty: open seek)', 'aria-label': 'Opponent' });
  const fen = h('input', { name: 'fen', placeholder: 'From position (FEN, casual challenges)', 'aria-label': 'Start position' });
  return h('form', {
    class: 'card create',
    id: 'create',
    onsubmit: (e) => {
      e.preventDefault();
      const base = { variant: variant.value, time_control: tc.value, rated: rated.checked, color: color.value };
      if (ruleset.value) base.ruleset = ruleset.value;
      if (opponent.value.trim()) {
        const msg = { type: 'challenge', user: opponent.value.trim(), ...base };
        if (fen.value.trim()) msg.fen = fen.value.trim();
        send(msg);
      } else send({ type: 'seek', ...base });
    },
  },
  h('h2', {}, 'Create a game'),
  h('div', { class: 'grid2' }, variant, ruleset, tc, color),
  h('label', { class: 'check' }, rated, ' Rated'),
  opponent, fen,
  h('button', { type: 'submit' }, 'Create'));
}

/** Play the computer: a casual game against the engine at a level 1-8 (computer_play). */
function computerForm() {
  const variant = h('select', { name: 'variant', 'aria-label': 'Variant' }, VARIANTS.map((v) => h('option', { value: v }, title(v))));
  const level = h('select', { name: 'level', 'aria-label': 'Level' },
    [1, 2, 3, 4, 5, 6, 7, 8].map((n) => h('option', { value: String(n) }, `Level ${n}`)));
  level.value = '3';
  const tc = h('select', { name: 'time_control', 'aria-label': 'Time control' }, tcOptions());
  tc.value = '5+3';
  const color = h('select', { name: 'color', 'aria-label': 'Colour' }, ['random', 'white', 'black'].map((c) => h('option', { value: c }, title(c))));
  const fen = h('input', { name: 'fen', placeholder: 'From position (FEN, optional)', 'aria-label': 'Start position' });
  return h('form', {
    class: 'card create',
    id: 'computer',
    onsubmit: (e) => {
      e.preventDefault();
      const msg = { type: 'computer_play', variant: variant.value, level: Number(level.value), time_control: tc.value, color: color.value };
      if (fen.value.trim()) msg.fen = fen.value.trim();
      send(msg);
    },
  },
  h('h2', {}, 'Play the computer'),
  h('div', { class: 'grid2' }, variant, level, tc, color),
  fen,
  h('button', { type: 'submit' }, 'Play the computer'));
}

function homeScreen() {
  document.title = 'damka';
  if (!app.auth) {
    view.replaceChildren(h('div', { class: 'home' }, h('section', { class: 'intro' },
      h('h1', {}, 'damka'),
      h('p', {}, 'Draughts of every school and chess, live. Play at once as a guest, or sign in.')), signIn(), tvLinks()));
    return {};
  }
  const pools = h('div', { class: 'pools', id: 'pools' });
  const seeks = h('div', { id: 'seeks' });
  const challenges = h('div', { id: 'challenges' });
  const poolState = h('p', { id: 'pool-state', role: 'status' });
  const ratedPool = h('input', { type: 'checkbox', id: 'pool-rated' });
  const poolOptions = app.auth.guest ? h('p', { class: 'muted' }, 'Guests play casual games; register to play rated.')
    : h('label', { class: 'check' }, ratedPool, ' Rated');
  view.replaceChildren(h('div', { class: 'home' },
    h('section', { class: 'card' }, h('h2', {}, 'Quick pairing'), pools, poolOptions, poolState),
    computerForm(),
    h('section', { class: 'card' }, h('h2', {}, 'Open seeks'), seeks),
    h('section', { class: 'card' }, h('h2', {}, 'Challenges'), challenges),
    createForm(),
    tvLinks()));
  api('GET', '/api/pools').then((list) => {
    pools.replaceChildren(...list.map((p) => h('button', {
      class: 'pool',
      'data-pool': `${p.variant} ${p.time_control}`,
      onclick: () => send({ type: 'pool_join', variant: p.variant, time_control: p.time_control, rated: ratedPool.checked }),
    }, h('b', {}, p.time_control), h('span', {}, title(p.variant)))));
  }).catch(() => pools.replaceChildren('No pools.'));
  const draw = () => {
    poolState.replaceChildren(...(app.pool ? [`Waiting for an opponent: ${title(app.pool.variant)} ${app.pool.time_control}${app.pool.rated ? ' rated' : ''} `,
      h('button', { class: 'link', onclick: () => send({ type: 'pool_leave' }) }, 'Leave')] : []));
    seeks.replaceChildren(app.seeks.length ? h('table', { class: 'list' }, h('tbody', {}, app.seeks.map((s) => {
      const mine = app.me && s.user.id === app.me.id;
      return h('tr', {},
        h('td', {}, s.user.name), h('td', {}, s.user.rating || ''), h('td', {}, title(s.variant)), h('td', {}, s.time_control),
        h('td', {}, s.rated ? 'rated' : 'casual'),
        h('td', {}, mine ? h('button', { onclick: () => send({ type: 'cancel_seek', seek_id: s.seek_id }) }, 'Cancel')
          : h('button', { onclick: () => send({ type: 'accept_seek', seek_id: s.seek_id }) }, 'Play')));
    }))) : h('p', { class: 'muted' }, 'No open seeks.'));
    const cs = [...app.challenges.values()];
    challenges.replaceChildren(cs.length ? h('ul', { class: 'list' }, cs.map((c) => h('li', {},
      c.mine ? `To ${c.to}: ` : `From ${c.from.name}: `,
      `${title(c.variant)} ${c.time_control}${c.rated ? ' rated' : ''}${c.fen ? ' from a position' : ''} `,
      c.mine ? h('button', { onclick: () => send({ type: 'cancel_challenge', challenge_id: c.challenge_id }) }, 'Cancel')
        : [h('button', { onclick: () => send({ type: 'accept_challenge', challenge_id: c.challenge_id }) }, 'Accept'), ' ',
          h('button', { onclick: () => send({ type: 'decline_challenge', challenge_id: c.challenge_id }) }, 'Decline')]))) : h('p', { class: 'muted' }, `Your id: ${app.me ? app.me.id : '…'}`));
  };
  draw();
  send({ type: 'list_seeks' });
  const timer = setInterval(() => send({ type: 'list_seeks' }), 4000);
  return { update: draw, online: draw, leave: () => clearInterval(timer) };
}

function tvLinks() {
  return h('section', { class: 'card tv-links' }, h('h2', {}, 'Watch'),
    h('nav', {}, VARIANTS.map((v) => h('a', { href: '/tv/' + v }, title(v)))));
}

// ---- game -----------------------------------------------------------------------

function fmtClock(ms) {
  ms = Math.max(0, ms);
  if (ms < 10000) return (ms / 1000).toFixed(1);
  const s = Math.ceil(ms / 1000);
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}

function clockOf(g, color) {
  const base = g.clock[color + '_ms'];
  if (g.clock.running !== color || g.outcome) return base;
  return base - (performance.now() - g.at);
}

function resultText(g) {
  const o = g.outcome;
  if (!o) return '';
  const who = o.winner ? `${title(o.winner)} wins` : o.reason === 'aborted' ? 'Game aborted' : 'Draw';
  const score = o.reason === 'aborted' ? '' : scoreText(g.variant, o.winner || null);
  return `${score ? score + ' · ' : ''}${who} · ${REASONS[o.reason] || o.reason}${o.detail ? ` (${o.detail})` : ''}`;
}

/** Pieces each side has lost, from the start position and now. */
function losses(g) {
  const count = (fen) => {
    const c = { w: {}, b: {} };
    for (const p of readFen(g.variant, fen).pieces.values()) c[p.color][p.kind] = (c[p.color][p.kind] || 0) + 1;
    return c;
  };
  const a = count(g.initial_fen);
  const b = count(g.fen);
  const out = { w: 0, b: 0, wl: '', bl: '' };
  const glyph = { q: '♛', r: '♜', b: '♝', n: '♞', p: '♟', man: '●', king: '●' };
  for (const side of ['w', 'b']) {
    let n = 0;
    let text = '';
    const total = (o) => Object.values(o).reduce((x, y) => x + y, 0);
    if (isChess(g.variant)) {
      // A promoted pawn is still on the board, as the piece it became: pieces beyond
      // the start's count are promotions, and that many missing pawns were not taken.
      const promoted = ['q', 'r', 'b', 'n'].reduce((x, k) => x + Math.max(0, (b[side][k] || 0) - (a[side][k] || 0)), 0);
      for (const k of ['q', 'r', 'b', 'n', 'p']) {
        const missing = Math.max(0, (a[side][k] || 0) - (b[side][k] || 0));
        const lost = k === 'p' ? Math.max(0, missing - promoted) : missing;
        n += lost;
        text += glyph[k].repeat(lost);
      }
    } else {
      n = Math.max(0, total(a[side]) - total(b[side]));
      text = n ? `${'●'.repeat(Math.min(n, 5))}${n > 5 ? ` +${n - 5}` : ''}` : '';
    }
    out[side] = n;
    out[side + 'l'] = text;
  }
  return out;
}

function gameScreen(id, tv) {
  let g = app.games.get(id);
  let board = null;
  let mode = null; // 'live' | 'replay'
  let flipped = false;
  let moveId = 0;
  let tick = null;
  const root = h('div', { class: 'game', id: 'game', 'data-game': id });
  view.replaceChildren(root);
  document.title = 'damka · game';

  const follow = () => {
    if (!app.auth) return;
    if (tv) send({ type: 'tv', variant: tv });
    else send({ type: 'resume', game_id: id, last_version: 0 });
  };

  const color = () => (g && app.me ? (g.white.id === app.me.id ? 'white' : g.black.id === app.me.id ? 'black' : null) : null);

  const act = (type, extra = {}) => send({ type, game_id: g.game_id, ...extra });

  function layout() {
    root.replaceChildren();
    root.dataset.game = g.game_id;
    const me = color();
    const bottom = flipped ? (me === 'black' ? 'white' : 'black') : me === 'black' ? 'black' : 'white';
    const top = bottom === 'white' ? 'black' : 'white';
    const boardHost = h('div', { class: 'board-wrap', id: 'board' });
    const side = h('aside', { class: 'panel' },
      h('div', { class: 'meta' },
        h('span', { id: 'variant' }, `${title(g.variant)} ${g.ruleset === 'russian_ua' ? '(Ukrainian rules) ' : ''}· ${g.time_control} · ${g.rated ? 'rated' : 'casual'}`),
        h('span', { id: 'spectators', title: 'spectators' }, '')),
      player(top, 'top'),
      h('ol', { class: 'moves', id: 'moves', 'aria-label': 'Moves', 'aria-live': 'polite' }),
      h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }),
      h('div', { id: 'offers', class: 'offers' }),
      h('div', { id: 'actions', class: 'actions' }),
      player(bottom, 'bottom'),
      me ? h('form', {
        class: 'keyboard', onsubmit: (e) => {
          e.preventDefault();
          const input = $('#move-input');
          const text = input.value.trim();
          if (text) play(text);
          input.value = '';
        },
      }, h('input', { id: 'move-input', 'aria-label': 'Type a move', placeholder: isChess(g.variant) ? 'Type a move: Nf3, e2e4' : 'Type a move: c3-d4, 32-28', autocomplete: 'off' })) : null);
    root.append(h('div', { class: 'board-col' }, boardHost), side);
    board = new Board(boardHost, g.variant, play);
    board.flipped = bottom === 'black';
    draw();
  }

  function player(c, pos) {
    return h('div', { class: `player ${pos}`, id: `player-${c}`, 'data-color': c },
      h('span', { class: 'dot', title: 'connection' }),
      h('span', { class: 'pname' }),
      h('span', { class: 'rdiff' }),
      h('span', { class: 'lost' }),
      h('span', { class: 'clock', id: `clock-${c}`, role: 'timer', 'aria-label': `${c} clock` }));
  }

  function play(text) {
    if (!g || g.outcome) return;
    moveId += 1;
    send({ type: 'move', game_id: g.game_id, move: text, move_id: moveId });
  }

  function drawClocks() {
    if (!g) return;
    for (const c of ['white', 'black']) {
      const el = $(`#clock-${c}`, root);
      if (!el) continue;
      const ms = clockOf(g, c);
      el.textContent = fmtClock(ms);
      el.classList.toggle('running', g.clock.running === c && !g.outcome);
      el.classList.toggle('low', ms < 10000);
    }
    if (g.left && g.claim_at && performance.now() >= g.claim_at && !g.outcome && color() && color() !== g.left) {
      if (!$('#claim-win', root)) draw();
    }
  }

  function draw() {
    if (!g || !board) return;
    const me = color();
    board.set({ fen: g.fen, legal: me && me === g.turn && !g.outcome ? g.legal_moves : [], last: g.last, mine: me, turn: g.turn });
    const lost = losses(g);
    for (const c of ['white', 'black']) {
      const p = $(`#player-${c}`, root);
      const u = g[c];
      const r = g.ratings && g.ratings[c];
      const diff = r ? Math.round(r.after) - Math.round(r.before) : 0;
      $('.pname', p).replaceChildren(u.guest ? u.name : h('a', { href: '/@/' + encodeURIComponent(u.name) }, u.name),
        u.rating ? h('small', {}, ` ${u.rating}`) : '',
        (g.berserk || []).includes(c) ? h('span', { class: 'berserk', 'aria-label': 'berserk', title: 'berserk: half the clock, no increment' }, ' ⚡') : '');
      // Beside the name, never inside its ellipsis.
      $('.rdiff', p).replaceChildren(r ? h('small', { class: diff >= 0 ? 'up' : 'down', 'data-rating-diff': diff }, `${diff >= 0 ? '+' : ''}${diff}`) : '');
      const on = g.connected[c === 'white' ? 0 : 1];
      p.classList.toggle('away', !on);
      $('.dot', p).setAttribute('aria-label', on ? 'connected' : 'disconnected');
      // What this player has captured, in the colour of the pieces taken.
      const taken = c === 'white' ? 'b' : 'w';
      const tally = $('.lost', p);
      tally.className = 'lost ' + taken;
      tally.textContent = lost[taken] ? lost[taken + 'l'] : '';
      tally.setAttribute('aria-label', lost[taken] ? `captured ${lost[taken]}` : '');
      p.classList.toggle('to-move', g.turn === c && !g.outcome);
    }
    $('#spectators', root).textContent = g.spectators ? `${g.spectators} watching` : '';
    const moves = $('#moves', root);
    moves.replaceChildren();
    const offset = readFen(g.variant, g.initial_fen).turn === 'black' ? 1 : 0;
    const all = offset ? ['…', ...g.moves] : g.moves;
    for (let i = 0; i < all.length; i += 2) {
      moves.append(h('li', {}, h('span', { class: 'mv' }, all[i]), all[i + 1] ? h('span', { class: 'mv' }, all[i + 1]) : ''));
    }
    moves.scrollTop = moves.scrollHeight;
    const status = $('#status', root);
    // The tab's title tells a player in another tab that the game has started or
    // that it is their turn.
    const opponent = me ? g[me === 'white' ? 'black' : 'white'].name : `${g.white.name} – ${g.black.name}`;
    document.title = me && me === g.turn && !g.outcome && !g.gone ? `● Your turn · ${opponent} · damka` : `${opponent} · damka`;
    if (g.gone) {
      status.replaceChildren('This game is no longer on the server (it was lost when the server restarted). ',
        h('a', { href: '/', id: 'gone-lobby' }, 'Back to the lobby'));
    } else status.textContent = g.outcome ? resultText(g) : `${title(g.turn)} to move${me ? (me === g.turn ? ' · your turn' : '') : ''}`;
    status.classList.toggle('over', !!g.outcome);
    drawOffers(me);
    drawActions(me);
    drawClocks();
  }

  function drawOffers(me) {
    const o = $('#offers', root);
    o.replaceChildren();
    const them = me === 'white' ? 'black' : 'white';
    if (g.draw_offer) {
      o.append(h('span', {}, `${title(g.draw_offer)} offers a draw `));
      if (me && g.draw_offer === them) {
        o.append(h('button', { id: 'draw-accept', onclick: () => act('draw_accept') }, 'Accept'), h('button', { id: 'draw-decline', onclick: () => act('draw_decline') }, 'Decline'));
      }
    }
    if (g.takeback_offer) {
      o.append(h('span', {}, `${title(g.takeback_offer)} asks for a takeback `));
      if (me && g.takeback_offer === them) {
        o.append(h('button', { onclick: () => act('takeback_accept') }, 'Accept'), h('button', { onclick: () => act('takeback_decline') }, 'Decline'));
      }
    }
    if (g.rematch_offer && g.outcome) {
      o.append(h('span', {}, `${title(g.rematch_offer)} offers a rematch `));
      if (me && g.rematch_offer === them) {
        o.append(h('button', { onclick: () => act('rematch') }, 'Accept'), h('button', { onclick: () => act('rematch_decline') }, 'Decline'));
      }
    }
    if (g.rematch && !me) o.append(h('a', { href: '/game/' + g.rematch }, 'Watch the rematch'));
  }

  function drawActions(me) {
    const a = $('#actions', root);
    a.replaceChildren(h('button', { id: 'flip', 'aria-label': 'Flip board', onclick: () => { flipped = !flipped; board.flip(); layoutKeep(); } }, '⇅ Flip'));
    if (g.outcome && g.outcome.reason !== 'aborted') {
      a.append(h('button', {
        id: 'replay',
        onclick: () => {
          mode = 'replay';
          clearInterval(tick);
          replayArchived(g.game_id, root).then((ok) => { if (!ok) toast('The game is not in the archive yet.'); });
        },
      }, 'Replay'));
    }
    const ar = arenaFor(g.game_id);
    const tour = tournamentFor(g.game_id);
    if (!me) return;
    // In an arena: stop being paired after this game, without leaving the board.
    const pause = () => (ar && ar.membership === 'active'
      ? h('button', { id: 'arena-pause-game', title: 'No new games until you join again', onclick: () => send({ type: 'arena_pause', arena_id: ar.id }) }, 'Pause arena') : '');
    if (!g.outcome) {
      const early = g.moves.length < 2;
      const mineMoved = g.moves.length > (me === 'white' ? 0 : 1) || readFen(g.variant, g.initial_fen).turn !== 'white';
      if (ar && ar.info && ar.info.berserk && !mineMoved && !(g.berserk || []).includes(me)) {
        a.append(h('button', { id: 'berserk', title: 'Half your clock, no increment; a win with 7 moves scores one more point', onclick: () => act('berserk') }, '⚡ Berserk'));
      }
      if (early && !tour) a.append(h('button', { id: 'abort', onclick: () => act('abort') }, 'Abort'));
      a.append(
        h('button', { id: 'offer-draw', onclick: () => act('draw_offer') }, '½ Offer draw'),
        h('button', { id: 'claim-draw', onclick: () => act('draw_claim') }, 'Claim draw'),
        g.rated ? '' : h('button', { id: 'takeback', onclick: () => act('takeback_offer') }, '↶ Takeback'),
        h('button', { id: 'resign', 'data-armed': performance.now() < resignArmed ? '1' : null, onclick: () => { if (confirmResign()) act('resign'); } },
          performance.now() < resignArmed ? 'Resign? Click again' : '⚑ Resign'), pause());
      const them = me === 'white' ? 'black' : 'white';
      if (g.left === them && g.claim_at && performance.now() >= g.claim_at) {
        a.append(h('button', { id: 'claim-win', onclick: () => act('claim_abandoned', { result: 'win' }) }, 'Claim the win'),
          h('button', { onclick: () => act('claim_abandoned', { result: 'draw' }) }, 'Call it a draw'));
      }
    } else if (ar) {
      const st = ar.standings && ar.standings.me;
      const wave = st && !st.game_id && st.next_wave_at_ms ? Math.ceil((st.next_wave_at_ms - Date.now()) / 1000) : 0;
      a.append(h('a', { id: 'back-to-arena', class: 'button', href: '/arena/' + ar.id }, '← Arena'),
        h('span', { id: 'arena-next', role: 'status' }, ar.membership !== 'active' ? 'Paused: join again on the arena page'
          : wave > 0 ? `Next game starts in ${wave} s` : 'Your next game opens here by itself'), pause());
    } else if (tour) {
      a.append(h('a', { id: 'back-to-tournament', class: 'button', href: '/tournament/' + tour.summary.id }, '← Tournament'),
        h('span', { role: 'status' }, 'Your next game opens here by itself'));
    } else if (!g.rematch) {
      a.append(h('button', { id: 'rematch', onclick: () => act('rematch') }, 'Rematch'));
    } else {
      a.append(h('a', { href: '/game/' + g.rematch, class: 'button' }, 'Go to the rematch'));
    }
  }

  // Resigning asks twice; the ask survives the panel being redrawn (arena pushes, events).
  let resignArmed = 0;
  function confirmResign() {
    if (performance.now() < resignArmed) return true;
    resignArmed = performance.now() + 3000;
    drawActions(color());
    setTimeout(() => { if (root.isConnected && g) drawActions(color()); }, 3000);
    return false;
  }

  function layoutKeep() {
    const f = flipped;
    layout();
    flipped = f;
  }

  function start() {
    mode = 'live';
    layout();
    clearInterval(tick);
    tick = setInterval(drawClocks, 100);
  }

  if (g) start();
  else root.append(h('p', { class: 'muted' }, 'Loading…'));
  if (!app.auth) {
    // Not signed in: archived games can still be replayed; live ones need a guest name.
    replayArchived(id, root).then((ok) => {
      if (!ok) root.replaceChildren(signIn());
    });
  } else if (!g || tv) follow();

  return {
    online: () => { if (!g) follow(); },
    update: (msg) => {
      if (msg.type === 'game_state' && msg.game.archived && msg.game.game_id === id && !tv) {
        // An archived game: step through it.
        app.games.delete(id);
        g = null;
        mode = 'replay';
        clearInterval(tick);
        replayArchived(id, root).then((ok) => {
          if (!ok) root.replaceChildren(h('p', { class: 'error' }, 'No such game.'));
        });
      } else if (msg.type === 'game_state' && (msg.game.game_id === id || tv)) {
        const switched = !g || g.game_id !== msg.game.game_id;
        id = msg.game.game_id;
        g = app.games.get(id);
        if (switched || mode !== 'live') start();
        else draw();
      } else if (msg.type === 'game_event' && g && msg.game_id === g.game_id) {
        draw();
        if (msg.event.kind === 'rematch_started' && color()) go('/game/' + msg.event.game_id);
      } else if ((msg.type === 'arena_standings' || msg.type === 'arena_member' || msg.type === 'tournament') && g && color()) {
        drawActions(color());
      }
    },
    error: (msg) => {
      if (msg.code === 'game_not_found' && msg.game_id === id && !g) {
        mode = 'replay';
        replayArchived(id, root).then((ok) => {
          if (!ok) {
            root.replaceChildren(h('section', { class: 'card', id: 'game-gone' },
              h('h2', {}, 'This game is not here'),
              h('p', {}, 'No game has this address: the link may be mistyped, or the game ended long ago without being archived.'),
              h('p', {}, h('a', { href: '/', class: 'button' }, 'Go to the lobby'), ' ', h('a', { href: '/tv' }, 'Watch a live game'))));
          }
        });
        return true;
      }
      if (msg.code === 'game_not_found' && msg.game_id === id && g && !g.outcome) {
        // The game this page shows has gone from the server (lost in a restart): stop
        // its clocks and moves, say so, and show the way out.
        g.gone = true;
        g.legal_moves = [];
        g.clock.running = null;
        clearInterval(tick);
        draw();
        drawActions(null);
        return true;
      }
      if (msg.code === 'no_tv_game' && tv) {
        if (!g) root.replaceChildren(h('p', { class: 'muted', id: 'tv-waiting' }, `No live ${title(tv)} game right now; waiting for one…`));
        setTimeout(() => { if (app.screen && !g) follow(); }, 3000);
        return true;
      }
      if (msg.code === 'illegal_move' || msg.code === 'not_your_turn') {
        toast(errorText(msg));
        draw();
        return true;
      }
      return false;
    },
    leave: () => {
      clearInterval(tick);
      if (g && !color()) {
        if (!g.outcome) send({ type: 'unwatch', game_id: g.game_id });
        app.games.delete(g.game_id);
      }
    },
  };
}

function tvScreen(variant) {
  const s = gameScreen('tv', variant);
  document.title = `damka · ${title(variant)} TV`;
  return s;
}

// ---- archive: replay and profile -------------------------------------------------

async function replayArchived(id, root) {
  let game;
  try {
    game = await api('GET', `/api/games/${encodeURIComponent(id)}`);
  } catch (_) {
    return false;
  }
  let frames;
  try {
    frames = await api('POST', '/api/replay', { variant: game.variant, fen: game.start_fen || null, moves: game.moves.map((m) => m.san) });
  } catch (e) {
    root.replaceChildren(h('p', { class: 'error' }, e.message));
    return true;
  }
  let ply = frames.positions.length - 1;
  const host = h('div', { class: 'board-wrap', id: 'board' });
  const list = h('ol', { class: 'moves', id: 'moves' });
  const board = new Board(host, game.variant, () => {});
  const show = () => {
    board.set({ fen: frames.positions[ply], legal: [], last: ply > 0 ? frames.played[ply - 1] : null, mine: null });
    list.querySelectorAll('.mv').forEach((m, i) => m.classList.toggle('current', i + 1 === ply));
  };
  game.moves.forEach((m, i) => {
    if (i % 2 === 0) list.append(h('li', {}));
    list.lastChild.append(h('button', { class: 'mv', onclick: () => { ply = i + 1; show(); } }, m.san));
  });
  const step = (d) => { ply = Math.max(0, Math.min(frames.positions.length - 1, ply + d)); show(); };
  const name = (p) => (p ? `${p.name}${p.rating_before ? ` (${Math.round(p.rating_before)})` : ''}` : '?');
  root.replaceChildren(h('div', { class: 'board-col' }, host), h('aside', { class: 'panel' },
    h('div', { class: 'meta' }, `${title(game.variant)} · ${game.clock || ''} · ${game.rated ? 'rated' : 'casual'}`),
    h('p', {}, `${name(game.white)} – ${name(game.black)}`),
    list,
    h('p', { class: 'status over', id: 'status' }, `${game.result ? scoreText(game.variant, game.result) : ''} ${game.reason ? '· ' + (REASONS[game.reason] || game.reason) : ''} ${game.rule ? `(${game.rule})` : ''}`),
    h('div', { class: 'actions' },
      h('button', { 'aria-label': 'First move', onclick: () => step(-1e9) }, '«'),
      h('button', { 'aria-label': 'Previous move', onclick: () => step(-1) }, '◀'),
      h('button', { 'aria-label': 'Next move', onclick: () => step(1) }, '▶'),
      h('button', { 'aria-label': 'Last move', onclick: () => step(1e9) }, '»'),
      h('button', { onclick: () => board.flip() }, '⇅ Flip'),
      h('a', { class: 'button', href: `/api/games/${id}.${isChess(game.variant) ? 'pgn' : 'pdn'}`, download: `${id}.${isChess(game.variant) ? 'pgn' : 'pdn'}` }, isChess(game.variant) ? 'Download PGN' : 'Download PDN'))));
  root.onkeydown = (e) => {
    if (e.key === 'ArrowLeft') step(-1);
    if (e.key === 'ArrowRight') step(1);
  };
  root.tabIndex = 0;
  show();
  root.querySelector('.panel').append(analysisPanel(id, list, (p) => { ply = p; show(); }));
  return true;
}

const MARKS = { inaccuracy: '?!', mistake: '?', blunder: '??' };
const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** The computer analysis of an archived game: a button to ask for it, then the
 * evaluation graph with the marks, and the marks in the move list. */
function analysisPanel(id, list, goTo) {
  const box = h('section', { class: 'analysis', id: 'analysis' });
  const path = `/api/games/${encodeURIComponent(id)}/analysis`;
  const render = (a) => {
    if (a.status === 'done') {
      box.replaceChildren(h('h3', {}, 'Computer analysis'), evalGraph(a.plies, goTo), markSummary(a.plies));
      const moves = list.querySelectorAll('.mv');
      a.plies.forEach((p, i) => {
        const b = moves[i];
        if (!b) return;
        b.title = `best: ${p.best}`;
        if (p.mark) {
          b.classList.add('mark-' + p.mark);
          b.append(h('span', { class: 'mark' }, MARKS[p.mark]));
        }
      });
      return;
    }
    if (a.status === 'failed') {
      box.replaceChildren(h('p', { class: 'muted' }, 'The analysis could not be made.'));
      return;
    }
    box.replaceChildren(h('p', { class: 'muted', role: 'status' }, a.status === 'running' ? 'The computer is analysing…' : 'Analysis queued…'));
    setTimeout(() => api('GET', path).then(render).catch(() => {}), 1000);
  };
  const ask = h('button', {
    id: 'request-analysis',
    onclick: async () => {
      try {
        render(await api('POST', path, undefined, app.auth && app.auth.token));
      } catch (e) {
        box.append(h('p', { class: 'error' }, e.message));
      }
    },
  }, 'Request computer analysis');
  box.replaceChildren(app.auth ? ask : h('p', { class: 'muted' }, 'Sign in to ask for a computer analysis.'));
  api('GET', path).then(render).catch(() => {});
  return box;
}

function markSummary(plies) {
  const count = (side, mark) => plies.filter((p) => p.by === side && p.mark === mark).length;
  const label = { inaccuracy: 'inaccuracies', mistake: 'mistakes', blunder: 'blunders' };
  return h('table', { class: 'list marks' },
    h('thead', {}, h('tr', {}, h('th', {}, 'White'), h('th', {}, ''), h('th', {}, 'Black'))),
    h('tbody', {}, ['inaccuracy', 'mistake', 'blunder'].map((m) =>
      h('tr', {}, h('td', {}, count('white', m)), h('td', {}, label[m]), h('td', {}, count('black', m))))));
}

/** The evaluation after each ply (White up), clamped to ±10 men or pawns. */
function evalGraph(plies, goTo) {
  const w = 600;
  const hh = 140;
  const cap = 1000;
  const X = (i) => 10 + (i / Math.max(1, plies.length)) * (w - 20);
  const Y = (e) => hh / 2 - (Math.max(-cap, Math.min(cap, e)) / cap) * (hh / 2 - 8);
  const pts = [[0, 0], ...plies.map((p, i) => [i + 1, p.eval])];
  const d = pts.map(([i, e], k) => `${k ? 'L' : 'M'}${X(i).toFixed(1)} ${Y(e).toFixed(1)}`).join('');
  const area = `${d}L${X(plies.length).toFixed(1)} ${hh / 2}L${X(0)} ${hh / 2}Z`;
  const dots = plies.map((p, i) => (p.mark
    ? `<circle class="${p.mark}" data-ply="${i + 1}" cx="${X(i + 1).toFixed(1)}" cy="${Y(p.eval).toFixed(1)}" r="4"><title>${i + 1}. ${esc(p.move)}: ${p.mark} (best ${esc(p.best)})</title></circle>`
    : '')).join('');
  const svg = h('div', { class: 'eval-graph', id: 'eval-graph' });
  svg.innerHTML = `<svg viewBox="0 0 ${w} ${hh}" class="chart eval" role="img" aria-label="Evaluation graph"><line x1="0" x2="${w}" y1="${hh / 2}" y2="${hh / 2}"/><path class="area" d="${area}"/><path d="${d}"/>${dots}</svg>`;
  svg.onclick = (e) => {
    const ply = e.target && e.target.getAttribute && e.target.getAttribute('data-ply');
    if (ply) goTo(Number(ply));
  };
  return svg;
}

function chart(points) {
  if (!points.length) return h('p', { class: 'muted' }, 'No rated games in this perf yet.');
  const w = 600;
  const hh = 160;
  const xs = points.map((p) => p.at);
  const ys = points.map((p) => p.rating);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys) - 10, Math.max(...ys) + 10];
  const X = (x) => ((x - x0) / Math.max(1, x1 - x0)) * (w - 40) + 35;
  const Y = (y) => hh - 15 - ((y - y0) / Math.max(1, y1 - y0)) * (hh - 30);
  const d = points.map((p, i) => `${i ? 'L' : 'M'}${X(p.at).toFixed(1)} ${Y(p.rating).toFixed(1)}`).join('');
  const svg = `<svg viewBox="0 0 ${w} ${hh}" class="chart" role="img" aria-label="Rating history"><text x="2" y="${Y(y1) + 4}">${Math.round(y1)}</text><text x="2" y="${Y(y0) + 4}">${Math.round(y0)}</text><path d="${d}"/>${points.map((p) => `<circle cx="${X(p.at).toFixed(1)}" cy="${Y(p.rating).toFixed(1)}" r="3"><title>${Math.round(p.rating)}</title></circle>`).join('')}</svg>`;
  const div = h('div');
  div.innerHTML = svg;
  return div.firstChild;
}

function profileScreen(name) {
  document.title = `damka · ${name}`;
  const root = h('div', { class: 'profile', id: 'profile' }, h('h1', {}, name));
  view.replaceChildren(root);
  (async () => {
    let user;
    try {
      user = await api('GET', `/api/users/${encodeURIComponent(name)}`);
    } catch (e) {
      root.append(h('p', { class: 'error' }, e.status === 404 ? 'No such player (or profiles are not available on this server).' : e.message));
      return;
    }
    const perfs = Object.entries(user.perfs || {});
    const chartHost = h('div', { id: 'chart' });
    const pick = async (perf) => {
      try {
        chartHost.replaceChildren(chart(await api('GET', `/api/users/${encodeURIComponent(name)}/rating-history?perf=${encodeURIComponent(perf)}`)));
      } catch (e) {
        chartHost.replaceChildren(h('p', { class: 'error' }, e.message));
      }
    };
    const c = user.count || {};
    root.append(
      h('p', { class: 'muted' }, `${c.all || 0} games · ${c.win || 0} won · ${c.loss || 0} lost · ${c.draw || 0} drawn`),
      h('table', { class: 'list perfs' }, h('tbody', {}, perfs.map(([perf, p]) => h('tr', {},
        h('td', {}, h('button', { class: 'link', onclick: () => pick(perf) }, perf)),
        h('td', {}, `${Math.round(p.rating)}${p.provisional ? '?' : ''}`), h('td', {}, `${p.games} games`))))),
      chartHost);
    if (perfs.length) pick(perfs.sort((a, b) => b[1].games - a[1].games)[0][0]);
    const games = h('table', { class: 'list games', id: 'games' });
    root.append(h('h2', {}, 'Games'), games);
    try {
      const res = await fetch(`/api/users/${encodeURIComponent(name)}/games?max=50`);
      const text = await res.text();
      const rows = text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
      games.replaceChildren(h('tbody', {}, rows.map((g) => h('tr', {},
        h('td', {}, h('a', { href: '/game/' + g.id }, `${g.white.name} – ${g.black.name}`)),
        h('td', {}, `${title(g.variant)} ${g.clock || ''}`), h('td', {}, g.result ? scoreText(g.variant, g.result) : ''), h('td', {}, g.reason || ''),
        h('td', {}, h('a', { href: `/api/games/${g.id}.${isChess(g.variant) ? 'pgn' : 'pdn'}`, download: '' }, isChess(g.variant) ? 'PGN' : 'PDN'))))));
    } catch (e) {
      games.replaceChildren(h('tbody', {}, h('tr', {}, h('td', {}, e.message))));
    }
  })();
  return {};
}

// ---- start ----------------------------------------------------------------------

bind({ app, send, go, toast, view, VARIANTS, RULESETS, TCS });
renderHeader();
connect();
route();
