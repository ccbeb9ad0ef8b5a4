"""Search Frisian positions where capture priority depends on king weight (pydraughts 1.501 vs 63/32)."""
import os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle
def n(r, f): return r * 5 + f // 2 + 1
a = oracle.adapter("frisian", "py-draughts")
rng = random.Random(11)
base = {n(9, 0): ("W", False)}
for rf in [(8, 1), (6, 3), (4, 5), (2, 7), (1, 6)]:
    base[n(*rf)] = ("B", False)
free = [c for c in range(1, 51) if c not in base and c not in (n(7,2), n(5,4), n(3,6), n(1,8), n(1,4))]
found = 0
for i in range(100000):
    pieces = dict(base)
    s = rng.sample(free, 4)
    pieces[s[0]] = ("W", True)
    for c in s[1:]: pieces[c] = ("B", True)
    b = a.load("W", pieces)
    caps = b._gen_captures()
    def best(kw, mw):
        vals = []
        for m in caps:
            nk = sum(1 for c in m.captured_list if pieces[c + 1][1]); nm = len(m.captured_list) - nk
            vals.append((kw * nk + mw * nm, nk, nm))
        mx = max(v[0] for v in vals)
        return {(m.square_list[0]+1, m.square_list[-1]+1, v[1], v[2]) for m, v in zip(caps, vals) if v[0] == mx}
    b1, b2 = best(1.501, 1), best(63, 32)
    if b1 != b2:
        print(oracle.make_fen("frisian", "W", pieces), b1, b2); found += 1
        if found >= 2: break
