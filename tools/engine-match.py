#!/usr/bin/env python3
"""damka-engine against py-draughts' engines at equal time per move (a benchmark for
docs/engine.md, not a test; run it in a virtualenv with py-draughts installed):

    python3 -m venv /tmp/venv-pyd && /tmp/venv-pyd/bin/pip install py-draughts
    cargo build --release -p damka-engine
    /tmp/venv-pyd/bin/python tools/engine-match.py international 20 0.2

International is played against TurboEngine (py-draughts' strongest, 10x10 only) with
damka-engine driven through py-draughts' own HubEngine client; Frisian against
py-draughts' SimpleEngine (TurboEngine has no Frisian), damka-engine driven by the small
Hub client below (py-draughts' HubEngine never sends `set-param variant`). Each pair of
games starts from the same random two-move opening, colours swapped; py-draughts'
board rules the game (its draw rules included); 300 plies without a result is a draw.
"""

import random
import subprocess
import sys
import time
from pathlib import Path

from draughts.boards.frisian import Board as FrisianBoard
from draughts.boards.standard import Board as StandardBoard
from draughts.engines.hub import HubEngine, board_to_hub_position, parse_hub_move
from draughts.engines.simple import SimpleEngine
from draughts.engines.turbo import TurboEngine
from draughts.models import Color

ENGINE = Path(__file__).resolve().parent.parent / "target" / "release" / "damka-engine"


class Hub:
    """A minimal Hub client (protocol.txt) that can set the variant."""

    def __init__(self, variant, seconds):
        self.seconds = seconds
        self.p = subprocess.Popen([str(ENGINE), "hub"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("hub")
        self.until("wait")
        self.send(f"set-param name=variant value={variant}")
        self.send("init")
        self.until("ready")

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def until(self, word):
        while True:
            line = self.p.stdout.readline().strip()
            if line.split(" ")[0] == word:
                return line

    def get_best_move(self, board):
        self.send(f"pos pos={board_to_hub_position(board)}")
        self.send(f"level move-time={self.seconds}")
        self.send("go think")
        done = self.until("done")
        move = done.split("move=")[1].split(" ")[0]
        return parse_hub_move(move, board.legal_moves, board=board)

    def quit(self):
        self.send("quit")
        self.p.wait(timeout=5)


def play(board_class, white, black, seed):
    board = board_class()
    rng = random.Random(seed)
    for _ in range(2):
        board.push(rng.choice(list(board.legal_moves)))
    plies = 0
    while not board.game_over and plies < 300:
        engine = white if board.turn == Color.WHITE else black
        board.push(engine.get_best_move(board))
        plies += 1
    return board.result if board.game_over else "1/2-1/2"


def main():
    variant = sys.argv[1] if len(sys.argv) > 1 else "international"
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 0.2
    if variant == "international":
        board_class = StandardBoard
        ours = HubEngine(ENGINE, time_limit=seconds)
        ours.start()
        theirs = TurboEngine(depth_limit=None, time_limit=seconds)
        name = "TurboEngine"
    else:
        board_class = FrisianBoard
        ours = Hub("frisian", seconds)
        theirs = SimpleEngine(depth_limit=30, time_limit=seconds)
        name = "SimpleEngine"
    wins = draws = losses = 0
    started = time.time()
    for g in range(games):
        damka_white = g % 2 == 0
        white, black = (ours, theirs) if damka_white else (theirs, ours)
        result = play(board_class, white, black, seed=g // 2)
        ours_won = "1-0" if damka_white else "0-1"
        if result == "1/2-1/2":
            draws += 1
        elif result == ours_won:
            wins += 1
        else:
            losses += 1
        print(f"game {g + 1}: damka as {'white' if damka_white else 'black'}: {result}", flush=True)
    ours.quit()
    score = (wins + draws / 2) / games * 100
    print(f"{variant}: damka-engine vs {name}, {seconds} s a move: +{wins} ={draws} -{losses} "
          f"({score:.0f}%) in {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
