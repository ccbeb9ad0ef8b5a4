// The home page is the lobby: the quick-pairing grid with each pool's players waiting
// and playing, the open seeks and the form that opens one (with a rating range), the
// challenges, playing the computer, a few live games as small boards that move, the
// players online, and the arenas and tournaments starting next. Everything but the
// challenges comes from the server's lobby feed (`lobby_subscribe`), pushed over the
// WebSocket as it changes; nothing is polled. Loaded by app.js when `/` is opened.

import { Board, DRAUGHTS, routeOf } from './board.js';
import { h, tcText, variantName } from './ui.js';
import { fmtDateTime, loadWords, onLang, t } from './i18n.js';

await loadWords('home');

const VARIANTS = [...DRAUGHTS, 'chess', 'chess960'];
const RULESETS = { russian: ['russian_idf', 'russian_ua'] };
const TCS = ['1+0', '3+0', '3+2', '5+3', '10+5', '15+10', '30+0'];

const options = (values, label) => values.map((v) => h('option', { value: String(v) }, label(v)));
const select = (name, label, values, text, value) => {
  const s = h('select', { name, 'aria-label': label }, options(values, text));
  if (value !== undefined) s.value = String(value);
  return s;
};

/**
 * The home screen. `ctx` is what app.js lends it: `app` (the session state: auth, me,
 * challenges, pool), `send`, `view` (where to draw), `signIn` (the account card, shown
 * to visitors who have not chosen a name) and `tvLinks`.
 */
export function homeScreen(ctx) {
  const { app, send, view } = ctx;
  document.title = 'damka';
  let feed = null;
  const boards = new Map(); // game id -> { board, fen }
  const pools = h('div', { class: 'pools', id: 'pools' });
  const poolState = h('p', { id: 'pool-state', role: 'status' });
  const ratedPool = h('input', { type: 'checkbox', id: 'pool-rated' });
  const seeks = h('div', { id: 'seeks' });
  const challenges = h('div', { id: 'challenges' });
  const online = h('p', { id: 'online', class: 'online', role: 'status' });
  const games = h('div', { class: 'live-games', id: 'live-games' });
  const events = h('div', { id: 'next-events' });
  const guest = !app.auth || app.auth.guest;

  const layout = () => {
    const visitor = !app.auth || app.auth.auto;
    boards.clear();
    view.replaceChildren(h('div', { class: 'home' },
      h('section', { class: 'card quick' }, h('h2', {}, t('lobby.quick')), online, pools,
        guest ? h('p', { class: 'muted' }, t('lobby.guests_casual')) : h('label', { class: 'check' }, ratedPool, ' ', t('lobby.rated')),
        poolState),
      visitor ? ctx.signIn() : null,
      h('section', { class: 'card live' }, h('h2', {}, t('lobby.live')), games),
      h('section', { class: 'card' }, h('h2', {}, t('lobby.seeks')), seeks),
      seekForm(),
      computerForm(),
      h('section', { class: 'card' }, h('h2', {}, t('lobby.challenges')), challenges),
      h('section', { class: 'card' }, h('h2', {}, t('lobby.events')), events),
      ctx.tvLinks()));
    draw();
  };

  /** A seek (no opponent) or a challenge (an opponent's id), as lichess's create form. */
  function seekForm() {
    const variant = select('variant', t('lobby.variant'), VARIANTS, variantName);
    const ruleset = h('select', { name: 'ruleset', 'aria-label': t('lobby.ruleset') });
    const fillRules = () => ruleset.replaceChildren(...(RULESETS[variant.value] || ['']).map((r) => h('option', { value: r }, t('ruleset.' + (r || 'standard')))));
    variant.addEventListener('change', fillRules);
    fillRules();
    const tc = select('time_control', t('lobby.time_control'), TCS, (x) => x, '5+3');
    const color = select('color', t('lobby.colour'), ['random', 'white', 'black'], (c) => t('colour.' + c));
    const rated = h('input', { type: 'checkbox', name: 'rated', id: 'rated' });
    const min = h('input', { type: 'number', name: 'rating_min', min: 0, max: 4000, step: 50, placeholder: t('lobby.rating_min'), 'aria-label': t('lobby.rating_min') });
    const max = h('input', { type: 'number', name: 'rating_max', min: 0, max: 4000, step: 50, placeholder: t('lobby.rating_max'), 'aria-label': t('lobby.rating_max') });
    const opponent = h('input', { name: 'opponent', placeholder: t('lobby.opponent'), 'aria-label': t('lobby.opponent_label') });
    const fen = h('input', { name: 'fen', placeholder: t('lobby.fen_challenge'), 'aria-label': t('lobby.fen_label') });
    const onsubmit = (e) => {
      e.preventDefault();
      const base = { variant: variant.value, time_control: tc.value, rated: rated.checked, color: color.value };
      if (ruleset.value) base.ruleset = ruleset.value;
      if (opponent.value.trim()) {
        const msg = { type: 'challenge', user: opponent.value.trim(), ...base };
        if (fen.value.trim()) msg.fen = fen.value.trim();
        send(msg);
        return;
      }
      if (min.value !== '' || max.value !== '') {
        base.rating_range = { min: Number(min.value || 0), max: Number(max.value || 4000) };
      }
      send({ type: 'seek', ...base });
    };
    return h('form', { class: 'card create', id: 'create', onsubmit },
      h('h2', {}, t('lobby.create')),
      h('div', { class: 'grid2' }, variant, ruleset, tc, color),
      h('label', { class: 'check' }, rated, ' ', t('lobby.rated')),
      h('fieldset', { class: 'range' }, h('legend', {}, t('lobby.rating_range')), h('div', { class: 'grid2' }, min, max)),
      opponent, fen,
      h('button', { type: 'submit' }, t('lobby.create_submit')));
  }

  /** Play the computer: a casual game against the engine at a level 1-8. */
  function computerForm() {
    const variant = select('variant', t('lobby.variant'), VARIANTS, variantName);
    const level = select('level', t('lobby.level'), [1, 2, 3, 4, 5, 6, 7, 8], (n) => t('lobby.level_n', { n }), 3);
    const tc = select('time_control', t('lobby.time_control'), TCS, (x) => x, '5+3');
    const color = select('color', t('lobby.colour'), ['random', 'white', 'black'], (c) => t('colour.' + c));
    const fen = h('input', { name: 'fen', placeholder: t('lobby.fen_optional'), 'aria-label': t('lobby.fen_label') });
    const onsubmit = (e) => {
      e.preventDefault();
      const msg = { type: 'computer_play', variant: variant.value, level: Number(level.value), time_control: tc.value, color: color.value };
      if (fen.value.trim()) msg.fen = fen.value.trim();
      send(msg);
    };
    return h('form', { class: 'card create', id: 'computer', onsubmit },
      h('h2', {}, t('lobby.computer')),
      h('div', { class: 'grid2' }, variant, level, tc, color),
      fen,
      h('button', { type: 'submit' }, t('lobby.computer_submit')));
  }

  const myRating = () => (app.me && app.me.rating) || 1500;

  function drawPools() {
    if (!feed) return;
    pools.replaceChildren(...feed.pools.map((p) => h('button', {
      class: 'pool' + (app.pool && app.pool.variant === p.variant && tcText(app.pool.time_control) === tcText(p.time_control) ? ' waiting' : ''),
      'data-pool': `${p.variant} ${tcText(p.time_control)}`,
      onclick: () => (app.auth ? send({ type: 'pool_join', variant: p.variant, time_control: p.time_control, rated: ratedPool.checked }) : ctx.toast(t('lobby.no_guests'))),
    }, h('b', {}, tcText(p.time_control)), h('span', {}, variantName(p.variant)),
    h('small', { class: 'counts' }, t('lobby.pool_counts', { playing: p.playing, waiting: p.waiting })))));
    online.textContent = t('lobby.online', { n: feed.online });
  }

  function drawSeeks() {
    const list = feed ? feed.seeks : [];
    seeks.replaceChildren(list.length ? h('table', { class: 'list' }, h('tbody', {}, list.map((s) => {
      const mine = app.me && s.user.id === app.me.id;
      const range = s.rating_range;
      const fits = !range || (myRating() >= range.min && myRating() <= range.max);
      return h('tr', { 'data-seek': s.seek_id },
        h('td', {}, s.user.name), h('td', {}, s.user.rating || ''), h('td', {}, variantName(s.variant)), h('td', {}, tcText(s.time_control)),
        h('td', {}, s.rated ? t('lobby.rated_short') : t('lobby.casual'), range ? ` ${range.min}–${range.max}` : ''),
        h('td', {}, mine ? h('button', { onclick: () => send({ type: 'cancel_seek', seek_id: s.seek_id }) }, t('lobby.cancel'))
          : h('button', { disabled: !fits, title: fits ? null : t('lobby.out_of_range'), onclick: () => send({ type: 'accept_seek', seek_id: s.seek_id }) }, t('lobby.play'))));
    }))) : h('p', { class: 'muted' }, t('lobby.no_seeks')));
  }

  function drawGames() {
    const list = feed ? feed.games : [];
    if (!list.length) {
      boards.clear();
      games.replaceChildren(h('p', { class: 'muted' }, t('lobby.no_games')));
      return;
    }
    const cards = list.map((g) => {
      let shown = boards.get(g.game_id);
      if (!shown) {
        const host = h('div', { class: 'mini-board' });
        const board = new Board(host, g.variant, () => {}, { keyboard: false });
        const caption = h('span', { class: 'caption' });
        const card = h('a', { class: 'live-game', href: '/game/' + g.game_id, 'data-game': g.game_id }, host, caption);
        shown = { board, caption, card, fen: null };
        boards.set(g.game_id, shown);
      }
      if (shown.fen !== g.fen) {
        shown.fen = g.fen;
        const last = g.last_move ? { path: routeOf(g.variant, g.last_move) || [], captures: [] } : null;
        shown.board.set({ fen: g.fen, last, legal: [], mine: null });
      }
      shown.caption.replaceChildren(h('b', {}, g.white.name), ` ${g.white.rating || ''} – `, h('b', {}, g.black.name), ` ${g.black.rating || ''}`,
        h('br'), `${variantName(g.variant)} ${tcText(g.time_control)}`, g.last_move ? ` · ${g.last_move}` : '');
      shown.card.dataset.plies = g.plies;
      return shown.card;
    });
    for (const id of [...boards.keys()]) if (!list.some((g) => g.game_id === id)) boards.delete(id);
    games.replaceChildren(...cards);
  }

  function drawEvents() {
    const arenas = feed ? feed.arenas : [];
    const tournaments = feed ? feed.tournaments : [];
    const rows = [
      ...arenas.map((a) => h('li', { 'data-arena': a.id }, h('a', { href: '/arena/' + a.id }, a.name), ' ',
        `${variantName(a.variant)} ${tcText(a.time_control)} · `,
        a.status === 'running' ? t('lobby.running') : t('lobby.starts', { when: fmtDateTime(a.starts_at_ms) }),
        ' · ', t('lobby.players', { n: a.players }))),
      ...tournaments.map((x) => h('li', { 'data-tournament': x.id }, h('a', { href: '/tournament/' + x.id }, x.name), ' ',
        `${variantName(x.variant)} ${tcText(x.time_control)} · `,
        x.status === 'running' ? t('lobby.round', { round: x.round, rounds: x.rounds }) : t('lobby.upcoming'),
        ' · ', t('lobby.players', { n: x.players }))),
    ];
    events.replaceChildren(rows.length ? h('ul', { class: 'list' }, rows) : h('p', { class: 'muted' }, t('lobby.no_events')));
  }

  function drawMine() {
    poolState.replaceChildren(...(app.pool ? [t('lobby.waiting', { pool: `${variantName(app.pool.variant)} ${tcText(app.pool.time_control)}` }), ' ',
      h('button', { class: 'link', onclick: () => send({ type: 'pool_leave' }) }, t('lobby.leave'))] : []));
    const cs = [...app.challenges.values()];
    challenges.replaceChildren(cs.length ? h('ul', { class: 'list' }, cs.map((c) => h('li', {},
      c.mine ? t('lobby.challenge_to', { who: c.to }) : t('lobby.challenge_from', { who: c.from.name }), ' ',
      `${variantName(c.variant)} ${tcText(c.time_control)}${c.rated ? ' · ' + t('lobby.rated_short') : ''} `,
      c.mine ? h('button', { onclick: () => send({ type: 'cancel_challenge', challenge_id: c.challenge_id }) }, t('lobby.cancel'))
        : [h('button', { onclick: () => send({ type: 'accept_challenge', challenge_id: c.challenge_id }) }, t('lobby.accept')), ' ',
          h('button', { onclick: () => send({ type: 'decline_challenge', challenge_id: c.challenge_id }) }, t('lobby.decline'))]))) : h('p', { class: 'muted' }, t('lobby.your_id', { id: app.me ? app.me.id : '…' })));
  }

  function draw() {
    drawPools();
    drawSeeks();
    drawGames();
    drawEvents();
    drawMine();
  }

  const update = (msg) => {
    if (msg.type === 'lobby') {
      if (feed && msg.lobby.version <= feed.version) return;
      feed = msg.lobby;
      draw();
    } else drawMine();
  };
  const unlisten = onLang(layout);
  layout();
  send({ type: 'lobby_subscribe' });
  return {
    update,
    // Back after a drop, maybe on another node, whose feed numbers its versions anew.
    online: () => {
      feed = null;
      send({ type: 'lobby_subscribe' });
    },
    leave: () => {
      unlisten();
      send({ type: 'lobby_unsubscribe' });
    },
  };
}
