#!/usr/bin/env python3
"""python-chess perft: start d1-4, Kiwipete d1-3, two Chess960 start positions d1-4 -> results/perft_chess.json"""
import json, os, sys, time
import chess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle import chess_perft

jobs = [("chess", "start", chess.STARTING_FEN, False, 5),
        ("chess", "kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", False, 4)]
for n in (0, 314):
    b = chess.Board.from_chess960_pos(n)
    jobs.append(("chess960", f"chess960 SP#{n}", b.fen(shredder=True), True, 5))
out = []
for v, name, fen, c960, depth in jobs:
    r = {"variant": v, "name": name, "fen": fen, "library": "python-chess " + chess.__version__, "perft": {}}
    for d in range(1, depth + 1):
        t = time.time()
        r["perft"][str(d)] = chess_perft(chess.Board(fen, chess960=c960), d)
        print(name, d, r["perft"][str(d)], round(time.time() - t, 1), flush=True)
    out.append(r)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "perft_chess.json"), "w") as f:
    json.dump(out, f, indent=1)
