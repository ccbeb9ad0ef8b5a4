#!/usr/bin/env python3
"""compare_damka.py VARIANT N SEED DAMKA: random sparse positions (many kings); compare the
reference library's move list with `damka rules moves --json`. Prints a summary line."""
import json, os, random, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle
v, N, seed, damka = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)
sq = oracle.VARIANTS[v][0]; w = 4 if sq == 32 else 5
ref = oracle.VARIANTS[v][2][0]
a = oracle.adapter(v, ref)
bad = checked = 0
for i in range(N):
    k = rng.randint(2, 14)
    squares = rng.sample(range(1, sq + 1), k)
    pieces = {}
    for j, c in enumerate(squares):
        col = "W" if rng.random() < 0.5 else "B"
        row = (c - 1) // w
        king = rng.random() < 0.4
        if (col == "W" and row == 0) or (col == "B" and row == sq // w - 1):
            king = True
        pieces[c] = (col, king)
    if len({c for c, _ in pieces.values()}) < 2: continue
    turn = rng.choice("WB")
    fen = oracle.make_fen(v, turn, pieces)
    p = a.load(turn, dict(pieces))
    theirs = {(str(m["from"]), str(m["to"]), tuple(sorted(str(c) for c in m["captures"]))) for m in oracle.moves_json(v, a, p)}
    out = subprocess.run([damka, "rules", "moves", "--variant", v, "--fen", fen, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        print("damka refused", fen, out.stderr.strip()); bad += 1; continue
    ours = {(str(m["from"]), str(m["to"]), tuple(sorted(str(c) for c in m["captures"]))) for m in json.loads(out.stdout)}
    checked += 1
    if ours != theirs:
        bad += 1
        if bad <= 5:
            print("DIFF", fen, "only damka:", sorted(ours - theirs)[:4], "only", ref + ":", sorted(theirs - ours)[:4])
print(f"{v}: {checked} positions compared with {ref}, {bad} disagreements")
