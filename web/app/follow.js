// What the client remembers of arenas and tournaments from the server's messages (an
// arena's description, standings and one's membership; which games are arena games; each
// tournament's latest view), for the game screen and for the screens of events.js.

import { api } from './net.js';

// What the app lends: { app, send, go, toast, view, VARIANTS, RULESETS, TCS }.
export let ctx = null;

/** Called once by the app before anything else of this module is used. */
export function bind(c) {
  ctx = c;
}

// ---- state kept from the server's messages ---------------------------------------

/** Keeps what arena and tournament messages say; true when the message was one of them. */
export function remember(msg) {
  const { app } = ctx;
  switch (msg.type) {
    case 'arena_created':
      arena(msg.arena.id).info = msg.arena;
      return true;
    case 'arena_member':
      arena(msg.arena_id).membership = msg.membership;
      return true;
    case 'arena_standings': {
      const a = arena(msg.standings.arena_id);
      a.standings = msg.standings;
      a.at = performance.now();
      if (msg.standings.me) {
        a.membership = msg.standings.me.membership;
        if (msg.standings.me.game_id) app.arenaGames.set(msg.standings.me.game_id, a.id);
      }
      if (a.info) a.info.status = msg.standings.status === 'finished' ? 'finished' : msg.standings.status;
      return true;
    }
    case 'tournament':
      app.tournaments.set(msg.tournament.summary.id, msg.tournament);
      return true;
    case 'game_start':
    case 'game_state':
      // An arena game names its arena (`game.arena`).
      if (msg.game.arena) {
        app.arenaGames.set(msg.game.game_id, msg.game.arena);
        learnArena(msg.game);
      }
      return false;
    default:
      return false;
  }
}

/** A game names an arena this client knows nothing of (its page was reloaded): its
 * description from the API, then, for one of the game's players, the standings with
 * their own line (membership, next game), which redraw the game's actions. */
function learnArena(g) {
  const { app, send } = ctx;
  const a = arena(g.arena);
  if (a.info || a.loading) return;
  a.loading = true;
  api('GET', `/api/arenas/${encodeURIComponent(a.id)}`)
    .then((r) => {
      a.info = r.arena;
      if (r.podium) a.info.status = 'finished';
      const mine = app.me && (g.white.id === app.me.id || g.black.id === app.me.id);
      if (mine && !a.standings) send({ type: 'arena_watch', arena_id: a.id });
    })
    .catch(() => {})
    .finally(() => { a.loading = false; });
}

export function arena(id) {
  const { app } = ctx;
  if (!app.arenas.has(id)) app.arenas.set(id, { id, info: null, standings: null, membership: null, at: 0 });
  return app.arenas.get(id);
}

/** The arena a game belongs to, if it is an arena game of mine. */
export function arenaFor(gameId) {
  const id = ctx.app.arenaGames.get(gameId);
  return id ? ctx.app.arenas.get(id) : null;
}

/** The tournament a game belongs to (the game names it), from the views received. */
export function tournamentFor(gameId) {
  const named = ctx.app.games.get(gameId)?.tournament;
  if (named) return ctx.app.tournaments.get(named) || null;
  for (const t of ctx.app.tournaments.values()) {
    for (const r of t.rounds) for (const m of r.matches) if (m.games.some((g) => g.game_id === gameId)) return t;
  }
  return null;
}

