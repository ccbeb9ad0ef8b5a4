#!/usr/bin/env python3
"""py-draughts' own Hub client (HubEngine) drives `damka-engine hub` through a whole
International game against itself: every move it receives must be legal on
py-draughts' board. Run by engine/tests/engine.rs when HUB_CLIENT_PYTHON names an
interpreter with py-draughts (tools/test-all.sh sets one up).

usage: py_draughts_client.py <path to damka-engine>
"""

import sys

from draughts.boards.standard import Board
from draughts.engines.hub import HubEngine


def main():
    engine = HubEngine(sys.argv[1], time_limit=0.02, init_timeout=10)
    engine.start()
    try:
        assert engine.info.name == "damka-engine", engine.info
        assert "variant" in engine.params and "normal" in engine.params["variant"].values
        board = Board()
        plies = 0
        while not board.game_over and plies < 200:
            move = engine.get_best_move(board)
            board.push(move)
            plies += 1
        assert engine.ping()
        print(f"ok: {plies} plies, result {board.result}")
    finally:
        engine.quit()


if __name__ == "__main__":
    main()
