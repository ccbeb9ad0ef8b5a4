import json, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle
def n(r, f):
    assert (r % 2 == 0) == (f % 2 == 1), (r, f)
    return r * 5 + f // 2 + 1
def show(v, fen):
    print("==", v, fen)
    for lib in oracle.VARIANTS[v][2]:
        a = oracle.adapter(v, lib)
        p = a.load(*oracle.parse_fen(v, fen))
        print("  ", lib, json.dumps(oracle.moves_json(v, a, p)), [oracle.perft(a, p, d) for d in (1, 2, 3)])
if __name__ == "__main__":
    man = [n(8,1), n(6,3), n(4,5), n(2,7), n(1,6)]
    kings = [n(7,8), n(3,8), n(5,6)]
    show("frisian", f"W:W{n(9,0)},K{n(9,8)}:B{','.join(map(str,man))},{','.join('K'+str(k) for k in kings)}")
    show("russian", "W:Wb6:Bc7,e7")
    show("brazilian", "W:Wb6:Bc7,e7")
    show("italian", "W:W14:B9")   # italian man jumps king? 14=c6? check

CRAFTED = [
    ("russian", "W:Wb6:Bc7,e7", "man crowned mid-capture continues as king"),
    ("brazilian", "W:Wb6:Bc7,e7", "man passes last row mid-capture, continues as man"),
    ("frisian", "W:WK30,46:B9,14,23,K27,32,41,K42,K49", "3 kings (189) beat 5 men (160); pydraughts 1.501 weighting picks the men"),
    ("frisian", "W:WK29,46:B9,14,23,32,41,K43,K44,K47", "3 kings (189) beat 5 men (160); pydraughts 1.501 weighting picks the men"),
]
