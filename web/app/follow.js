// What the client remembers of arenas and tournaments from the server's messages (an
// arena's description, standings and one's membership; which games are arena games; each
// tournament's latest view), for the game screen and for the screens of events.js.

import { tcText } from './ui.js';

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
    case 'game_start': {
      // A game that starts while I wait in a running arena of its kind is that arena's.
      const g = msg.game;
      for (const a of app.arenas.values()) {
        const running = (a.standings && a.standings.status === 'running') || (a.info && a.info.status === 'running');
        if (a.membership === 'active' && running && a.info && a.info.variant === g.variant
          && tcText(a.info.time_control) === tcText(g.time_control)) app.arenaGames.set(g.game_id, a.id);
      }
      return false;
    }
    default:
      return false;
  }
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

/** The tournament a game belongs to, from the views received. */
export function tournamentFor(gameId) {
  for (const t of ctx.app.tournaments.values()) {
    for (const r of t.rounds) for (const m of r.matches) if (m.games.some((g) => g.game_id === gameId)) return t;
  }
  return null;
}

