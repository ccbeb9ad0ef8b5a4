#!/usr/bin/env python3
"""Random-play positions for each draughts variant, cross-checked by every library -> positions.jsonl"""
import json, os, random, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle
from oracle import VARIANTS, START, parse_fen, make_fen, moves_json, perft, to_ours

HERE = os.path.dirname(os.path.abspath(__file__))
VARS = sys.argv[1:] or ["russian", "brazilian", "italian", "international", "frisian"]
GEN_LIB = {"russian": "py-draughts", "brazilian": "py-draughts", "italian": "pydraughts",
           "international": "py-draughts", "frisian": "py-draughts"}
SEEDS = {"russian": 101, "brazilian": 202, "italian": 303, "international": 404, "frisian": 505}
PER_VARIANT = 40


def promo_rows(variant):
    # canonical numbering: row 0 = top (Black's back rank) -> White crowns on row 0
    w = 4 if VARIANTS[variant][0] == 32 else 5
    return w


def features(variant, a, pos):
    turn, pieces = a.state(pos)
    moves = a.gen(pos)
    w = promo_rows(variant)
    nrows = VARIANTS[variant][0] // w
    kings = sum(1 for _, k in pieces.values() if k)
    maxcap = max((len(k[2]) for k in moves), default=0)
    near = 0
    for c, (col, k) in pieces.items():
        if k or col != turn:
            continue
        row = (c - 1) // w
        if (col == "W" and row <= 1) or (col == "B" and row >= nrows - 2):
            near += 1
    return dict(turn=turn, pieces=len(pieces), kings=kings, maxcap=maxcap, near=near, nmoves=len(moves))


def collect(variant, rng):
    a = oracle.adapter(variant, GEN_LIB[variant])
    seen, pool = set(), []
    for game in range(14):
        pos = a.load(*parse_fen(variant, START[variant]))
        for ply in range(400):
            st = a.state(pos)
            fen = make_fen(variant, *st)
            f = features(variant, a, pos)
            cols = {c for c, _ in st[1].values()}
            if len(cols) < 2:
                break
            if fen not in seen and ply > 0:
                seen.add(fen)
                pool.append((fen, f, game, ply))
            moves = list(a.gen(pos).values())
            if not moves or f["pieces"] <= 2:
                break
            a.push(pos, rng.choice(moves))
    return pool


def select(pool, rng):
    chosen, fens = [], set()

    def take(pred, n, tag):
        cands = [p for p in pool if pred(p[1]) and p[0] not in fens]
        for p in rng.sample(cands, min(n, len(cands))):
            fens.add(p[0]); chosen.append((p[0], tag))
    take(lambda f: f["maxcap"] >= 3, 4, "multi-capture>=3")
    take(lambda f: f["maxcap"] == 2, 5, "multi-capture=2")
    take(lambda f: f["maxcap"] >= 1 and f["kings"] >= 1, 5, "capture+kings")
    take(lambda f: f["kings"] >= 2 and f["maxcap"] == 0, 6, "kings quiet")
    take(lambda f: f["near"] >= 1, 5, "near promotion")
    take(lambda f: f["pieces"] <= 5, 5, "endgame<=5")
    take(lambda f: 6 <= f["pieces"] <= 9, 4, "endgame 6-9")
    take(lambda f: f["maxcap"] == 1 and f["kings"] == 0, 3, "single capture")
    take(lambda f: True, PER_VARIANT - len(chosen), "random")
    return chosen


def evaluate(variant, fen, depth=3):
    res = {}
    for lib in VARIANTS[variant][2]:
        a = oracle.adapter(variant, lib)
        pos = a.load(*parse_fen(variant, fen))
        mv = moves_json(variant, a, pos)
        pf = {str(d): perft(a, pos, d) for d in range(1, depth + 1)}
        res[lib] = (mv, pf, a)
    return res


def mkey(m):
    return f'{m["from"]}{"x" if m["captures"] else "-"}{m["to"]}' + ("[" + ",".join(map(str, m["captures"])) + "]" if m["captures"] else "")


def divide_diff(variant, libs_res, fen, depth):
    """find a concrete first-level move whose subtree counts differ"""
    out = []
    (la, (_, _, aa)), (lb, (_, _, ab)) = list(libs_res.items())[:2]
    pa, pb = aa.load(*parse_fen(variant, fen)), ab.load(*parse_fen(variant, fen))
    ga, gb = aa.gen(pa), ab.gen(pb)
    for k in ga:
        if k not in gb:
            continue
        aa.push(pa, ga[k]); ab.push(pb, gb[k])
        na, nb = perft(aa, pa, depth - 1), perft(ab, pb, depth - 1)
        if na != nb:
            out.append({"after": f"{to_ours(variant, k[0])}-{to_ours(variant, k[1])}",
                        "fen_after": make_fen(variant, *aa.state(pa)), la: na, lb: nb})
        aa.pop(pa); ab.pop(pb)
    return out[:3]


def build_record(v, fen, tag):
    res = evaluate(v, fen)
    libs = list(res)
    ref = GEN_LIB[v] if GEN_LIB[v] in res else libs[0]
    rec = {"variant": v, "fen": fen, "library": ref, "tag": tag,
           "moves": res[ref][0], "perft": res[ref][1],
           "checked_with": [l for l in libs if l != ref], "disagreements": []}
    for l in libs:
        if l == ref:
            continue
        ma = {mkey(m) for m in res[ref][0]}
        mb = {mkey(m) for m in res[l][0]}
        if ma != mb or res[ref][1] != res[l][1]:
            d = {"libraries": [ref, l], f"only_{ref}": sorted(ma - mb), f"only_{l}": sorted(mb - ma),
                 f"perft_{ref}": res[ref][1], f"perft_{l}": res[l][1]}
            if ma == mb:
                dd = {ref: res[ref], l: res[l]}
                for depth in (2, 3):
                    if res[ref][1][str(depth)] != res[l][1][str(depth)]:
                        d["divide"] = divide_diff(v, dd, fen, depth)
                        break
            rec["disagreements"].append(d)
            print("  DISAGREE", v, fen, json.dumps(d)[:300], flush=True)
    return rec


def main():
    outpath = os.path.join(HERE, "results", "positions_" + "_".join(VARS) + ".jsonl")
    with open(outpath, "w") as out:
        for v in VARS:
            rng = random.Random(SEEDS[v])
            t = time.time()
            pool = collect(v, rng)
            chosen = select(pool, rng)
            print(v, "pool", len(pool), "chosen", len(chosen), round(time.time() - t, 1), flush=True)
            for fen, tag in chosen:
                rec = build_record(v, fen, tag)
                out.write(json.dumps(rec) + "\n")
                out.flush()
            print(v, "done", round(time.time() - t, 1), flush=True)


if __name__ == "__main__":
    main()
