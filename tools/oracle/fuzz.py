#!/usr/bin/env python3
"""fuzz.py VARIANT N SEED: random sparse positions (many kings), compare move lists of all libraries.
Writes disagreements to results/fuzz_VARIANT.jsonl"""
import json, os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle
v, N, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
sq = oracle.VARIANTS[v][0]; w = 4 if sq == 32 else 5
libs = oracle.VARIANTS[v][2]
ads = {l: oracle.adapter(v, l) for l in libs}
out = open(os.path.join(oracle.HERE, "results", f"fuzz_{v}.jsonl"), "w")
bad = 0
for i in range(N):
    k = rng.randint(2, 12)
    squares = rng.sample(range(1, sq + 1), k)
    pieces = {}
    for j, c in enumerate(squares):
        col = "W" if j % 2 == 0 else "B"
        if rng.random() < 0.5: col = "B" if col == "W" else "W"
        row = (c - 1) // w
        king = rng.random() < 0.4
        if (col == "W" and row == 0) or (col == "B" and row == sq // w - 1):
            king = True
        pieces[c] = (col, king)
    if len({c for c, _ in pieces.values()}) < 2: continue
    turn = rng.choice("WB")
    fen = oracle.make_fen(v, turn, pieces)
    res = {}
    for l, a in ads.items():
        p = a.load(turn, dict(pieces))
        res[l] = {f'{m["from"]}-{m["to"]}x{m["captures"]}' for m in oracle.moves_json(v, a, p)}
    ref = libs[0]
    for l in libs[1:]:
        if res[l] != res[ref]:
            bad += 1
            rec = {"variant": v, "fen": fen, f"only_{ref}": sorted(res[ref] - res[l]), f"only_{l}": sorted(res[l] - res[ref])}
            out.write(json.dumps(rec) + "\n")
print(v, "positions", N, "disagreements", bad)
