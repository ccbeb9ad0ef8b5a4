"""Two bots and a board player drive damka through berserk, lichess's own API client,
pointed at damka by its URL only (server/tests/bots.rs runs this against a live node).

Usage: berserk_match.py URL BOT_A_TOKEN BOT_B_TOKEN BOARD_TOKEN WS_USER

- Both bot accounts upgrade, open their event streams, and play through the Bot API:
  chess (fool's mate: A challenges, B accepts from its event stream; A greets first in
  the players' and spectators' rooms as lichess-bot does, read back as `chatLine` on B's
  stream), Russian draughts
  (random legal moves chosen with pydraughts, captures sent hop by hop as lidraughts-bot
  sends them; A resigns), chess again (a draw offered with a move, accepted), International draughts
  (B resigns).
- The board player (not a bot) challenges WS_USER, a WebSocket player the test drives,
  and mates them through the Board API.
Every game state read from the streams is checked against the moves sent. Prints one
JSON line per game ({"game": id, "plies": n, "status": ...}); exits 1 on any mismatch.
"""

import json
import queue
import random
import sys
import threading

import berserk
import draughts

URL, TA, TB, TBOARD, WS_USER = sys.argv[1:6]


def lidraughts_8x8(part):
    """A hop of pydraughts 0.6 on an 8x8 board (squares numbered from a1 = 1) in
    lidraughts's field numbers (b8 = 1 ... g1 = 32, White starting on 21-32), which
    lidraughts-bot (pydraughts 0.5.7) sends and the server speaks."""
    def field(n):
        return 4 * (7 - (n - 1) // 4) + (n - 1) % 4 + 1
    return f"{field(int(part[:2])):02d}{field(int(part[2:])):02d}"


def client(token):
    return berserk.Client(session=berserk.TokenSession(token), base_url=URL)


A, B, BOARD = client(TA), client(TB), client(TBOARD)


def fail(message):
    print(json.dumps({"error": message}), flush=True)
    sys.exit(1)


def events(c, q, board=False):
    api = c.board if board else c.bots
    for e in api.stream_incoming_events():
        q.put(e)


def wait(q, kind):
    while True:
        try:
            e = q.get(timeout=30)
        except queue.Empty:
            fail(f"no {kind} event")
        if e.get("type") == kind:
            return e


class Stream:
    """A game stream read on a thread of its own."""

    def __init__(self, c, game_id, board=False):
        self.q = queue.Queue()
        api = c.board if board else c.bots
        it = api.stream_game_state(game_id)

        def run():
            for line in it:
                self.q.put(line)
            self.q.put(None)

        threading.Thread(target=run, daemon=True).start()
        first = self.q.get(timeout=30)
        if not first or first.get("type") != "gameFull":
            fail(f"the stream opens with {first}")
        self.full = first

    def chat(self, room, text):
        """Waits for the chatLine of `text` in `room` (nothing else may come first)."""
        line = self.q.get(timeout=30)
        if not line or line.get("type") != "chatLine":
            fail(f"expected the chat line {text!r}, the stream says {line}")
        if line.get("room") != room or line.get("text") != text or not line.get("username"):
            fail(f"expected {text!r} in the {room} room, got {line}")
        return line

    def state(self, moves):
        """The next gameState, which must show exactly `moves`."""
        while True:
            s = self.q.get(timeout=30)
            if s is None:
                fail(f"stream ended before {moves}")
            if s.get("type") != "gameState":
                continue
            got = s["moves"].split()
            if got == moves:
                return s
            if len(got) >= len(moves):
                fail(f"expected moves {moves}, the stream says {got}")

    def end(self, moves):
        """The gameState that ends the game, with exactly `moves`."""
        while True:
            s = self.state(moves)
            if s["status"] != "started":
                return s
            # The same moves again, now with the result.
            while True:
                s = self.q.get(timeout=30)
                if s is None:
                    fail("stream ended without a result")
                if s.get("type") == "gameState":
                    if s["moves"].split() != moves:
                        fail(f"moves changed after {moves}: {s}")
                    if s["status"] != "started":
                        return s


def start_game(challenger, cq, accepter, aq, name, variant, color):
    ch = challenger.challenges.create(
        name, rated=False, clock_limit=300, clock_increment=2, color=color, variant=variant
    )
    got = wait(aq, "challenge")["challenge"]
    if got["id"] != ch["id"] or got["variant"]["key"] != variant:
        fail(f"challenge {ch} arrived as {got}")
    accepter.bots.accept_challenge(got["id"])
    game = wait(cq, "gameStart")["game"]
    if wait(aq, "gameStart")["game"]["id"] != game["id"]:
        fail("the two bots start different games")
    return game["id"]


def main():
    for c in (A, B):
        c.account.upgrade_to_bot()
    a, b = A.account.get(), B.account.get()
    if a.get("title") != "BOT" or b.get("title") != "BOT":
        fail(f"upgraded accounts are bots: {a} {b}")
    qa, qb, qboard = queue.Queue(), queue.Queue(), queue.Queue()
    for c, q in ((A, qa), (B, qb)):
        threading.Thread(target=events, args=(c, q), daemon=True).start()
    threading.Thread(target=events, args=(BOARD, qboard, True), daemon=True).start()
    # The streams make the bots online; challenges need the opponent online.
    for _ in range(50):
        status = A.users.get_realtime_statuses(b["id"])
        if status and status[0].get("online"):
            break
        threading.Event().wait(0.1)
    else:
        fail("bot B never shows online")

    # Chess: fool's mate, A white.
    gid = start_game(A, qa, B, qb, b["username"], "standard", "white")
    sa, sb = Stream(A, gid), Stream(B, gid)
    if sa.full["variant"]["key"] != "standard" or sa.full["white"].get("title") != "BOT":
        fail(f"gameFull: {sa.full}")
    # lichess-bot's greetings before its first move: said through the chat endpoint,
    # read back as chatLine on the other bot's stream.
    hello = f"Hi! I'm {a['username']}. Good luck! Type !help for a list of commands I can respond to."
    hello_spectators = f"Hi! I'm {a['username']}. Type !help for a list of commands I can respond to."
    A.bots.post_message(gid, hello)
    A.bots.post_message(gid, hello_spectators, spectator=True)
    said = sb.chat("player", hello)
    if said["username"] != a["username"]:
        fail(f"the line names its sayer: {said}")
    sb.chat("spectator", hello_spectators)
    moves = []
    for i, mv in enumerate(["f2f3", "e7e5", "g2g4", "d8h4"]):
        (A if i % 2 == 0 else B).bots.make_move(gid, mv)
        moves.append(mv)
        if i < 3:
            sa.state(moves)
            sb.state(moves)
    last = sa.end(moves)
    sb.end(moves)
    if last["status"] != "mate" or last.get("winner") != "black":
        fail(f"fool's mate ends {last}")
    wait(qa, "gameFinish")
    print(json.dumps({"game": gid, "plies": 4, "status": last["status"]}), flush=True)

    # Russian draughts: random moves, captures hop by hop; a draw offered and accepted.
    gid = start_game(A, qa, B, qb, b["username"], "russian", "white")
    sa, sb = Stream(A, gid), Stream(B, gid)
    board = draughts.Board("russian", "startpos")
    rng = random.Random(7)
    hops, plies = [], 0
    while plies < 24 and not board.is_over():
        mv = rng.choice(board.legal_moves())
        parts = [lidraughts_8x8(p) for p in mv.li_api_move]
        mover = A if plies % 2 == 0 else B
        for part in parts:
            mover.bots.make_move(gid, part)
        board.push(mv)
        hops += parts
        plies += 1
        sa.state(hops)
        sb.state(hops)
    # IDF s.2 22.5: no draw by agreement here with so many pieces; A resigns instead.
    A.bots.resign_game(gid)
    end = sb.end(hops)
    if end["status"] != "resign" or end.get("winner") != "black":
        fail(f"the resignation ends {end}")
    print(json.dumps({"game": gid, "plies": plies, "status": "resign"}), flush=True)

    # Chess: a draw offered with a move, and accepted.
    gid = start_game(A, qa, B, qb, b["username"], "standard", "white")
    sa, sb = Stream(A, gid), Stream(B, gid)
    A._r.post(f"/api/bot/game/{gid}/move/e2e4", params={"offeringDraw": "true"})
    last = sb.state(["e2e4"])
    if not last.get("wdraw"):
        # The offer may come as its own state right after the move's.
        last = sb.state(["e2e4"])
    if not last.get("wdraw"):
        fail(f"white's draw offer is not shown: {last}")
    B._r.post(f"/api/bot/game/{gid}/draw/yes")
    end = sb.end(["e2e4"])
    if end["status"] != "draw":
        fail(f"the accepted draw ends {end}")
    print(json.dumps({"game": gid, "plies": 1, "status": "draw"}), flush=True)


    # International draughts: B resigns after a few moves.
    gid = start_game(A, qa, B, qb, b["username"], "international", "white")
    sa = Stream(A, gid)
    board = draughts.Board("standard", "startpos")
    hops = []
    for plies in range(6):
        mv = rng.choice(board.legal_moves())
        parts = list(mv.li_api_move)
        for part in parts:
            (A if plies % 2 == 0 else B).bots.make_move(gid, part)
        board.push(mv)
        hops += parts
        sa.state(hops)
    B.bots.resign_game(gid)
    end = sa.end(hops)
    if end["status"] != "resign" or end.get("winner") != "white":
        fail(f"resignation ends {end}")
    print(json.dumps({"game": gid, "plies": 6, "status": "resign"}), flush=True)

    # Board API: a person's program mates a WebSocket player (scholar's mate, white).
    # The test connects that player when told, and says when it has.
    print(json.dumps({"ready": "board"}), flush=True)
    if sys.stdin.readline().strip() != "go":
        fail("the WebSocket player never came")
    ch = BOARD.challenges.create(WS_USER, rated=False, clock_limit=300, clock_increment=2,
                                 color="white", variant="standard")
    print(json.dumps({"challenge": ch["id"]}), flush=True)
    gid = wait(qboard, "gameStart")["game"]["id"]
    s = Stream(BOARD, gid, board=True)
    moves = []
    for mine, theirs in [("e2e4", "e7e5"), ("f1c4", "b8c6"), ("d1h5", "g8f6"), ("h5f7", None)]:
        BOARD.board.make_move(gid, mine)
        moves.append(mine)
        if not theirs:
            last = s.end(moves)
            break
        s.state(moves)
        moves.append(theirs)
        s.state(moves)
    if last["status"] != "mate" or last.get("winner") != "white":
        fail(f"scholar's mate ends {last}")
    print(json.dumps({"game": gid, "plies": 7, "status": "mate"}), flush=True)


main()
