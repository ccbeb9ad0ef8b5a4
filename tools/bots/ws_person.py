"""A person at damka's WebSocket, speaking the protocol as the browser client does
(docs/protocol.md): says hello, challenges a player, then plays a legal move picked at
random from the server's `legal_moves` after a short think, until the game ends. Used to
play a person's side against lichess-bot by hand (docs/bots.md); needs `websockets`.

Usage: ws_person.py WS_URL TOKEN OPPONENT_ID VARIANT CLOCK
       e.g. ws_person.py ws://127.0.0.1:8080 "$JWT" sfalpha chess 3+2
Prints one JSON line per step: the challenge sent, the game started, the end.
"""

import asyncio
import json
import random
import sys

import websockets

URL, TOKEN, OPPONENT, VARIANT, CLOCK = sys.argv[1:6]


def report(value):
    print(json.dumps(value), flush=True)


async def main():
    async with websockets.connect(f"{URL}/ws?token={TOKEN}") as ws:
        async def send(message):
            await ws.send(json.dumps(message))

        async def recv():
            return json.loads(await ws.recv())

        await send({"type": "hello", "protocol": 1, "client": "ws_person.py"})
        me = None
        while me is None:
            m = await recv()
            if m["type"] == "welcome":
                me = m["user"]["id"]
        await send({"type": "challenge", "user": OPPONENT, "variant": VARIANT,
                    "time_control": CLOCK, "rated": False, "color": "random"})
        game, color, legal, turn, move_id, plies = None, None, [], None, 0, 0
        while True:
            m = await recv()
            kind = m["type"]
            if kind in ("challenge_sent", "challenge_removed", "error"):
                report(m)
                if kind != "challenge_sent":
                    sys.exit(1)
                continue
            if kind in ("game_start", "game_state"):
                g = m["game"]
                game = g["game_id"]
                color = "white" if g["white"]["id"] == me else "black"
                legal, turn, plies = g.get("legal_moves", []), g["turn"], len(g["moves"])
                report({"game": game, "me": color, "white": g["white"]["name"],
                        "black": g["black"]["name"]})
            elif kind == "game_event":
                e = m["event"]
                if e["kind"] == "move":
                    plies += 1
                    legal = e.get("legal_moves", [])
                    turn = "black" if e["by"] == "white" else "white"
                elif e["kind"] == "game_over":
                    report({"game": game, "plies": plies, "outcome": e["outcome"]})
                    return
            else:
                continue
            if game and turn == color and legal:
                await asyncio.sleep(random.uniform(0.3, 1.5))
                move_id += 1
                await send({"type": "move", "game_id": game, "move": random.choice(legal),
                            "move_id": move_id})


asyncio.run(main())
