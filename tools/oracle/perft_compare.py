#!/usr/bin/env python3
"""perft_compare.py DAMKA: perft nodes per second of damka and of every other implementation
that runs here (dame-rs, py-draughts, pydraughts), same positions, same session.
Prints a markdown table for docs/performance.md."""
import os, subprocess, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle

damka = sys.argv[1]
CASES = [
    ("international", "start", 8, {"dame-rs": 8, "py-draughts": 6, "pydraughts": 4}),
    ("international", "W:WK9,34,36,39,41,K42,46,48,49:B5,11,16", 6, {"dame-rs": 6, "py-draughts": 5, "pydraughts": 3}),
    ("russian", "start", 9, {"py-draughts": 7, "pydraughts": 5}),
    ("russian", "W:Wa1,c1,e1,b2,c3,Ke3,g3,f4:Bd6,f6,h6,c7,e7,g7,Kb8,d8", 8, {"py-draughts": 5, "pydraughts": 4}),
]

def best_of(n, f):
    best = None
    for _ in range(n):
        t = time.perf_counter(); nodes = f(); dt = time.perf_counter() - t
        best = dt if best is None or dt < best else best
    return nodes, best

START = {
    "international": "W:W31-50:B1-20",
    "russian": "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8",
}

rows = []
for variant, fen, depth, others in CASES:
    def run_damka():
        args = [damka, "rules", "perft", "--variant", variant, "--depth", str(depth)]
        if fen != "start":
            args += ["--fen", fen]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        return int(out.split()[-1])
    # Subtract process start-up: time a depth-1 run too.
    def run_damka_1():
        args = [damka, "rules", "perft", "--variant", variant, "--depth", "1"]
        if fen != "start":
            args += ["--fen", fen]
        subprocess.run(args, capture_output=True, check=True)
        return 0
    nodes, dt = best_of(5, run_damka)
    _, startup = best_of(5, run_damka_1)
    base = nodes / max(dt - startup, 1e-9)
    rows.append((variant, fen, depth, "damka", nodes, dt - startup, base, 1.0))
    for lib, d in others.items():
        if lib not in oracle.VARIANTS[variant][2]:
            continue
        a = oracle.adapter(variant, lib)
        if lib == "dame-rs":
            import dame
            board = dame.Board() if fen == "start" else dame.Board(oracle.internal_fen(*oracle.parse_fen(variant, fen)))
            n, t = best_of(3, lambda: dame.perft(board, d))
        else:
            turn, pieces = oracle.parse_fen(variant, START[variant] if fen == "start" else fen)
            pos = a.load(turn, dict(pieces))
            n, t = best_of(1, lambda: oracle.perft(a, pos, d))
        rows.append((variant, fen, d, lib, n, t, n / t, (n / t) / base))

print("| variant | position | depth | implementation | nodes | seconds | nodes/s | ratio to damka |")
print("|---|---|---|---|---|---|---|---|")
for v, f, d, impl, n, t, nps, r in rows:
    print(f"| {v} | {'start' if f == 'start' else '`' + f + '`'} | {d} | {impl} | {n} | {t:.3f} | {nps:,.0f} | {r:.3f} |")
