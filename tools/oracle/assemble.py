#!/usr/bin/env python3
"""Assemble positions.jsonl (random-play + crafted + fuzz-found) and perft_start.json from results/."""
import glob, json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_positions, crafted

HERE = os.path.dirname(os.path.abspath(__file__))
R = os.path.join(HERE, "results")
if "--positions" in sys.argv:
    recs = []
    for v in ["russian", "brazilian", "italian", "international", "frisian"]:
        for f in sorted(glob.glob(os.path.join(R, "positions_*.jsonl"))):
            recs += [r for r in map(json.loads, open(f)) if r["variant"] == v]
    for v, fen, why in crafted.CRAFTED:
        r = gen_positions.build_record(v, fen, "crafted: " + why); recs.append(r)
    for f in sorted(glob.glob(os.path.join(R, "fuzz_*.jsonl"))):
        for d in map(json.loads, open(f)):
            recs.append(gen_positions.build_record(d["variant"], d["fen"], "fuzz (random placement) disagreement"))
    with open(os.path.join(HERE, "positions.jsonl"), "w") as out:
        for r in recs:
            out.write(json.dumps(r) + "\n")
    print("positions", len(recs), "with disagreements", sum(1 for r in recs if r["disagreements"]))
if "--perft" in sys.argv:
    out = {"convention": "nodes at depth N from the start position; a move = (from, to, set of captured squares), "
                          "routes with the same key counted once; seconds = wall time on this 2-core box",
           "draughts": {}, "chess": json.load(open(os.path.join(R, "perft_chess.json")))}
    for f in sorted(glob.glob(os.path.join(R, "perft_*_*.json"))):
        d = json.load(open(f))
        if "variant" not in d:
            continue
        e = out["draughts"].setdefault(d["variant"], {"fen": d["fen"], "libraries": {}})
        e["libraries"][d["library"]] = {k: d[k] for k in ("perft", "seconds", "skipped_from_depth", "merge_warnings") if k in d}
    for v, e in out["draughts"].items():
        libs = e["libraries"]
        depths = set().union(*[set(x["perft"]) for x in libs.values()])
        e["agree"] = all(len({x["perft"][dd] for x in libs.values() if dd in x["perft"]}) == 1 for dd in depths)
    out["not_implemented_by_any_library"] = ["pool", "czech", "portuguese"]
    json.dump(out, open(os.path.join(HERE, "perft_start.json"), "w"), indent=1)
    for v, e in out["draughts"].items():
        print(v, e["agree"], {l: x["perft"] for l, x in e["libraries"].items()})
