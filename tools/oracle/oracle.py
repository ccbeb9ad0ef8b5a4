#!/usr/bin/env python3
"""damka move-generator oracle built from PyPI draughts/chess libraries.

Libraries (see NOTES.md):
  pydraughts 0.6.7  (import draughts, venv site-packages): russian, brazilian, italian,
                    international ("standard"), frisian
  py-draughts 1.10.1 (import draughts too! installed with --target in libs/py_draughts,
                    loaded under a swapped sys.modules): russian, brazilian, international, frisian
  dame-rs 0.2.0     (import dame): international only
  chess 1.11.2      (python-chess): chess, chess960
Not implemented by any library: pool, czech, portuguese.

All squares in/out use damka's conventions (see NOTES.md).  A move is the key
(from, to, sorted captures); routes with the same key are counted once.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYD_PATH = os.path.join(HERE, "libs", "py_draughts")

# ---------------------------------------------------------------- libraries
_mods = {}


def _load_pydraughts():
    if "pydraughts" not in _mods:
        saved = {k: v for k, v in sys.modules.items() if k == "draughts" or k.startswith("draughts.")}
        for k in saved:
            del sys.modules[k]
        sp = [p for p in sys.path if os.path.abspath(p) != PYD_PATH]
        old = sys.path
        sys.path = sp
        try:
            import draughts.core.game as game  # noqa
            import draughts  # noqa
        finally:
            sys.path = old
        _mods["pydraughts"] = {k: v for k, v in sys.modules.items() if k == "draughts" or k.startswith("draughts.")}
        for k in _mods["pydraughts"]:
            del sys.modules[k]
        sys.modules.update(saved)
        _mods["pydraughts_game"] = game
    return _mods["pydraughts_game"]


def _load_pydr():
    if "py-draughts" not in _mods:
        saved = {k: v for k, v in sys.modules.items() if k == "draughts" or k.startswith("draughts.")}
        for k in saved:
            del sys.modules[k]
        old = sys.path
        sys.path = [PYD_PATH] + old
        try:
            import draughts  # noqa
            from draughts.boards import russian, brazilian, standard, frisian  # noqa
        finally:
            sys.path = old
        import draughts as dr
        _mods["py-draughts"] = {k: v for k, v in sys.modules.items() if k == "draughts" or k.startswith("draughts.")}
        for k in _mods["py-draughts"]:
            del sys.modules[k]
        sys.modules.update(saved)
        _mods["py-draughts_mod"] = dr
        try:
            from loguru import logger
            logger.remove()
        except Exception:
            pass
    return _mods["py-draughts_mod"]


# ---------------------------------------------------------------- squares
# "canonical" numbering c = 1..32 / 1..50 = what pydraughts' core Game uses and
# py-draughts index+1 uses: square 1 at top-left playable square seen from White
# (b8 for russian-geometry 8x8, a8 for italian, b10/"1" for 10x10).

def _alg8(c):
    r = (c - 1) // 4          # 0 = rank 8
    col = (c - 1) % 4
    f = 2 * col + (1 if r % 2 == 0 else 0)
    return "abcdefgh"[f] + str(8 - r)


ALG8 = {c: _alg8(c) for c in range(1, 33)}
ALG8_INV = {v: k for k, v in ALG8.items()}


def _port(n):
    """portuguese number -> algebraic (1=h1 ... 32=a8), for documentation/FEN use."""
    r = (n - 1) // 4          # 0 = rank 1
    k = (n - 1) % 4
    rank = r + 1
    f = 7 - 2 * k - (1 if r % 2 == 1 else 0)   # rank1: h,f,d,b ; rank2: g,e,c,a
    return "abcdefgh"[f] + str(rank)


VARIANTS = {
    # name: (board squares, square-name fn c->our name, libs in preference order, lib variant names)
    "russian": (32, "alg8", ["py-draughts", "pydraughts"]),
    "brazilian": (32, "alg8", ["py-draughts", "pydraughts"]),
    "italian": (32, "num", ["pydraughts"]),
    "international": (50, "num", ["dame-rs", "py-draughts", "pydraughts"]),
    "frisian": (50, "num", ["py-draughts", "pydraughts"]),
    "pool": (32, "alg8", []),
    "czech": (32, "alg8", []),
    "portuguese": (32, "num", []),
    "chess": (64, None, ["python-chess"]),
    "chess960": (64, None, ["python-chess"]),
}
PYDRAUGHTS_NAME = {"russian": "russian", "brazilian": "brazilian", "italian": "italian",
                   "international": "standard", "frisian": "frisian"}


def to_ours(variant, c):
    return ALG8[c] if VARIANTS[variant][1] == "alg8" else int(c)


def from_ours(variant, s):
    if VARIANTS[variant][1] == "alg8":
        return ALG8_INV[str(s).lower()]
    return int(s)


def parse_fen(variant, fen):
    """our FEN -> (turn 'W'/'B', {c: ('W'|'B', king)})"""
    fen = fen.strip()
    if fen.startswith("["):
        fen = fen.split('"')[1]
    parts = fen.split(":")
    turn = parts[0].strip().upper()
    pieces = {}
    for p in parts[1:]:
        p = p.strip()
        if not p or p[0].upper() not in "WB":
            continue
        col = p[0].upper()
        for tok in p[1:].split(","):
            tok = tok.strip()
            if not tok:
                continue
            king = tok[0].upper() == "K"
            if king:
                tok = tok[1:]
            if "-" in tok and VARIANTS[variant][1] == "num":
                a, b = tok.split("-")
                for n in range(int(a), int(b) + 1):
                    pieces[from_ours(variant, n)] = (col, king)
            else:
                pieces[from_ours(variant, tok)] = (col, king)
    return turn, pieces


def _sortkey(variant, c):
    if VARIANTS[variant][1] == "alg8":
        s = ALG8[c]
        return (int(s[1]), s[0])
    return (c,)


def make_fen(variant, turn, pieces):
    out = [turn]
    for col in "WB":
        sq = sorted((c for c, (pc, k) in pieces.items() if pc == col), key=lambda c: _sortkey(variant, c))
        out.append(col + ",".join(("K" if pieces[c][1] else "") + str(to_ours(variant, c)) for c in sq))
    return ":".join(out)


def internal_fen(turn, pieces):
    w = ",".join(("K" if k else "") + str(c) for c, (pc, k) in sorted(pieces.items()) if pc == "W")
    b = ",".join(("K" if k else "") + str(c) for c, (pc, k) in sorted(pieces.items()) if pc == "B")
    return f"{turn}:W{w}:B{b}"


# ---------------------------------------------------------------- adapters
class PyDraughtsAdapter:
    """pydraughts (core Game API, internal numbering == canonical c)."""
    name = "pydraughts"

    def __init__(self, variant):
        self.variant = variant
        self.game_mod = _load_pydraughts()
        self.lv = PYDRAUGHTS_NAME[variant]

    def load(self, turn, pieces):
        return self.game_mod.Game(self.lv, internal_fen(turn, pieces))

    def gen(self, g):
        ms, cs = g.legal_moves()
        out = {}
        for m, c in zip(ms, cs):
            caps = tuple(sorted(x for x in c if x is not None))
            out.setdefault((m[0][0], m[-1][1], caps), m)
        return out

    def push(self, g, h):
        g.push(h)

    def pop(self, g):
        g.pop()

    def state(self, g):
        turn = "W" if g.whose_turn() == 2 else "B"
        pieces = {}
        for p in g.board.searcher.uncaptured_pieces:
            pieces[p.position] = ("W" if p.player == 2 else "B", bool(p.king))
        return turn, pieces


class PyDrAdapter:
    """py-draughts (bitboards; index+1 == canonical c)."""
    name = "py-draughts"

    def __init__(self, variant):
        self.variant = variant
        dr = _load_pydr()
        self.cls = {"russian": dr.RussianBoard, "brazilian": dr.BrazilianBoard,
                    "international": dr.StandardBoard, "frisian": dr.FrisianBoard}[variant]
        self.Color = dr.Color
        self.merge_warnings = 0

    def load(self, turn, pieces):
        return self.cls.from_fen(internal_fen(turn, pieces))

    def gen(self, b):
        out = {}
        for m in b.legal_moves:
            key = (m.square_list[0] + 1, m.square_list[-1] + 1, tuple(sorted(x + 1 for x in m.captured_list)))
            if key in out and out[key].is_promotion != m.is_promotion:
                self.merge_warnings += 1
            out.setdefault(key, m)
        return out

    def push(self, b, h):
        b.push(h)

    def pop(self, b):
        b.pop()

    def state(self, b):
        turn = "W" if b.turn == self.Color.WHITE else "B"
        pieces = {}
        for i in range(b.SQUARES_COUNT):
            v = b._get(i)
            if v:
                pieces[i + 1] = ("W" if v < 0 else "B", abs(v) == 2)
        return turn, pieces


class DameAdapter:
    """dame-rs (Rust, international only, standard numbering)."""
    name = "dame-rs"

    def __init__(self, variant):
        assert variant == "international"
        import dame
        self.dame = dame

    def load(self, turn, pieces):
        return self.dame.Board(internal_fen(turn, pieces))

    def gen(self, b):
        out = {}
        for m in b.legal_moves:
            out.setdefault((m.from_square, m.to_square, tuple(sorted(m.captured))), m)
        return out

    def push(self, b, h):
        b.push(h)

    def pop(self, b):
        b.pop()

    def state(self, b):
        turn = "W" if b.turn == self.dame.WHITE else "B"
        return turn, {sq: ("W" if p.color == self.dame.WHITE else "B", p.is_king) for sq, p in b.piece_map().items()}


ADAPTERS = {"pydraughts": PyDraughtsAdapter, "py-draughts": PyDrAdapter, "dame-rs": DameAdapter}


def adapter(variant, lib=None):
    libs = VARIANTS[variant][2]
    if not libs:
        raise SystemExit(f"variant {variant!r} is not implemented by any available library")
    lib = lib or libs[0]
    if lib not in libs:
        raise SystemExit(f"library {lib!r} does not implement {variant!r} (available: {libs})")
    return ADAPTERS[lib](variant)


def perft(a, pos, depth):
    if depth == 0:
        return 1
    moves = a.gen(pos)
    if depth == 1:
        return len(moves)
    n = 0
    for h in moves.values():
        a.push(pos, h)
        n += perft(a, pos, depth - 1)
        a.pop(pos)
    return n


def moves_json(variant, a, pos):
    res = []
    for (f, t, caps) in a.gen(pos):
        res.append({"from": to_ours(variant, f), "to": to_ours(variant, t),
                    "captures": sorted((to_ours(variant, c) for c in caps), key=lambda s: _sortkey(variant, from_ours(variant, s)))})

    def k(m):
        return (_sortkey(variant, from_ours(variant, m["from"])), _sortkey(variant, from_ours(variant, m["to"])),
                [_sortkey(variant, from_ours(variant, c)) for c in m["captures"]])
    res.sort(key=k)
    return res


START = {
    "russian": "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
    "brazilian": "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
    "pool": "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
    "czech": "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
    "portuguese": "W:W1-12:B21-32",
    "italian": "W:W21-32:B1-12",
    "international": "W:W31-50:B1-20",
    "frisian": "W:W31-50:B1-20",
    "chess": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
}


# ---------------------------------------------------------------- chess
def chess_board(variant, fen):
    import chess
    if fen in (None, "", "startpos"):
        fen = START["chess"]
    return chess.Board(fen, chess960=(variant == "chess960"))


def chess_perft(board, depth):
    if depth == 1:
        return board.legal_moves.count()
    n = 0
    for m in board.legal_moves:
        board.push(m)
        n += chess_perft(board, depth - 1)
        board.pop()
    return n


# ---------------------------------------------------------------- CLI
def main(argv=None):
    epi = "\n".join(f"  {v:14s} {', '.join(l) if l else '(no library)'}" for v, (_, _, l) in VARIANTS.items())
    ap = argparse.ArgumentParser(
        description="Independent draughts/chess move-generation oracle (damka conventions).",
        epilog="variants -> libraries (first = default):\n" + epi +
        "\nFEN: 'W:Wa1,c1,Kd4:Bb8,Kh6' (russian/brazilian), numbers for italian/international/frisian;"
        " 'start' = start position. Chess uses normal FEN (chess960: X-FEN/Shredder castling).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("perft", "moves", "fen"):
        p = sub.add_parser(name)
        p.add_argument("--variant", required=True, choices=list(VARIANTS))
        p.add_argument("--fen", default="start")
        p.add_argument("--library", default=None, help="force a library (default: first listed)")
        if name == "perft":
            p.add_argument("--depth", type=int, required=True)
            p.add_argument("--divide", action="store_true")
    args = ap.parse_args(argv)
    v = args.variant
    if v in ("chess", "chess960"):
        b = chess_board(v, None if args.fen == "start" else args.fen)
        if args.cmd == "perft":
            if args.divide:
                for m in b.legal_moves:
                    b.push(m)
                    print(m.uci(), chess_perft(b, args.depth - 1) if args.depth > 1 else 1)
                    b.pop()
            print("nodes", chess_perft(b, args.depth) if args.depth > 0 else 1)
        elif args.cmd == "moves":
            print(json.dumps(sorted(({"from": __import__("chess").square_name(m.from_square),
                                      "to": __import__("chess").square_name(m.to_square),
                                      "uci": m.uci()} for m in b.legal_moves), key=lambda d: d["uci"])))
        else:
            print(b.fen())
        return 0
    fen = START.get(v) if args.fen == "start" else args.fen
    a = adapter(v, args.library)
    turn, pieces = parse_fen(v, fen)
    pos = a.load(turn, pieces)
    if args.cmd == "perft":
        if args.divide:
            for key, h in a.gen(pos).items():
                a.push(pos, h)
                n = perft(a, pos, args.depth - 1)
                a.pop(pos)
                print(f"{to_ours(v, key[0])}-{to_ours(v, key[1])} x{[to_ours(v, c) for c in key[2]]} {n}")
        print("nodes", perft(a, pos, args.depth))
    elif args.cmd == "moves":
        print(json.dumps(moves_json(v, a, pos)))
    else:
        print(make_fen(v, *a.state(pos)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
