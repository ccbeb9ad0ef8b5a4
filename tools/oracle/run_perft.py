#!/usr/bin/env python3
"""run_perft.py VARIANT LIB MAXDEPTH [BUDGET_SECONDS] -> results/perft_VARIANT_LIB.json (incremental)."""
import json, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle

v, lib, maxd = sys.argv[1], sys.argv[2], int(sys.argv[3])
budget = float(sys.argv[4]) if len(sys.argv) > 4 else 600
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", f"perft_{v}_{lib}.json")
res = {"variant": v, "library": lib, "fen": oracle.START[v], "perft": {}, "seconds": {}}
a = oracle.adapter(v, lib)
pos = a.load(*oracle.parse_fen(v, oracle.START[v]))
last = 0.0
for d in range(1, maxd + 1):
    # growth factor estimate: skip if predicted time > budget
    if d > 3 and last * 6 > budget:
        res["skipped_from_depth"] = d
        with open(out, "w") as f:
            json.dump(res, f, indent=1)
        break
    t = time.time()
    n = oracle.perft(a, pos, d)
    last = time.time() - t
    res["perft"][str(d)] = n
    res["seconds"][str(d)] = round(last, 2)
    if getattr(a, "merge_warnings", 0):
        res["merge_warnings"] = a.merge_warnings
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print(v, lib, d, n, round(last, 2), flush=True)
