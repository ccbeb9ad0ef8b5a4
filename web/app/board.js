// The boards: every variant's geometry and square names, FEN reading, and an SVG board
// that draws a position and lets a player pick a move from the server's legal moves by
// click, drag or route (square by square), in the player's piece set, with or without
// coordinates; and a premove (a move queued while the opponent is to move: any piece of
// the player's own to any square, or a route of jumps, checked only when the position
// arrives). No rules here: the server sends the moves.

import { loadWords, t } from './i18n.js';

await loadWords('board');

const SVG = 'http://www.w3.org/2000/svg';

export const DRAUGHTS = ['russian', 'brazilian', 'pool', 'czech', 'portuguese', 'italian', 'international', 'frisian'];
export const isChess = (v) => v === 'chess' || v === 'chess960';

/** The board of a variant: size, playing squares with their screen cell and name. */
export function geometry(variant) {
  if (isChess(variant)) {
    const squares = [];
    for (let row = 0; row < 8; row++) {
      for (let col = 0; col < 8; col++) {
        squares.push({ row, col, name: 'abcdefgh'[col] + (8 - row) });
      }
    }
    return { side: 8, squares, chess: true, numbered: false, byName: index(squares), mirrored: false };
  }
  const side = variant === 'international' || variant === 'frisian' ? 10 : 8;
  const half = side / 2;
  const mirrored = variant === 'portuguese' || variant === 'italian';
  const squares = [];
  for (let i = 0; i < side * half; i++) {
    const row = Math.floor(i / half);
    const k = i % half;
    const icol = row % 2 === 0 ? 2 * k + 1 : 2 * k;
    let name;
    if (side === 10) name = String(i + 1);
    else if (variant === 'portuguese') name = String((7 - row) * 4 + k + 1);
    else if (variant === 'italian') name = String(row * 4 + (3 - k) + 1);
    else name = 'abcdefgh'[icol] + (8 - row);
    squares.push({ row, col: mirrored ? side - 1 - icol : icol, name });
  }
  return { side, squares, chess: false, numbered: side === 10 || mirrored, byName: index(squares), mirrored };
}

function index(squares) {
  const m = new Map();
  for (const s of squares) m.set(s.name, s);
  return m;
}

/** Pieces of a FEN: Map square name -> {color:'w'|'b', kind}. Draughts kinds 'man'/'king'; chess letters. */
export function readFen(variant, fen) {
  const pieces = new Map();
  if (isChess(variant)) {
    const rows = (fen || '').split(' ')[0].split('/');
    rows.forEach((r, row) => {
      let col = 0;
      for (const ch of r) {
        if (/\d/.test(ch)) col += Number(ch);
        else {
          pieces.set('abcdefgh'[col] + (8 - row), { color: ch === ch.toUpperCase() ? 'w' : 'b', kind: ch.toLowerCase() });
          col++;
        }
      }
    });
    return { pieces, turn: (fen || '').split(' ')[1] === 'b' ? 'black' : 'white' };
  }
  const parts = (fen || '').split(':');
  for (const part of parts.slice(1)) {
    const color = part[0] === 'W' ? 'w' : part[0] === 'B' ? 'b' : null;
    if (!color || part[1] === 'W' || part[1] === 'B') continue; // ":MW.." king runs
    for (let item of part.slice(1).split(',')) {
      item = item.trim();
      if (!item) continue;
      const king = item[0] === 'K';
      if (king) item = item.slice(1);
      pieces.set(item, { color, kind: king ? 'king' : 'man' });
    }
  }
  return { pieces, turn: parts[0] === 'B' ? 'black' : 'white' };
}

/** The squares of a move text: draughts routes split on - : x; chess UCI from, to. */
export function routeOf(variant, text) {
  if (isChess(variant)) return [text.slice(0, 2), text.slice(2, 4)];
  return text.split(/[-:x]/);
}

const GLYPH = { k: '\u265a', q: '\u265b', r: '\u265c', b: '\u265d', n: '\u265e', p: '\u265f' };
/** A piece's name for screen readers: `piece.<kind>` (a draughts king is `dama`). */
const pieceName = (kind, chess) => t('piece.' + (kind === 'king' && !chess ? 'dama' : kind));
/** A piece with its colour (`piece.w.n`: "white knight"), agreeing in gender where the language asks it. */
const colouredPiece = (p, chess) => t(`piece.${p.color}.${p.kind === 'king' && !chess ? 'dama' : p.kind}`);
/** The arrow keys' steps on screen: [rows, columns]. */
const STEPS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
/** The outlined glyphs of the classic chess set, for White. */
const OUTLINE = { k: '\u2654', q: '\u2655', r: '\u2656', b: '\u2657', n: '\u2658', p: '\u2659' };

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/**
 * An SVG board in `host`. `onMove(text)` is called with a legal move's text when the
 * player has picked one. Call `set({...})` with the position and what to show.
 * `style`: the player's `pieces` set (`flat`, `classic`) and `coordinates` (on/off);
 * `keyboard: false` makes it a picture (no tab stop, hidden from screen readers).
 */
export class Board {
  constructor(host, variant, onMove, style = {}) {
    this.style = { pieces: 'flat', coordinates: true, ...style };
    this.host = host;
    this.variant = variant;
    this.geo = geometry(variant);
    this.onMove = onMove;
    this.flipped = false;
    this.legal = [];
    this.path = [];
    this.pieces = new Map();
    this.promoting = null; // chess: the moves of a promotion whose piece is being picked
    this.promoFocus = 0;
    this.last = null;
    this.mine = null; // 'white' | 'black' | null (spectator)
    this.turn = 'white';
    this.premovable = false; // the opponent is to move and the player queues moves
    this.premove = null; // the queued route, [from, to, ...]
    this.onPremove = () => {}; // told of every change of `premove`
    this.svg = el('svg', {
      viewBox: `0 0 ${this.geo.side} ${this.geo.side}`,
      class: 'board ' + (this.geo.chess ? 'chess' : 'draughts') + (this.geo.side === 10 ? ' ten' : '') + ' set-' + this.style.pieces,
      role: 'grid',
      'aria-label': t('board.label', { variant: t('variant.' + variant) }),
      'data-variant': variant,
    });
    // A picture only (the lobby's live games, the settings' preview): no tab stop.
    if (this.style.keyboard === false) this.svg.setAttribute('aria-hidden', 'true');
    host.replaceChildren(this.svg);
    this.svg.addEventListener('pointerdown', (e) => this.down(e));
    this.svg.addEventListener('pointermove', (e) => this.drag(e));
    this.svg.addEventListener('pointerup', (e) => this.up(e));
    this.svg.addEventListener('pointercancel', () => this.cancelDrag());
    // The keyboard: one square is the board's tab stop; arrows move it, Enter or Space
    // chooses it as a click would, Escape drops the squares chosen so far.
    this.cursor = null;
    this.svg.addEventListener('keydown', (e) => this.key(e));
    this.svg.addEventListener('focusin', (e) => this.ring(e.target));
    this.svg.addEventListener('focusout', () => this.ring(null));
  }

  /** A key on a focused square. */
  key(e) {
    const name = e.target.dataset && e.target.dataset.square;
    if (!name) return;
    if (STEPS[e.key]) {
      const next = this.step(name, STEPS[e.key]);
      if (next) this.focusSquare(next);
    } else if (e.key === 'Enter' || e.key === ' ') {
      this.cursor = name;
      this.choose(name);
    } else if (e.key === 'Escape') {
      this.path = [];
      this.draw();
    } else return;
    e.preventDefault();
  }

  /** The playing square next to `name` in the direction of `[dr, dc]` on screen. */
  step(name, [dr, dc]) {
    const from = this.cell(this.geo.byName.get(name));
    let best = null;
    let bestCost = Infinity;
    for (const sq of this.geo.squares) {
      const { x, y } = this.cell(sq);
      const along = dr ? (y - from.y) * dr : (x - from.x) * dc;
      const across = dr ? Math.abs(x - from.x) : Math.abs(y - from.y);
      if (along <= 0) continue;
      // Up and down: the nearest row, then the nearest column; left and right: the same
      // row first (a grid's row), then the nearest square.
      const cost = dr ? along * 10 + across : across * 100 + along;
      if (cost < bestCost) [best, bestCost] = [sq.name, cost];
    }
    return best;
  }

  focusSquare(name) {
    this.cursor = name;
    for (const r of this.svg.querySelectorAll('[data-square]')) r.setAttribute('tabindex', r.dataset.square === name ? '0' : '-1');
    const r = this.svg.querySelector(`[data-square="${name}"]`);
    if (r) r.focus();
  }

  /** The focus ring: a frame over the focused square, above the pieces. */
  ring(target) {
    for (const old of this.svg.querySelectorAll('.focus-ring')) old.remove();
    const name = target && target.dataset && target.dataset.square;
    if (!name) return;
    this.cursor = name;
    const { x, y } = this.cell(this.geo.byName.get(name));
    el('rect', { x: x + 0.04, y: y + 0.04, width: 0.92, height: 0.92, class: 'focus-ring', 'aria-hidden': 'true' }, this.svg);
  }

  /** What to draw: fen, legal moves (for the player to move), last move, side, flip,
   * whether a premove may be entered (`premovable`) and the one queued (`premove`). */
  set(opts) {
    Object.assign(this, opts);
    const read = readFen(this.variant, this.fen);
    this.pieces = read.pieces;
    if (!this.canMove() && !this.premovable) this.path = [];
    if (!this.canMove()) this.promoting = null;
    // A piece picked for a premove that cannot move now is put down.
    if (this.canMove() && this.path.length && !this.candidates().length) this.path = [];
    this.draw();
  }

  /** Queues `route` (or clears the queue with null) and says so. */
  setPremove(route) {
    this.premove = route;
    this.path = [];
    this.draw();
    this.onPremove(route);
  }

  /** A click while the opponent is to move: pick a piece of one's own, then a square;
   * on draughts further jumps (two squares or more along a diagonal from a route that
   * began with a jump) lengthen the route. Any other click cancels the premove. */
  choosePremove(name) {
    const own = (sq) => {
      const p = this.pieces.get(sq);
      return !!p && p.color === this.mine[0];
    };
    if (this.premove) {
      if (this.jumpOn(name)) return this.setPremove([...this.premove, name]);
      return this.setPremove(null);
    }
    if (!this.path.length || name === this.path[0]) {
      this.path = !this.path.length && own(name) ? [name] : [];
    } else if (own(name)) {
      this.path = [name];
    } else return this.setPremove([this.path[0], name]);
    this.draw();
  }

  /** Whether `name` continues the queued draughts route by another jump. */
  jumpOn(name) {
    if (this.geo.chess || this.premove.includes(name)) return false;
    const at = (n) => this.geo.byName.get(n);
    const leg = (a, b) => (Math.abs(a.row - b.row) === Math.abs(a.col - b.col) ? Math.abs(a.row - b.row) : 0);
    const r = this.premove;
    return leg(at(r[r.length - 2]), at(r[r.length - 1])) >= 2 && leg(at(r[r.length - 1]), at(name)) >= 2;
  }

  /** The legal move the queued premove stands for, or null: the same route, or the only
   * move from its first square to its last (chess: a promotion makes a queen). */
  premoveMatch() {
    const r = this.premove;
    if (!r || !this.canMove()) return null;
    const same = this.legal.find((m) => routeOf(this.variant, m).join() === r.join());
    if (same) return same;
    const ends = this.legal.filter((m) => {
      const mr = routeOf(this.variant, m);
      return mr[0] === r[0] && mr[mr.length - 1] === r[r.length - 1];
    });
    if (ends.length === 1) return ends[0];
    return (this.geo.chess && ends.find((m) => m[4] === 'q')) || null;
  }

  flip() {
    this.flipped = !this.flipped;
    this.draw();
  }

  canMove() {
    return this.mine && this.mine === this.turn && this.legal.length > 0;
  }

  cell(sq) {
    const s = this.geo.side - 1;
    return this.flipped ? { x: s - sq.col, y: s - sq.row } : { x: sq.col, y: sq.row };
  }

  /** Routes consistent with the squares chosen so far. */
  candidates(path = this.path) {
    return this.legal.filter((m) => {
      const r = routeOf(this.variant, m);
      return path.every((p, i) => r[i] === p);
    });
  }

  /** Squares the next click may go to. */
  targets() {
    if (!this.path.length) return [];
    const out = new Set();
    for (const m of this.candidates()) {
      const r = routeOf(this.variant, m);
      if (r.length > this.path.length) out.add(r[this.path.length]);
      out.add(r[r.length - 1]);
    }
    return [...out];
  }

  /** A click (or a drop) on a square. */
  choose(name) {
    if (!this.canMove()) {
      if (this.premovable && this.mine) this.choosePremove(name);
      return;
    }
    const origins = new Set(this.legal.map((m) => routeOf(this.variant, m)[0]));
    if (!this.path.length) {
      if (origins.has(name)) this.path = [name];
      this.draw();
      return;
    }
    const next = [...this.path, name];
    const prefix = this.candidates(next);
    if (prefix.length) {
      this.path = next;
      const done = prefix.filter((m) => routeOf(this.variant, m).length === next.length);
      if (done.length && prefix.length === done.length) return this.finish(done);
      this.draw();
      return;
    }
    // Not the next square of any route: the end of exactly one route from here?
    const ending = this.candidates().filter((m) => {
      const r = routeOf(this.variant, m);
      return r[r.length - 1] === name;
    });
    if (ending.length === 1 || (ending.length > 1 && this.geo.chess)) return this.finish(ending);
    // Another piece of one's own picks it instead; elsewhere, a lone pick is dropped and
    // a route half chosen stays as it is.
    if (this.path.length === 1) this.path = origins.has(name) ? [name] : [];
    this.draw();
  }

  finish(moves) {
    if (moves.length > 1 && this.geo.chess) {
      this.promote(moves);
      return;
    }
    if (moves.length !== 1) return this.draw();
    this.path = [];
    this.draw();
    this.onMove(moves[0]);
  }

  /** Chess promotion: a picker over the board for `moves` (the same route, one per
   * piece), until a piece is chosen (click, or arrows and Enter) or Escape, a click
   * beside it or a new position cancels it. Drawn again with every redraw. */
  promote(moves) {
    this.promoting = moves;
    this.promoFocus = 0;
    this.draw();
  }

  /** Plays the promotion `m` (or, with null, cancels the picker). */
  endPromotion(m) {
    const to = this.promoting[0].slice(2, 4);
    const held = this.svg.contains(document.activeElement);
    this.promoting = null;
    this.path = [];
    this.draw();
    // The focus the picker had goes back to the board, on the promotion square.
    if (held && this.style.keyboard !== false) this.focusSquare(to);
    if (m) this.onMove(m);
  }

  drawPromotion() {
    const moves = this.promoting;
    const to = moves[0].slice(2, 4);
    const { x, y } = this.cell(this.geo.byName.get(to));
    const g = el('g', { class: 'promo', role: 'dialog', 'aria-label': t('board.promote_pick') }, this.svg);
    const veil = el('rect', { x: 0, y: 0, width: this.geo.side, height: this.geo.side, class: 'veil' }, g);
    // Clicks, not pointer releases: the release of the click that opened the picker
    // lands on the first choice and must not choose it.
    veil.addEventListener('click', () => this.endPromotion(null));
    const buttons = moves.map((m, i) => {
      const p = m[4];
      const yy = y < this.geo.side / 2 ? y + i : y - i;
      const b = el('g', {
        class: 'promo-choice', 'data-move': m, role: 'button', tabindex: i === this.promoFocus ? 0 : -1,
        'aria-label': t('board.promote', { piece: pieceName(p, true) }),
      }, g);
      el('rect', { x, y: yy, width: 1, height: 1 }, b);
      const txt = el('text', { x: x + 0.5, y: yy + 0.53, class: 'piece ' + (this.mine === 'white' ? 'w' : 'b') }, b);
      txt.textContent = GLYPH[p] + '\ufe0e';
      b.addEventListener('click', (e) => {
        e.stopPropagation();
        this.endPromotion(m);
      });
      b.addEventListener('focus', () => { this.promoFocus = i; });
      return b;
    });
    g.addEventListener('keydown', (e) => {
      const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[e.key];
      if (step) {
        this.promoFocus = (this.promoFocus + step + moves.length) % moves.length;
        buttons[this.promoFocus].focus();
      } else if (e.key === 'Enter' || e.key === ' ') this.endPromotion(moves[this.promoFocus]);
      else if (e.key === 'Escape') this.endPromotion(null);
      else return;
      e.preventDefault();
    });
    buttons[this.promoFocus].focus();
  }

  at(e) {
    const pt = this.svg.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    const p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    const s = this.geo.side - 1;
    let col = Math.floor(p.x);
    let row = Math.floor(p.y);
    if (this.flipped) {
      col = s - col;
      row = s - row;
    }
    const sq = this.geo.squares.find((q) => q.row === row && q.col === col);
    return { sq, x: p.x, y: p.y };
  }

  down(e) {
    if (e.target.closest('.promo')) return;
    const { sq } = this.at(e);
    if (!sq) return;
    const before = this.path.length;
    this.choose(sq.name);
    // Dragging starts from a piece just picked up.
    if (before === 0 && this.path.length === 1 && this.path[0] === sq.name) {
      this.dragging = { from: sq.name, moved: false, id: e.pointerId };
      try {
        this.svg.setPointerCapture(e.pointerId);
      } catch (_) {
        /* synthetic events have no capture */
      }
    }
    e.preventDefault();
  }

  drag(e) {
    const d = this.dragging;
    if (!d) return;
    const { x, y } = this.at(e);
    const node = this.svg.querySelector(`[data-piece="${d.from}"]`);
    if (!node) return;
    const sq = this.geo.byName.get(d.from);
    const c = this.cell(sq);
    d.moved = true;
    node.setAttribute('transform', `translate(${x - c.x - 0.5} ${y - c.y - 0.5})`);
    node.classList.add('dragging');
  }

  up(e) {
    const d = this.dragging;
    this.dragging = null;
    if (!d || !d.moved) return;
    const { sq } = this.at(e);
    if (sq && sq.name !== d.from) this.choose(sq.name);
    else this.draw();
  }

  cancelDrag() {
    this.dragging = null;
    this.draw();
  }

  draw() {
    if (!Board.drawn) {
      Board.drawn = true;
      // For the load measurements: when the first board was on screen.
      requestAnimationFrame(() => performance.mark('damka:first-board'));
    }
    const svg = this.svg;
    const side = this.geo.side;
    const focused = svg.contains(document.activeElement) && document.activeElement.dataset ? document.activeElement.dataset.square : null;
    svg.replaceChildren();
    const playing = new Set(this.geo.squares.map((q) => q.row * side + q.col));
    // Light squares first (draughts: not played on).
    for (let row = 0; row < side; row++) {
      for (let col = 0; col < side; col++) {
        const dark = this.geo.chess ? (row + col) % 2 === 1 : playing.has(row * side + col);
        if (dark) continue;
        const x = this.flipped ? side - 1 - col : col;
        const y = this.flipped ? side - 1 - row : row;
        el('rect', { x, y, width: 1, height: 1, class: 'sq light' }, svg);
      }
    }
    const lastSquares = new Set(this.last ? this.last.path.map(String) : []);
    const queued = new Set(this.premove || []);
    if (this.premove) svg.dataset.premove = this.premove.join('-');
    else delete svg.dataset.premove;
    const captured = new Set(this.last ? this.last.captures.map(String) : []);
    const targets = new Set(this.targets());
    const origins = this.canMove() ? new Set(this.legal.map((m) => routeOf(this.variant, m)[0])) : new Set();
    // The playing squares, a row of the grid per row on screen, left to right.
    const rows = Array.from({ length: side }, () => []);
    for (const sq of this.geo.squares) rows[this.cell(sq).y].push(sq);
    const stop = this.geo.byName.has(this.cursor) ? this.cursor : ([...origins][0] || this.geo.squares[0].name);
    for (const row of rows) {
      const g = el('g', { role: 'row' }, svg);
      row.sort((a, b) => this.cell(a).x - this.cell(b).x);
      for (const sq of row) this.square(g, sq, { lastSquares, queued, targets, stop });
    }
    this.coords();
    for (const [name, piece] of this.pieces) {
      const sq = this.geo.byName.get(name);
      if (sq) this.piece(sq, piece, origins.has(name));
    }
    // Square numbers last, so that they show over the pieces standing on them.
    if (this.geo.numbered && this.style.coordinates) {
      for (const sq of this.geo.squares) {
        const { x, y } = this.cell(sq);
        const txt = el('text', { x: x + 0.06, y: y + 0.24, class: 'num', 'data-num': sq.name, 'aria-hidden': 'true' }, svg);
        txt.textContent = sq.name;
      }
    }
    for (const name of captured) {
      const sq = this.geo.byName.get(name);
      if (sq && !this.pieces.has(name)) {
        const { x, y } = this.cell(sq);
        el('path', { d: `M${x + 0.3} ${y + 0.3}L${x + 0.7} ${y + 0.7}M${x + 0.7} ${y + 0.3}L${x + 0.3} ${y + 0.7}`, class: 'taken' }, svg);
      }
    }
    for (const name of targets) {
      const sq = this.geo.byName.get(name);
      if (!sq) continue;
      const { x, y } = this.cell(sq);
      el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.16, class: 'target', 'data-target': name }, svg);
    }
    // A redraw replaces the squares: the focus stays on the square it was on (the
    // promotion picker, when open, takes it).
    if (this.promoting) this.drawPromotion();
    else if (focused) this.focusSquare(focused);
  }

  /** A playing square: a focusable grid cell named with its piece ("e4, white knight"). */
  square(parent, sq, { lastSquares, queued, targets, stop }) {
    const { x, y } = this.cell(sq);
    const dark = this.geo.chess ? (sq.row + sq.col) % 2 === 1 : true;
    const cls = ['sq', dark ? 'dark' : 'light'];
    if (lastSquares.has(sq.name)) cls.push('last');
    if (this.path.includes(sq.name)) cls.push('chosen');
    if (queued.has(sq.name)) cls.push('premove');
    const piece = this.pieces.get(sq.name);
    const where = this.geo.numbered ? t('board.square_n', { n: sq.name }) : sq.name;
    const label = piece ? t('board.cell', { square: where, piece: colouredPiece(piece, this.geo.chess) }) : where;
    el('rect', {
      x, y, width: 1, height: 1, class: cls.join(' '), 'data-square': sq.name, role: 'gridcell',
      ...(this.style.keyboard === false ? {} : { tabindex: sq.name === stop ? '0' : '-1' }),
      'aria-selected': this.path.includes(sq.name) ? 'true' : 'false',
      'aria-label': label + (targets.has(sq.name) ? ', ' + t('board.move_here') : '') + (queued.has(sq.name) ? ', ' + t('board.premove') : ''),
    }, parent);
  }

  /** Coordinates at the edges: files and ranks for algebraic boards. */
  coords() {
    if (this.geo.numbered || !this.style.coordinates) return;
    const side = this.geo.side;
    for (let i = 0; i < side; i++) {
      const file = this.flipped ? side - 1 - i : i;
      const rank = this.flipped ? i + 1 : side - i;
      const f = el('text', { x: i + 0.94, y: side - 0.06, class: 'coord file', 'aria-hidden': 'true' }, this.svg);
      f.textContent = 'abcdefgh'[file];
      const r = el('text', { x: 0.05, y: i + 0.22, class: 'coord rank', 'aria-hidden': 'true' }, this.svg);
      r.textContent = String(rank);
    }
  }

  piece(sq, piece, movable) {
    const { x, y } = this.cell(sq);
    const g = el('g', { 'data-piece': sq.name, class: 'pc ' + piece.color + (movable ? ' movable' : ''), 'aria-hidden': 'true' }, this.svg);
    if (this.geo.chess) {
      const txt = el('text', { x: x + 0.5, y: y + 0.53, class: 'piece ' + piece.color }, g);
      const outline = this.style.pieces === 'classic' && piece.color === 'w';
      txt.textContent = (outline ? OUTLINE : GLYPH)[piece.kind] + '\ufe0e';
      return;
    }
    el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.4, class: 'man' }, g);
    el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.27, class: 'ring' }, g);
    // The classic set: turned wooden men with grooves.
    if (this.style.pieces === 'classic') el('circle', { cx: x + 0.5, cy: y + 0.5, r: 0.15, class: 'ring' }, g);
    if (piece.kind === 'king') {
      const cx = x + 0.5;
      const cy = y + 0.5;
      el('path', {
        d: `M${cx - 0.2} ${cy + 0.1}L${cx - 0.22} ${cy - 0.12}L${cx - 0.1} ${cy - 0.02}L${cx} ${cy - 0.17}L${cx + 0.1} ${cy - 0.02}L${cx + 0.22} ${cy - 0.12}L${cx + 0.2} ${cy + 0.1}Z`,
        class: 'crown',
      }, g);
    }
  }
}
