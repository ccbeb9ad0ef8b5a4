"""Writes the starting corpora of the fuzz targets (run once from shared/fuzz/; the
minimised corpora in corpus/ grew from these). Usage: python3 seeds/make_seeds.py"""
import json, os, re

ROOT = os.path.dirname(os.path.abspath(__file__))
FUZZ = os.path.dirname(ROOT)
DOCS = os.path.join(FUZZ, "..", "..", "docs", "protocol.md")

def write(target, name, data):
    d = os.path.join(FUZZ, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

# Variant::ALL order: russian, brazilian, pool, czech, portuguese, italian,
# international, frisian, chess, chess960.
ALG = "W:Wa1,c1,e1,g1,b2,d2,f2,h2,a3,c3,e3,g3:Bb6,d6,f6,h6,a7,c7,e7,g7,b8,d8,f8,h8"
FENS = {
    0: [ALG, "W:Wa1,Kc3:Bb6,Kh8", "B:WKa1:Bd4,f6"],
    1: ["W:W31-50:B1-20", "W:WK45,31:B1,2", ALG],
    2: ["W:W21-32:B1-12", "B:WK32:B1,K5", ALG],
    3: [ALG, "W:Wa1,Kc3:Bb6,Kh8"],
    4: ["W:W21-32:B1-12", "W:WK1,K5:B15,K17"],
    5: ["W:W21-32:B1-12", "B:W21,K22:B1,K2,H3,F10"],
    6: ["W:W31-50:B1-20", "W:WK1,K5,K8,K36:B15,K17,K18,K22,27,30,40"],
    7: ["W:W31-50:B1-20", "W:W31,32,K45:B1,2:MW45/2", "B:WK30,46:B9,K27:MBK27/1"],
    8: ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1", "7k/P7/8/8/8/8/8/K7 w - - 0 1"],
    9: ["bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"],
}
for v, fens in FENS.items():
    for i, fen in enumerate(fens):
        write("fen", f"v{v}-{i}", bytes([v]) + fen.encode())
        write("play", f"fen-v{v}-{i}", bytes([v, 1]) + fen.encode() + b"\0" + bytes(range(7, 250, 3)))
for v in range(10):
    write("play", f"start-v{v}", bytes([v, 0]) + bytes(range(0, 256, 1)))
    write("play", f"start-v{v}-offers", bytes([v, 0x34]) + bytes(range(128, 256)))
write("play", "chess960-any", bytes([9, 2, 1, 200]) + bytes(range(0, 200)))

MOVES = {
    0: ["c3-d4", "c3d4", "a3:c5:e7", "c3xe5"], 1: ["32-28", "32x23"], 2: ["c3-d4", "9-14"],
    3: ["c3-d4"], 4: ["9-14", "9x18x27"], 5: ["22-18", "22x13"], 6: ["32-28", "32x21x12", "33-28"],
    7: ["32-28", "32x23"], 8: ["e4", "e2e4", "Nf3", "O-O", "e7e8q", "exd6"], 9: ["e4", "g1f3", "O-O"],
}
for v, texts in MOVES.items():
    for i, t in enumerate(texts):
        write("move_text", f"v{v}-{i}", bytes([v, 0]) + t.encode())
        write("move_text", f"v{v}-{i}-late", bytes([v, 12]) + bytes(range(3, 39, 3)) + t.encode())

for i, tc in enumerate(["5+3", "0.5+0", "90+30", ".25+1", "600+600",
        '{"periods":[{"time_ms":7200000,"moves":50},{"time_ms":3600000,"moves":25}]}',
        '{"periods":[{"time_ms":300000,"delay_ms":5000}]}',
        '{"periods":[{"time_ms":300000,"increment_ms":3000}],"match_clock":true}',
        '"5+3"', '{"periods":[{"time":60000}]}']):
    write("time_control", f"tc{i}", tc.encode())

with open(DOCS) as f:
    docs = f.read()
n = 0
for block in re.findall(r"```json client\n(.*?)```", docs, re.S):
    for line in block.splitlines():
        line = line.strip()
        if '"type"' in line and line.startswith("{"):
            try:
                json.loads(line)
            except ValueError:
                continue
            write("client_message", f"doc{n}", line.encode())
            n += 1
print("client_message seeds:", n)
