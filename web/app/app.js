// damka's browser client: sign-in, lobby (pools, seeks, challenges), the game screen
// for players and spectators, TV, profiles and the replay of archived games. Plain ES
// modules; the server sends the player to move its legal moves, so no rules engine here.

import { Board, DRAUGHTS, isChess, readFen, routeOf } from './board.js';
import { Conn, api } from './net.js';
import { $, errorText, h, reasonText, ruleText, scoreText, sideName, tcText, variantName } from './ui.js';
import { arenaFor, bind, remember, tournamentFor } from './follow.js';
import { LANGS, LANG_NAMES, currentLang, fmtDate, loadWords, onLang, setLang, t } from './i18n.js';
import { applyPrefs, boardStyle, loadAccountPrefs, onPrefs, prefs, savePrefs } from './prefs.js';
import { play as sound } from './sound.js';

await loadWords('app');

const VARIANTS = [...DRAUGHTS, 'chess', 'chess960'];
// Rule sets per variant: [value, word key]; the words are looked up when drawn.
const RULESETS = { russian: [['russian_idf', 'ruleset.russian_idf'], ['russian_ua', 'ruleset.russian_ua']] };
const TCS = ['1+0', '3+0', '3+2', '5+3', '10+5', '15+10', '30+0'];

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
  toast: null, // the timer that hides the toast
  toastGame: null, // the game the toast on show is about, if any
  chat: null, // the chat panel of the screen shown (chat.js), if it has one
};

function saveAuth(auth) {
  app.auth = auth;
  // The challenges were the last identity's; the new one's come after its welcome.
  app.challenges.clear();
  if (auth) localStorage.setItem('damka.auth', JSON.stringify(auth));
  else localStorage.removeItem('damka.auth');
  if (app.conn) app.conn.close();
  app.conn = null;
  app.me = null;
  connect();
  renderHeader();
}

/** A visitor who has not chosen a name watches and plays as a guest named by itself;
 * the sign-in card stays on the home page to choose a name or log in. */
async function autoGuest() {
  try {
    const r = await api('POST', '/api/auth/guest', { name: 'Guest' + String(Math.floor(1000 + Math.random() * 9000)) });
    if (!app.auth) saveAuth({ token: r.token, user: r.user, guest: true, auto: true });
  } catch (_) {
    // Guest tokens are disabled here: the sign-in card is all a visitor gets.
  }
}

function connect() {
  if (!app.auth) {
    autoGuest();
    return;
  }
  if (app.conn) return;
  app.conn = new Conn(app.auth.token, {
    status: (s, code) => {
      document.body.dataset.conn = s;
      app.connState = s;
      $('#conn').textContent = s === 'online' ? '' : s === 'offline' ? t('conn.reconnecting') : t('conn.connecting');
      if (s === 'offline' && (code === 4001 || code === 4006)) saveAuth(null);
    },
    welcome: (msg, again) => {
      app.me = msg.user;
      // The open challenges: those made before this connection (another tab, a reload,
      // a drop) reach it only so, and some may have gone meanwhile.
      send({ type: 'list_challenges' });
      renderHeader();
      if (!again && app.auth && !app.auth.guest) loadAccountPrefs(app.auth);
      if (again) {
        // Back after a drop: every followed game from the last version seen.
        for (const g of app.games.values()) send({ type: 'resume', game_id: g.game_id, last_version: g.version });
      }
      if (app.screen && app.screen.online) app.screen.online();
      if (again && app.chat) app.chat.online();
    },
    message: onMessage,
  });
}

const send = (msg) => app.conn && app.conn.send(msg);

/** Shows `text` for a few seconds. A toast about a game (`gameId`: an answer to
 * something done in it) goes when the page leaves that game's screen: it must not
 * stand on another game's. */
function toast(text, gameId = null) {
  const t = $('#toast');
  t.textContent = text;
  t.hidden = false;
  app.toastGame = gameId;
  clearTimeout(app.toast);
  app.toast = setTimeout(hideToast, 4000);
}

function hideToast() {
  clearTimeout(app.toast);
  $('#toast').hidden = true;
  app.toastGame = null;
}

/** The id of the game on screen, if the screen shows one. */
const shownGame = () => (app.screen && app.screen.game ? app.screen.game() : null);

function onMessage(msg) {
  if (app.chat && app.chat.handle(msg)) return;
  remember(msg);
  switch (msg.type) {
    case 'game_start':
      sound('start');
      // Both players were online to be paired; the state may predate the other's join.
      app.games.set(msg.game.game_id, fresh({ ...msg.game, connected: [true, true], away: [] }));
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
        // The game on screen sounds its moves and its end.
        if (location.pathname === '/game/' + msg.game_id || location.pathname.startsWith('/tv')) {
          if (msg.event.kind === 'move') sound(msg.event.played && msg.event.played.captures && msg.event.played.captures.length ? 'capture' : 'move');
          if (msg.event.kind === 'game_over') sound('end');
        }
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
      if (msg.type === 'challenge_received') toast(t('toast.challenged', { name: msg.challenge.from.name, variant: variantName(msg.challenge.variant) }));
      break;
    case 'challenge_removed':
      app.challenges.delete(msg.challenge_id);
      break;
    case 'challenges':
      app.challenges = new Map(msg.challenges.map((c) => [c.challenge_id, { ...c, mine: !!app.me && c.from.id === app.me.id }]));
      break;
    case 'pool_joined':
      app.pool = msg;
      break;
    case 'move_ack': {
      // Whether the mover may offer a draw now, after the move.
      const g = app.games.get(msg.game_id);
      if (g && 'draw_offer_refusal' in msg) g.permit = { r: msg.draw_offer_refusal, v: msg.version };
      break;
    }
    case 'pool_left':
      app.pool = null;
      break;
    case 'error':
      if (app.chat && app.chat.error(msg)) return;
      // A late answer about a game no longer on screen (the page has moved on to
      // another game or screen since) is not shown on this one.
      if (msg.game_id && msg.game_id !== shownGame()) return;
      if (app.screen && app.screen.error && app.screen.error(msg)) return;
      toast(errorText(msg), msg.game_id || null);
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
  // The last move marked from the state (a reload, a late spectator), then from events.
  const g = { ...state, legal_moves: state.legal_moves || [], last: state.last_move || null, at: performance.now() };
  g.rematch_offer = null;
  // The server's word on this player's draw offer (`draw_offer_refusal`) with the
  // version it was told at; it holds until a move or takeback after that version.
  g.posv = state.version;
  g.permit = 'draw_offer_refusal' in state ? { r: state.draw_offer_refusal, v: state.version } : null;
  // A player who left before this page joined (a reload): when the other may claim.
  const mine = app.me && (state.white.id === app.me.id ? 'white' : state.black.id === app.me.id ? 'black' : null);
  const away = (state.away || []).find((a) => a.color !== mine);
  if (away) {
    g.left = away.color;
    g.claim_at = g.at + away.claim_after_ms;
  }
  return g;
}

/** The article behind a draw offer refusal under a rule set (as the server names it). */
function offerArticle(ruleset, kind) {
  if (ruleset === 'fide') return kind === 'too_early' ? 'FIDE 9.1.1' : 'FIDE 9.1.2';
  if (kind === 'not_endgame' || ruleset === 'frisian') return 'FRI 21.2';
  if (ruleset === 'russian_ua') return 'UA rule 1';
  return kind === 'too_many_pieces' ? 'IDF s.2 22.5' : 'IDF s.2 9.2';
}

/** The colour the signed-in user plays in `g`, if any. */
function playsIn(g) {
  return app.me ? (g.white.id === app.me.id ? 'white' : g.black.id === app.me.id ? 'black' : null) : null;
}

/** A move or takeback (`g.version` is its version): the position changed, and the copy
 * for the player it puts on the move says whether they may offer a draw. */
function told(g, ev) {
  g.posv = g.version;
  if ('draw_offer_refusal' in ev) g.permit = { r: ev.draw_offer_refusal, v: g.version };
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
      told(g, ev);
      // Draw offers change by their own events (a move declines with `draw_declined`).
      break;
    case 'draw_offered':
      g.draw_offer = ev.by;
      // The opponent's offer lifts a bar after a declined offer (IDF s.2 9.2).
      if (g.permit && g.permit.r && g.permit.r.kind === 'barred' && ev.by !== playsIn(g)) g.permit = { ...g.permit, r: null };
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
      told(g, ev);
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
  if (app.toastGame) hideToast();
  if (app.chat) app.chat.leave();
  app.chat = null;
  const p = location.pathname;
  let m;
  if ((m = p.match(/^\/game\/([A-Za-z0-9_-]+)$/))) app.screen = gameScreen(m[1]);
  else if ((m = p.match(/^\/tv(?:\/([a-z0-9]+))?$/))) app.screen = tvScreen(m[1] || 'russian');
  else if ((m = p.match(/^\/@\/([^/]+)$/))) app.screen = profileScreen(decodeURIComponent(m[1]));
  else if (p === '/arenas') events(p, (e) => e.arenasScreen());
  else if ((m = p.match(/^\/arena\/([A-Za-z0-9_-]+)$/))) events(p, (e) => e.arenaScreen(m[1]));
  else if (p === '/tournaments') events(p, (e) => e.tournamentsScreen());
  else if (p === '/account/tokens') lazy(p, withWords('tokens', import('./tokens.js')), (m) => m.tokensScreen());
  else if ((m = p.match(/^\/tournament\/([A-Za-z0-9_-]+)$/))) events(p, (e) => e.tournamentScreen(m[1]));
  else if (p === '/settings') lazy(p, withWords('settings', import('./settings.js')), (s) => s.settingsScreen({ view, auth: app.auth }));
  else if (p === '/') app.screen = homeScreen();
  else app.screen = notFoundScreen(p);
}

/** An address the client does not know: say so, and where to go. */
function notFoundScreen(path) {
  document.title = `damka · ${t('notfound.title')}`;
  view.replaceChildren(h('section', { class: 'card not-found', id: 'not-found' },
    h('h1', {}, t('notfound.heading')),
    h('p', {}, t('notfound.text', { path })),
    h('p', {}, h('a', { href: '/', class: 'button' }, t('common.to_lobby')), ' ', h('a', { href: '/tv' }, t('common.watch_live')))));
  return {};
}

/** A screen's module with its words in the page's language, both asked for at once
 * (the module alone would ask for its words only once it has come). */
const withWords = (name, module) => Promise.all([module, loadWords(name)]).then(([m]) => m);

/** A screen whose module is loaded the first time it is opened. */
function lazy(path, module, open) {
  module.then((m) => {
    if (location.pathname === path && !app.screen) app.screen = open(m);
  }).catch((err) => view.replaceChildren(h('p', { class: 'error' }, t('common.load_failed', { message: err.message }))));
}

/** An arena or tournament screen (events.js). */
const events = (path, open) => lazy(path, withWords('events', import('./events.js')), open);

/** The header in the current language: brand, navigation, the connection, the
 * language selector and the player's name (the page's static header is replaced). */
function renderHeader() {
  $('.brand').setAttribute('aria-label', t('nav.home'));
  const nav = $('nav.links');
  nav.setAttribute('aria-label', t('nav.main'));
  nav.replaceChildren(h('a', { href: '/' }, t('nav.play')), h('a', { href: '/arenas' }, t('nav.arenas')),
    h('a', { href: '/tournaments' }, t('nav.tournaments')), h('a', { href: '/tv/russian' }, t('nav.watch')),
    h('a', { href: '/settings', id: 'nav-settings' }, t('nav.settings')));
  const s = app.connState;
  $('#conn').textContent = !s || s === 'online' ? '' : s === 'offline' ? t('conn.reconnecting') : t('conn.connecting');
  const u = $('#user');
  u.replaceChildren();
  const lang = h('select', {
    id: 'lang', 'aria-label': t('nav.language'),
    onchange: (e) => {
      setLang(e.target.value);
      savePrefs({ language: e.target.value }, app.auth);
    },
  }, LANGS.map((l) => h('option', { value: l, lang: l, selected: l === currentLang() }, LANG_NAMES[l])));
  u.append(lang);
  if (app.auth) {
    const name = (app.me && app.me.name) || app.auth.user.name;
    u.append(
      app.auth.guest ? h('span', { class: 'name' }, name) : h('a', { href: '/@/' + encodeURIComponent(name), class: 'name' }, name),
      app.auth.guest ? '' : h('a', { href: '/account/tokens', id: 'tokens-link' }, t('nav.tokens')),
      h('button', { class: 'link', id: 'sign-out', onclick: () => { saveAuth(null); go('/'); } }, t('nav.sign_out')),
    );
  }
}

// ---- home -----------------------------------------------------------------------

function signIn() {
  const msg = h('p', { class: 'error', role: 'alert' });
  const guestName = h('input', { id: 'guest-name', name: 'name', placeholder: t('signin.your_name'), 'aria-label': t('signin.guest_name'), maxlength: 20, required: true });
  const user = h('input', { id: 'username', name: 'username', placeholder: t('signin.username'), 'aria-label': t('signin.username'), autocomplete: 'username' });
  const pass = h('input', { id: 'password', name: 'password', type: 'password', placeholder: t('signin.password'), 'aria-label': t('signin.password'), autocomplete: 'current-password' });
  const account = async (kind) => {
    msg.textContent = '';
    try {
      const r = await api('POST', `/api/account/${kind}`, { username: user.value.trim(), password: pass.value });
      saveAuth({ token: r.token, user: r.user, guest: false });
      // A new account starts with what this browser chose; a login brings the account's.
      if (kind === 'register') savePrefs(prefs(), app.auth);
      route();
    } catch (e) {
      msg.textContent = e.status === 404 || e.status === 405 ? t('signin.no_accounts') : errorText(e);
    }
  };
  return h('section', { class: 'card signin' },
    h('h2', {}, t('signin.play')),
    h('form', {
      onsubmit: async (e) => {
        e.preventDefault();
        msg.textContent = '';
        try {
          const r = await api('POST', '/api/auth/guest', { name: guestName.value.trim() });
          saveAuth({ token: r.token, user: r.user, guest: true });
          route();
        } catch (err) {
          msg.textContent = errorText(err);
        }
      },
    }, guestName, h('button', { id: 'play-guest', type: 'submit' }, t('signin.play_guest'))),
    h('form', { onsubmit: (e) => { e.preventDefault(); account('login'); } },
      user, pass,
      h('div', { class: 'row' },
        h('button', { id: 'login', type: 'submit' }, t('signin.login')),
        h('button', { id: 'register', type: 'button', onclick: () => account('register') }, t('signin.register')))),
    msg);
}

/** The home page is the lobby (home.js, loaded the first time `/` is opened). */
function homeScreen() {
  withWords('home', import('./home.js')).then((m) => {
    if (location.pathname === '/' && !app.screen) {
      app.screen = m.homeScreen({ app, send, view, signIn, tvLinks, toast });
    }
  }).catch((err) => view.replaceChildren(h('p', { class: 'error' }, t('common.load_failed', { message: err.message }))));
  return null;
}

function tvLinks() {
  return h('section', { class: 'card tv-links' }, h('h2', {}, t('nav.watch')),
    h('nav', {}, VARIANTS.map((v) => h('a', { href: '/tv/' + v }, variantName(v)))));
}

// ---- game -----------------------------------------------------------------------

function fmtClock(ms) {
  ms = Math.max(0, ms);
  if (ms < 10000) return (ms / 1000).toFixed(1);
  const s = Math.ceil(ms / 1000);
  const m = Math.floor(s / 60);
  return `${m}:${String(s % 60).padStart(2, '0')}`;
}

/** Names each line of the move list for screen readers ("1. White c3-d4, Black f6-g5"). */
function labelMoves(list) {
  [...list.children].forEach((li, i) => {
    const [w, b] = [...li.querySelectorAll('.mv')].map((m) => m.textContent);
    li.setAttribute('aria-label', t(b ? 'game.move_line' : 'game.move_line_white', { n: i + 1, white: w, black: b }));
  });
}

/**
 * What a screen reader hears as a game goes, in `#game-live` (polite): each new move with
 * both clocks, and a running clock passing a minute, thirty and ten seconds left; never
 * the ticks. `said` keeps what was said: the moves seen and each clock's last reading.
 */
function speak(root, g, said) {
  const live = $('#game-live', root);
  if (!live) return;
  const ms = { white: clockOf(g, 'white'), black: clockOf(g, 'black') };
  const clocks = t('game.said_clocks', { white: fmtClock(ms.white), black: fmtClock(ms.black) });
  if (said.moves !== undefined && g.moves.length === said.moves + 1) {
    const offset = readFen(g.variant, g.initial_fen).turn === 'black' ? 1 : 0;
    const side = (offset + g.moves.length - 1) % 2 === 0 ? 'white' : 'black';
    live.textContent = `${t('game.said_move', { side: sideName(side), move: g.moves[g.moves.length - 1] })}. ${clocks}`;
  } else if (g.clock.running && !g.outcome) {
    const c = g.clock.running;
    const passed = [60000, 30000, 10000].find((x) => ms[c] <= x && said[c] > x);
    if (passed) live.textContent = t('game.said_time_left', { side: sideName(c), time: fmtClock(ms[c]) });
  }
  said.moves = g.moves.length;
  Object.assign(said, ms);
}

function clockOf(g, color) {
  const base = g.clock[color + '_ms'];
  if (g.clock.running !== color || g.outcome) return base;
  return base - (performance.now() - g.at);
}

function resultText(g) {
  const o = g.outcome;
  if (!o) return '';
  const who = o.winner ? t('result.wins', { side: sideName(o.winner) }) : o.reason === 'aborted' ? t('result.aborted') : t('result.draw');
  const score = o.reason === 'aborted' ? '' : scoreText(g.variant, o.winner || null);
  return `${score ? score + ' · ' : ''}${who} · ${reasonText(o.reason)}${o.detail ? ` (${ruleText(o.detail)})` : ''}`;
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
  // The premove queued on the board while the opponent is to move: played the moment
  // the position where it is legal arrives, else dropped; gone with a takeback, the
  // game's end or this screen.
  let premove = null;
  const said = {}; // what the screen reader has been told (speak)
  const root = h('div', { class: 'game', id: 'game', 'data-game': id });
  view.replaceChildren(root);
  document.title = `damka · ${t('game.title')}`;

  const follow = () => {
    if (!app.auth) return;
    if (tv) send({ type: 'tv', variant: tv });
    else send({ type: 'resume', game_id: id, last_version: 0 });
  };

  const color = () => (g && app.me ? (g.white.id === app.me.id ? 'white' : g.black.id === app.me.id ? 'black' : null) : null);

  let lastAct = null; // the last action sent in this game, for its refusal
  // Draughts: a draw offered with the next move (IDF s.2 9.2: move, offer, clock).
  let offerWithMove = false;
  // The server's last refusal of an offer and of a claim, with the ply it was made at:
  // the button stays off, saying why, until the position changes.
  const refused = { offer: null, claim: null };
  const act = (type, extra = {}) => {
    lastAct = type;
    send({ type, game_id: g.game_id, ...extra });
  };

  function layout() {
    root.replaceChildren();
    root.dataset.game = g.game_id;
    const me = color();
    const bottom = flipped ? (me === 'black' ? 'white' : 'black') : me === 'black' ? 'black' : 'white';
    const top = bottom === 'white' ? 'black' : 'white';
    const boardHost = h('div', { class: 'board-wrap', id: 'board' });
    const side = h('aside', { class: 'panel' },
      h('div', { class: 'meta' },
        h('span', { id: 'variant' }, `${variantName(g.variant)} ${g.ruleset === 'russian_ua' ? `(${t('ruleset.ua_short')}) ` : ''}· ${tcText(g.time_control)} · ${g.rated ? t('game.rated') : t('game.casual')}`),
        h('span', { id: 'spectators', title: t('game.spectators') }, '')),
      player(top, 'top'),
      h('ol', { class: 'moves', id: 'moves', 'aria-label': t('game.moves') }),
      h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }),
      h('p', { id: 'game-live', class: 'sr-only', 'aria-live': 'polite' }),
      h('div', { id: 'offers', class: 'offers' }),
      h('div', { id: 'actions', class: 'actions' }),
      player(bottom, 'bottom'),
      me ? h('form', {
        class: 'keyboard', onsubmit: (e) => {
          e.preventDefault();
          const input = $('#move-input');
          const text = input.value.trim();
          // A chess promotion typed without its piece ("e7e8"): the picker asks.
          const promos = isChess(g.variant) && /^[a-h][1-8][a-h][1-8]$/.test(text) ? g.legal_moves.filter((m) => m.length === 5 && m.startsWith(text)) : [];
          if (promos.length > 1 && board) board.promote(promos);
          else if (text) play(text);
          input.value = '';
        },
      }, h('input', { id: 'move-input', 'aria-label': t('game.type_move'), placeholder: t(isChess(g.variant) ? 'game.type_move_chess' : 'game.type_move_draughts'), autocomplete: 'off' })) : null);
    if (chatEl) side.append(chatEl);
    root.append(h('div', { class: 'board-col' }, boardHost), side);
    board = new Board(boardHost, g.variant, play, boardStyle());
    board.flipped = bottom === 'black';
    board.onPremove = (route) => { premove = route; };
    draw();
  }

  function player(c, pos) {
    return h('div', { class: `player ${pos}`, id: `player-${c}`, 'data-color': c },
      h('span', { class: 'dot', title: t('game.connection') }),
      h('span', { class: 'pname' }),
      h('span', { class: 'rdiff' }),
      h('span', { class: 'lost' }),
      h('span', { class: 'clock', id: `clock-${c}`, role: 'timer', 'aria-label': t('game.clock_of', { side: sideName(c) }) }));
  }

  function play(text) {
    if (!g || g.outcome) return;
    const me = color();
    if (me && me !== g.turn && premovable(me) && board) {
      board.setPremove(routeOf(g.variant, text));
      return;
    }
    moveId += 1;
    send({ type: 'move', game_id: g.game_id, move: text, move_id: moveId, ...(offerWithMove ? { offer_draw: true } : {}) });
    offerWithMove = false;
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
      // One's own clock under ten seconds: a warning, once a game.
      if (c === color() && ms < 10000 && ms > 0 && g.clock.running === c && !g.outcome && !g.lowSounded) {
        g.lowSounded = true;
        sound('low');
      }
    }
    speak(root, g, said);
    if (g.left && g.claim_at && performance.now() >= g.claim_at && !g.outcome && color() && color() !== g.left) {
      if (!$('#claim-win', root)) draw();
    }
    const countdown = $('#claim-countdown', root);
    if (countdown) countdown.textContent = t('game.claim_in', { n: Math.max(1, Math.ceil((g.claim_at - performance.now()) / 1000)) });
  }

  const premovable = (me) => !!me && me !== g.turn && !g.outcome && !g.gone && prefs().premoves;

  function draw() {
    if (!g || !board) return;
    const me = color();
    if (g.outcome || g.gone) premove = null;
    board.set({ fen: g.fen, legal: me && me === g.turn && !g.outcome ? g.legal_moves : [], last: g.last, mine: me, turn: g.turn, premovable: premovable(me), premove });
    if (premove && me === g.turn) {
      const move = board.premoveMatch();
      board.setPremove(null);
      if (move) play(move);
    }
    const lost = losses(g);
    for (const c of ['white', 'black']) {
      const p = $(`#player-${c}`, root);
      const u = g[c];
      const r = g.ratings && g.ratings[c];
      const diff = r ? Math.round(r.after) - Math.round(r.before) : 0;
      $('.pname', p).replaceChildren(u.guest ? u.name : h('a', { href: '/@/' + encodeURIComponent(u.name) }, u.name),
        u.rating ? h('small', {}, ` ${u.rating}`) : '',
        (g.berserk || []).includes(c) ? h('span', { class: 'berserk', 'aria-label': t('game.berserk'), title: t('game.berserk_hint') }, ' ⚡') : '');
      // Beside the name, never inside its ellipsis.
      $('.rdiff', p).replaceChildren(r ? h('small', { class: diff >= 0 ? 'up' : 'down', 'data-rating-diff': diff }, `${diff >= 0 ? '+' : ''}${diff}`) : '');
      const on = g.connected[c === 'white' ? 0 : 1];
      p.classList.toggle('away', !on);
      $('.dot', p).setAttribute('aria-label', on ? t('game.connected') : t('game.disconnected'));
      // What this player has captured, in the colour of the pieces taken.
      const taken = c === 'white' ? 'b' : 'w';
      const tally = $('.lost', p);
      tally.className = 'lost ' + taken;
      tally.textContent = lost[taken] ? lost[taken + 'l'] : '';
      tally.setAttribute('aria-label', lost[taken] ? t('game.captured', { n: lost[taken] }) : '');
      p.classList.toggle('to-move', g.turn === c && !g.outcome);
    }
    $('#spectators', root).textContent = g.spectators ? t('game.watching', { n: g.spectators }) : '';
    const moves = $('#moves', root);
    moves.replaceChildren();
    const offset = readFen(g.variant, g.initial_fen).turn === 'black' ? 1 : 0;
    const all = offset ? ['…', ...g.moves] : g.moves;
    for (let i = 0; i < all.length; i += 2) {
      moves.append(h('li', {}, h('span', { class: 'mv' }, all[i]), all[i + 1] ? h('span', { class: 'mv' }, all[i + 1]) : ''));
    }
    labelMoves(moves);
    moves.scrollTop = moves.scrollHeight;
    const status = $('#status', root);
    // The tab's title tells a player in another tab that the game has started or
    // that it is their turn.
    const opponent = me ? g[me === 'white' ? 'black' : 'white'].name : `${g.white.name} – ${g.black.name}`;
    document.title = me && me === g.turn && !g.outcome && !g.gone ? `● ${t('game.your_turn_cap')} · ${opponent} · damka` : `${opponent} · damka`;
    if (g.gone) {
      status.replaceChildren(t('game.gone'), ' ',
        h('a', { href: '/', id: 'gone-lobby' }, t('common.back_to_lobby')));
    } else status.textContent = g.outcome ? resultText(g) : `${t('game.to_move_' + g.turn)}${me ? (me === g.turn ? ' · ' + t('game.your_turn') : '') : ''}`;
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
      o.append(h('span', {}, t('offer.draw', { side: sideName(g.draw_offer) }), ' '));
      if (me && g.draw_offer === them) {
        o.append(h('button', { id: 'draw-accept', onclick: () => act('draw_accept') }, t('common.accept')), h('button', { id: 'draw-decline', onclick: () => act('draw_decline') }, t('common.decline')));
      }
    }
    if (g.takeback_offer) {
      o.append(h('span', {}, t('offer.takeback', { side: sideName(g.takeback_offer) }), ' '));
      if (me && g.takeback_offer === them) {
        o.append(h('button', { onclick: () => act('takeback_accept') }, t('common.accept')), h('button', { onclick: () => act('takeback_decline') }, t('common.decline')));
      }
    }
    if (g.rematch_offer && g.outcome) {
      o.append(h('span', {}, t('offer.rematch', { side: sideName(g.rematch_offer) }), ' '));
      if (me && g.rematch_offer === them) {
        o.append(h('button', { onclick: () => act('rematch') }, t('common.accept')), h('button', { onclick: () => act('rematch_decline') }, t('common.decline')));
      }
    }
    if (g.rematch && !me) o.append(h('a', { href: '/game/' + g.rematch }, t('offer.watch_rematch')));
    // A rematch after the game left the server's memory goes as a challenge.
    const c = me && g.outcome ? rematchChallenge(me) : null;
    if (c) {
      o.append(h('span', {}, t('offer.rematch', { side: sideName(c.mine ? me : them) }), ' '));
      if (!c.mine) {
        o.append(h('button', { onclick: () => send({ type: 'accept_challenge', challenge_id: c.challenge_id }) }, t('common.accept')),
          h('button', { onclick: () => send({ type: 'decline_challenge', challenge_id: c.challenge_id }) }, t('common.decline')));
      }
    }
  }

  /** The open challenge between the two players of this finished game with its variant
   * and clock and the colours swapped: its rematch once the game has left memory. */
  function rematchChallenge(me) {
    const them = g[me === 'white' ? 'black' : 'white'];
    for (const c of app.challenges.values()) {
      const mine = c.from.id === app.me.id && c.to === them.id;
      const theirs = c.from.id === them.id && c.to === app.me.id;
      if ((mine || theirs) && c.variant === g.variant && JSON.stringify(c.time_control) === JSON.stringify(g.time_control)) return { ...c, mine };
    }
    return null;
  }

  /** The rematch as a challenge (the finished game is no longer in the server's memory,
   * which answered the rematch with `game_not_found`): same variant, clock and rating,
   * colours swapped; a casual game starts from the same position. An offer of the
   * opponent's that came as a challenge is accepted instead. */
  function rematchByChallenge() {
    const me = color();
    const c = rematchChallenge(me);
    if (c && !c.mine) {
      send({ type: 'accept_challenge', challenge_id: c.challenge_id });
      return;
    }
    if (c) return;
    const msg = { type: 'challenge', user: g[me === 'white' ? 'black' : 'white'].id, variant: g.variant, time_control: g.time_control, rated: g.rated, color: me === 'white' ? 'black' : 'white' };
    if (g.ruleset) msg.ruleset = g.ruleset;
    if (!g.rated) msg.fen = g.initial_fen;
    send(msg);
  }

  function drawActions(me) {
    const a = $('#actions', root);
    a.replaceChildren(h('button', { id: 'flip', 'aria-label': t('game.flip_board'), onclick: () => { flipped = !flipped; board.flip(); layoutKeep(); } }, '⇅ ' + t('game.flip')));
    if (g.outcome && g.outcome.reason !== 'aborted') {
      a.append(h('button', {
        id: 'replay',
        onclick: () => {
          mode = 'replay';
          clearInterval(tick);
          const gid = g.game_id;
          replayArchived(gid, root).then((ok) => { if (!ok) toast(t('game.not_archived'), gid); });
        },
      }, t('game.replay')));
    }
    const ar = arenaFor(g.game_id);
    const tour = tournamentFor(g.game_id);
    if (!me) return;
    // In an arena: stop being paired after this game, without leaving the board.
    const pause = () => (ar && ar.membership === 'active'
      ? h('button', { id: 'arena-pause-game', title: t('game.pause_arena_hint'), onclick: () => send({ type: 'arena_pause', arena_id: ar.id }) }, t('game.pause_arena')) : '');
    if (!g.outcome) {
      const early = g.moves.length < 2;
      const mineMoved = g.moves.length > (me === 'white' ? 0 : 1) || readFen(g.variant, g.initial_fen).turn !== 'white';
      if (ar && ar.info && ar.info.berserk && !mineMoved && !(g.berserk || []).includes(me)) {
        a.append(h('button', { id: 'berserk', title: t('game.berserk_button_hint'), onclick: () => act('berserk') }, '⚡ ' + t('game.berserk_button')));
      }
      if (early && !tour) a.append(h('button', { id: 'abort', onclick: () => act('abort') }, t('game.abort')));
      const why = drawReasons(me);
      const off = (id, reason) => (reason ? { disabled: true, title: reason, 'aria-describedby': id + '-why' } : {});
      a.append(
        h('button', { id: 'offer-draw', ...off('offer-draw', why.offer), onclick: () => act('draw_offer') }, '½ ' + t('game.offer_draw')),
        h('button', { id: 'claim-draw', ...off('claim-draw', why.claim), onclick: () => act('draw_claim') }, t('game.claim_draw')),
        g.rated ? '' : h('button', { id: 'takeback', onclick: () => act('takeback_offer') }, '↶ ' + t('game.takeback')),
        h('button', { id: 'resign', 'data-armed': performance.now() < resignArmed ? '1' : null, onclick: () => { if (confirmResign()) act('resign'); } },
          performance.now() < resignArmed ? t('game.resign_confirm') : '⚑ ' + t('game.resign')), pause());
      const them = me === 'white' ? 'black' : 'white';
      if (why.withMove) {
        a.append(h('label', { class: 'check', id: 'offer-with-move-label' },
          h('input', { type: 'checkbox', id: 'offer-with-move', checked: offerWithMove, ...off(why.withMoveWhy === why.offer ? 'offer-draw' : 'offer-with-move', why.withMoveWhy), onchange: (e) => { offerWithMove = e.target.checked; } }), ' ', t('game.offer_with_move')));
      }
      for (const [id, reason] of [['offer-draw', why.offer], ['offer-with-move', why.withMoveWhy === why.offer ? null : why.withMoveWhy], ['claim-draw', why.claim]]) {
        if (reason) a.append(h('small', { class: 'why', id: id + '-why' }, reason));
      }
      if (g.left === them && g.claim_at && performance.now() >= g.claim_at) {
        a.append(h('button', { id: 'claim-win', onclick: () => act('claim_abandoned', { result: 'win' }) }, t('game.claim_win')),
          h('button', { onclick: () => act('claim_abandoned', { result: 'draw' }) }, t('game.call_draw')));
      } else if (g.left === them && g.claim_at) {
        // The opponent has gone: how long until the game may be claimed.
        a.append(h('span', { id: 'claim-countdown', class: 'why', role: 'timer' }));
      }
    } else if (ar) {
      const st = ar.standings && ar.standings.me;
      const wave = st && !st.game_id && st.next_wave_at_ms ? Math.ceil((st.next_wave_at_ms - Date.now()) / 1000) : 0;
      a.append(h('a', { id: 'back-to-arena', class: 'button', href: '/arena/' + ar.id }, '← ' + t('game.arena')),
        h('span', { id: 'arena-next', role: 'status' }, ar.membership !== 'active' ? t('game.arena_paused')
          : wave > 0 ? t('game.next_in', { n: wave }) : t('game.next_opens')), pause());
    } else if (tour) {
      a.append(h('a', { id: 'back-to-tournament', class: 'button', href: '/tournament/' + tour.summary.id }, '← ' + t('game.tournament')),
        h('span', { role: 'status' }, t('game.next_opens')));
    } else if (!g.rematch) {
      a.append(h('button', { id: 'rematch', onclick: () => (g.expired ? rematchByChallenge() : act('rematch')) }, t('game.rematch')));
    } else {
      a.append(h('a', { href: '/game/' + g.rematch, class: 'button' }, t('game.go_rematch')));
    }
  }

  /** Why the draw buttons are off now (`null`: on), whether a draw may go with the next
   * move and, if that is refused, why. The server decides and tells each player
   * beforehand (`draw_offer_refusal`: too early, too many pieces, barred after a
   * decline, Frisian endgame); the page adds what it sees itself: a standing offer, the
   * draughts rule that a draw is offered with one's own move (IDF s.2 9.2), and the
   * server's last refusal while the position is the same. */
  function drawReasons(me) {
    const ply = g.moves.length;
    const them = me === 'white' ? 'black' : 'white';
    const still = (r) => (r && r.ply === ply ? r.text : null);
    let offer = g.draw_offer === me ? t('game.why_offer_standing') : still(refused.offer);
    const first = readFen(g.variant, g.initial_fen).turn;
    const mine = Math.floor((ply + (first === me ? 1 : 0)) / 2);
    const withMove = !isChess(g.variant) && g.turn === me && g.draw_offer !== me;
    // The server's word, while no move has been made since it was told.
    const word = g.permit && g.permit.v >= g.posv ? permitText(g.permit.r) : null;
    const withMoveWhy = withMove ? word : null;
    // Draughts, on the move: the box says why, and so does the button (it would say
    // to tick the box).
    if (!offer && g.draw_offer !== them) offer = word;
    if (!offer && !isChess(g.variant) && g.draw_offer !== them && (g.turn === me || mine === 0)) {
      offer = t('game.why_offer_with_move');
    }
    if (!withMove || withMoveWhy) offerWithMove = false;
    return { offer, claim: still(refused.claim), withMove, withMoveWhy };
  }

  /** A refusal the server told beforehand, in words with its article; `null` if none
   * or one the page says itself. */
  function permitText(r) {
    if (!r) return null;
    if (r.kind === 'not_after_own_move') return t('game.why_offer_with_move');
    const n = r.kind === 'too_early' ? r.required : r.kind === 'too_many_pieces' ? r.max : undefined;
    if (!['too_early', 'too_many_pieces', 'barred', 'not_endgame'].includes(r.kind)) return null;
    return t('game.why_offer.' + r.kind, { n, article: offerArticle(g.ruleset, r.kind) });
  }

  // Resigning asks twice; the ask survives the panel being redrawn (arena pushes, events).
  let resignArmed = 0;
  function confirmResign() {
    if (!prefs().confirm_resign || performance.now() < resignArmed) return true;
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

  // The chat (chat.js, loaded with the first game shown): players get their room and
  // the spectators', the others the spectators'. Not on TV, whose game changes.
  let chatEl = null;
  let chatAsked = false;
  function openChat() {
    if (tv || chatAsked || !app.auth || !g) return;
    chatAsked = true;
    const gid = g.game_id;
    const player = !!color();
    withWords('chat', import('./chat.js')).then((c) => {
      if (!root.isConnected || app.chat) return;
      app.chat = c.gameChat(gid, player, { send, me: () => app.me });
      chatEl = app.chat.el;
      const side = $('.panel', root);
      if (side) side.append(chatEl);
    });
  }

  function start() {
    mode = 'live';
    openChat();
    layout();
    clearInterval(tick);
    tick = setInterval(drawClocks, 100);
  }

  if (g) start();
  else root.append(h('p', { class: 'muted' }, t('common.loading')));
  if (!app.auth) {
    // Not signed in: archived games can still be replayed; live ones need a guest name.
    replayArchived(id, root).then((ok) => {
      if (!ok) root.replaceChildren(signIn());
    });
  } else if (!g || tv) follow();

  return {
    game: () => (g ? g.game_id : id),
    online: () => { if (!g) follow(); },
    relang: () => {
      if (g && mode === 'live') layoutKeep();
      else route();
    },
    restyle: () => { if (g && mode === 'live') layoutKeep(); },
    update: (msg) => {
      if (msg.type === 'game_state' && msg.game.archived && msg.game.game_id === id && !tv) {
        // An archived game: step through it.
        app.games.delete(id);
        g = null;
        mode = 'replay';
        clearInterval(tick);
        replayArchived(id, root).then((ok) => {
          if (!ok) root.replaceChildren(h('p', { class: 'error' }, t('game.no_such')));
        });
      } else if (msg.type === 'game_state' && (msg.game.game_id === id || tv)) {
        const switched = !g || g.game_id !== msg.game.game_id;
        id = msg.game.game_id;
        g = app.games.get(id);
        if (switched) premove = null;
        if (switched || mode !== 'live') start();
        else draw();
      } else if (msg.type === 'game_event' && g && msg.game_id === g.game_id) {
        if (msg.event.kind === 'taken_back') premove = null;
        draw();
        if (msg.event.kind === 'rematch_started' && color()) go('/game/' + msg.event.game_id);
      } else if (msg.type === 'move_ack' && g && msg.game_id === g.game_id && color()) {
        drawActions(color());
      } else if ((msg.type === 'arena_standings' || msg.type === 'arena_member' || msg.type === 'tournament') && g && color()) {
        drawActions(color());
      } else if (/^challenge/.test(msg.type) && g && g.outcome && color() && mode === 'live') {
        // An offer of the opponent's rematch while this game was still in memory is
        // answered by their challenge at once.
        const c = rematchChallenge(color());
        if (c && !c.mine && g.rematch_offer === color() && msg.type === 'challenge_received') send({ type: 'accept_challenge', challenge_id: c.challenge_id });
        drawOffers(color());
      }
    },
    error: (msg) => {
      if (msg.code === 'game_not_found' && msg.game_id === id && !g) {
        mode = 'replay';
        replayArchived(id, root).then((ok) => {
          if (!ok) {
            root.replaceChildren(h('section', { class: 'card', id: 'game-gone' },
              h('h2', {}, t('game.not_here')),
              h('p', {}, t('game.not_here_text')),
              h('p', {}, h('a', { href: '/', class: 'button' }, t('common.to_lobby')), ' ', h('a', { href: '/tv' }, t('common.watch_live')))));
          }
        });
        return true;
      }
      if (msg.code === 'game_not_found' && msg.game_id === id && g && g.outcome && color() && lastAct === 'rematch') {
        // The finished game has left the server's memory: a rematch (offered or
        // accepted) goes as a challenge, and so do the later ones.
        g.expired = true;
        rematchByChallenge();
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
        if (!g) root.replaceChildren(h('p', { class: 'muted', id: 'tv-waiting' }, t('game.tv_waiting', { variant: variantName(tv) })));
        setTimeout(() => { if (app.screen && !g) follow(); }, 3000);
        return true;
      }
      if ((msg.code === 'draw_offer_not_allowed' || msg.code === 'claim_refused') && msg.game_id === id && g) {
        // Said once; the button then stays off with the reason until the position changes.
        refused[msg.code === 'claim_refused' ? 'claim' : 'offer'] = { text: errorText(msg), ply: g.moves.length };
        toast(errorText(msg), msg.game_id);
        draw();
        return true;
      }
      if (msg.code === 'illegal_move' || msg.code === 'not_your_turn') {
        toast(errorText(msg), msg.game_id);
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
  document.title = `damka · ${t('game.tv', { variant: variantName(variant) })}`;
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
  const board = new Board(host, game.variant, () => {}, boardStyle());
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
    h('div', { class: 'meta' }, `${variantName(game.variant)} · ${tcText(game.clock || '')} · ${game.rated ? t('game.rated') : t('game.casual')}${game.played_at || game.created_at ? ' · ' + fmtDate(game.played_at || game.created_at) : ''}`),
    h('p', {}, `${name(game.white)} – ${name(game.black)}`),
    list,
    h('p', { class: 'status over', id: 'status' }, `${game.result ? scoreText(game.variant, game.result) : ''} ${game.reason ? '· ' + reasonText(game.reason) : ''} ${game.rule ? `(${ruleText(game.rule)})` : ''}`),
    h('div', { class: 'actions' },
      h('button', { 'aria-label': t('replay.first'), onclick: () => step(-1e9) }, '«'),
      h('button', { 'aria-label': t('replay.previous'), onclick: () => step(-1) }, '◀'),
      h('button', { 'aria-label': t('replay.next'), onclick: () => step(1) }, '▶'),
      h('button', { 'aria-label': t('replay.last'), onclick: () => step(1e9) }, '»'),
      h('button', { onclick: () => board.flip() }, '⇅ ' + t('game.flip')),
      h('a', { class: 'button', href: `/api/games/${id}.${isChess(game.variant) ? 'pgn' : 'pdn'}`, download: `${id}.${isChess(game.variant) ? 'pgn' : 'pdn'}` }, t('replay.download', { format: isChess(game.variant) ? 'PGN' : 'PDN' })))));
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
      box.replaceChildren(h('h3', {}, t('analysis.title')), evalGraph(a.plies, goTo), markSummary(a.plies));
      const moves = list.querySelectorAll('.mv');
      a.plies.forEach((p, i) => {
        const b = moves[i];
        if (!b) return;
        b.title = t('analysis.best', { move: p.best });
        if (p.mark) {
          b.classList.add('mark-' + p.mark);
          b.append(h('span', { class: 'mark' }, MARKS[p.mark]));
        }
      });
      return;
    }
    if (a.status === 'failed') {
      box.replaceChildren(h('p', { class: 'muted' }, t('analysis.failed')));
      return;
    }
    box.replaceChildren(h('p', { class: 'muted', role: 'status' }, a.status === 'running' ? t('analysis.running') : t('analysis.queued')));
    setTimeout(() => api('GET', path).then(render).catch(() => {}), 1000);
  };
  const ask = h('button', {
    id: 'request-analysis',
    onclick: async () => {
      try {
        render(await api('POST', path, undefined, app.auth && app.auth.token));
      } catch (e) {
        box.append(h('p', { class: 'error' }, errorText(e)));
      }
    },
  }, t('analysis.request'));
  box.replaceChildren(app.auth ? ask : h('p', { class: 'muted' }, t('analysis.sign_in')));
  api('GET', path).then(render).catch(() => {});
  return box;
}

function markSummary(plies) {
  const count = (side, mark) => plies.filter((p) => p.by === side && p.mark === mark).length;
  return h('table', { class: 'list marks' },
    h('thead', {}, h('tr', {}, h('th', {}, sideName('white')), h('th', {}, ''), h('th', {}, sideName('black')))),
    h('tbody', {}, ['inaccuracy', 'mistake', 'blunder'].map((m) =>
      h('tr', {}, h('td', {}, count('white', m)), h('td', {}, t('analysis.count_' + m)), h('td', {}, count('black', m))))));
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
    ? `<circle class="${p.mark}" data-ply="${i + 1}" cx="${X(i + 1).toFixed(1)}" cy="${Y(p.eval).toFixed(1)}" r="4"><title>${i + 1}. ${esc(p.move)}: ${esc(t('analysis.' + p.mark))} (${esc(t('analysis.best', { move: p.best }))})</title></circle>`
    : '')).join('');
  const svg = h('div', { class: 'eval-graph', id: 'eval-graph' });
  svg.innerHTML = `<svg viewBox="0 0 ${w} ${hh}" class="chart eval" role="img" aria-label="${esc(t('analysis.graph'))}"><line x1="0" x2="${w}" y1="${hh / 2}" y2="${hh / 2}"/><path class="area" d="${area}"/><path d="${d}"/>${dots}</svg>`;
  svg.onclick = (e) => {
    const ply = e.target && e.target.getAttribute && e.target.getAttribute('data-ply');
    if (ply) goTo(Number(ply));
  };
  return svg;
}

function chart(points) {
  if (!points.length) return h('p', { class: 'muted' }, t('profile.no_rated'));
  const w = 600;
  const hh = 160;
  const xs = points.map((p) => p.at);
  const ys = points.map((p) => p.rating);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [Math.min(...ys) - 10, Math.max(...ys) + 10];
  const X = (x) => ((x - x0) / Math.max(1, x1 - x0)) * (w - 40) + 35;
  const Y = (y) => hh - 15 - ((y - y0) / Math.max(1, y1 - y0)) * (hh - 30);
  const d = points.map((p, i) => `${i ? 'L' : 'M'}${X(p.at).toFixed(1)} ${Y(p.rating).toFixed(1)}`).join('');
  const svg = `<svg viewBox="0 0 ${w} ${hh}" class="chart" role="img" aria-label="${esc(t('profile.history'))}"><text x="2" y="${Y(y1) + 4}">${Math.round(y1)}</text><text x="2" y="${Y(y0) + 4}">${Math.round(y0)}</text><path d="${d}"/>${points.map((p) => `<circle cx="${X(p.at).toFixed(1)}" cy="${Y(p.rating).toFixed(1)}" r="3"><title>${esc(fmtDate(p.at))}: ${Math.round(p.rating)}</title></circle>`).join('')}</svg>`;
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
      root.append(h('p', { class: 'error' }, e.status === 404 ? t('profile.no_such') : errorText(e)));
      return;
    }
    const perfs = Object.entries(user.perfs || {});
    const chartHost = h('div', { id: 'chart' });
    const pick = async (perf) => {
      try {
        chartHost.replaceChildren(chart(await api('GET', `/api/users/${encodeURIComponent(name)}/rating-history?perf=${encodeURIComponent(perf)}`)));
      } catch (e) {
        chartHost.replaceChildren(h('p', { class: 'error' }, errorText(e)));
      }
    };
    const c = user.count || {};
    root.append(
      h('p', { class: 'muted', id: 'profile-count' }, [t('profile.games', { n: c.all || 0 }), t('profile.won', { n: c.win || 0 }), t('profile.lost', { n: c.loss || 0 }), t('profile.drawn', { n: c.draw || 0 })].join(' · '),
        user.created_at ? ` · ${t('profile.since', { date: fmtDate(user.created_at) })}` : ''),
      h('table', { class: 'list perfs' }, h('tbody', {}, perfs.map(([perf, p]) => h('tr', {},
        h('td', {}, h('button', { class: 'link', 'data-perf': perf, onclick: () => pick(perf) }, perfName(perf))),
        h('td', {}, `${Math.round(p.rating)}${p.provisional ? '?' : ''}`), h('td', {}, t('profile.games', { n: p.games })))))),
      chartHost);
    if (perfs.length) pick(perfs.sort((a, b) => b[1].games - a[1].games)[0][0]);
    const games = h('table', { class: 'list games', id: 'games' });
    root.append(h('h2', {}, t('profile.games_heading')), games);
    try {
      const res = await fetch(`/api/users/${encodeURIComponent(name)}/games?max=50`);
      const text = await res.text();
      const rows = text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
      games.replaceChildren(h('tbody', {}, rows.map((g) => h('tr', {},
        h('td', {}, h('a', { href: '/game/' + g.id }, `${g.white.name} – ${g.black.name}`)),
        h('td', {}, `${variantName(g.variant)} ${tcText(g.clock || '')}`), h('td', { class: 'result' }, g.result ? scoreText(g.variant, g.result) : ''), h('td', {}, g.reason ? reasonText(g.reason) : ''),
        h('td', {}, h('a', { href: `/api/games/${g.id}.${isChess(g.variant) ? 'pgn' : 'pdn'}`, download: '' }, isChess(g.variant) ? 'PGN' : 'PDN'))))));
    } catch (e) {
      games.replaceChildren(h('tbody', {}, h('tr', {}, h('td', {}, errorText(e)))));
    }
  })();
  return {};
}

// ---- start ----------------------------------------------------------------------

/** A perf (`russian-blitz`) in words: the variant's name and the speed's. */
function perfName(perf) {
  const [variant, speed] = perf.split('-');
  return `${variantName(variant)} · ${t('speed.' + speed)}`;
}

bind({ app, send, go, toast, view, VARIANTS, RULESETS, TCS });
applyPrefs();
// Another language: the header and the screen on show are drawn again in it (a screen
// with `relang` redraws itself in place; the others are opened again).
onLang(() => {
  renderHeader();
  if (app.screen && app.screen.relang) app.screen.relang();
  else route();
});
// Other board settings (from the settings page or the account at login): the board on
// screen is drawn again with them.
onPrefs(() => { if (app.screen && app.screen.restyle) app.screen.restyle(); });
renderHeader();
connect();
route();
