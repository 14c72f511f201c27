"""The hot paths over HTTP, against the real server process and a bare hello world on the same server.

    python bench/bench_hot_paths.py [--samples 300] [--server-cmd "python -m companion --port {port}"]

Starts `python -m companion` as a user would (loopback, SQLite in a temp folder) and
bench/hello_wsgi.py (a bare hello-world WSGI app on the same server software), then times, one
request at a time over a kept-alive connection: the unchanged change check (poll), an entry's round
trip through the phone page (HTML) and through the API, /history with 10 and 10,000 finished
tables, and the Dice and Slice table view and board fragment at the start, middle and end of a
6-player random game; and the change check and the API entry each in turn with
the hello world answering as they do and its plain GET (the ratios within each round). `floor`: the
API entry in turn with both hello worlds and the least an entry written to SQLite can be on the same
server (bench/floor_wsgi.py: in memory, on a file, with DiceZ's rules), which splits what an entry
costs over the hello world into SQLite's share, the rules' and the platform's, and shows how far the
least an entry can be already stands from the GET hello. `rules_floor` (also run with `floor`): that last
floor in the API entry's own round, with the POST and the GET hello. `same_process`: the API entry and
both hello worlds served by one process (bench/one_process.py), timed in blocks (medians) and in turn.
Prints medians and each one's ratio to the hello world. Asserts nothing
about time.
"""
from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import re
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.games.dice_and_slice import GAME as DICE_AND_SLICE  # noqa: E402
from tests.contract.playout import playout  # noqa: E402

# The real server, as a user starts it; {port} is filled in. Change this (or pass --server-cmd)
# when `python -m companion` runs something else.
SERVER_CMD = f"{shlex.quote(sys.executable)} -m companion --host 127.0.0.1 --port {{port}}"
HELLO_CMD = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'bench' / 'hello_wsgi.py'))} --port {{port}} --server {{server}}"
ONE_PROCESS_CMD = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'bench' / 'one_process.py'))} --port {{port}}"
FLOOR_CMD = f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'bench' / 'floor_wsgi.py'))} --port {{port}}"
# the floors of an entry (bench/floor_wsgi.py), each timed in turn with the real entry and the POST hello
FLOORS = {"a row written to SQLite in memory": "--database memory",
          "a row written to the SQLite file (WAL, as the app)": "--database file",
          "the same and DiceZ's apply before it": "--database file --rules"}
PLAYERS = 5  # phones at a DiceZ table
BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes", "three_of_a_kind", "four_of_a_kind",
         "full_house", "small_straight", "large_straight", "dicez", "chance"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(cmd: str, port: int, env: dict, log: Path, cwd: Path = ROOT) -> subprocess.Popen:
    """`cmd` started in `cwd` (`python -m companion` serves the tree it starts in), once it listens."""
    proc = subprocess.Popen(shlex.split(cmd.format(port=port, server="{server}")), cwd=cwd, env=env,
                            stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.time() + 30
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"{cmd} exited; see {log}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"{cmd} did not listen on port {port}; see {log}")


@contextmanager
def serving(cmd: str, port: int, env: dict, log: Path):
    """`start(cmd, ...)` for the length of a `with` block, then stopped."""
    proc = start(cmd, port, env, log)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(10)


class Client:
    """One browser: a kept-alive connection and its cookies."""

    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body=None, headers=None) -> tuple[int, str, float]:
        headers = dict(headers or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if isinstance(body, dict):
            body, headers["Content-Type"] = json.dumps(body), "application/json"
        elif isinstance(body, str):
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        t0 = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=headers)
            resp = self.conn.getresponse()
        except (http.client.HTTPException, ConnectionError):  # the server closed a kept connection
            self.conn.close()
            self.conn.request(method, path, body=body, headers=headers)
            resp = self.conn.getresponse()
        data = resp.read()
        elapsed = time.perf_counter() - t0
        for name, value in resp.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key] = rest.split(";", 1)[0]
        return resp.status, data.decode("utf-8", "replace"), elapsed


def form(fields: dict) -> str:
    from urllib.parse import urlencode
    return urlencode(fields)


def times(fn, samples: int) -> list[float]:
    out = []
    for _ in range(samples):
        out.append(fn())
    return out


def median_ms(samples) -> float:
    return statistics.median(samples) * 1000


# ---- what is measured ------------------------------------------------------------------------------
def hello_one(port: int, path: str = "/"):
    """One timed GET of the hello world (a 200, or a 204 for /204) per call."""
    c = Client(port)
    c.request("GET", path)

    def one():
        status, _, t = c.request("GET", path)
        assert status in (200, 204)
        return t
    return one


def hello_times(port: int, samples: int, path: str = "/") -> list[float]:
    return times(hello_one(port, path), samples)


# what the POST hello and the floors take: an entry's body and a seat token's length
HELLO_ENTRY = {"kind": "score", "dice": [2, 3, 4, 5, 6], "category": "full_house"}
HELLO_TOKEN = "x" * 43


def hello_post_one(port: int):
    """One timed request of the hello world taking an entry's request (the same JSON body and token
    header), answered with a 201. The floors (bench/floor_wsgi.py) take the same request."""
    c = Client(port)
    headers = {"Authorization": "Bearer " + HELLO_TOKEN}

    def one():
        status, _, t = c.request("POST", "/entries", HELLO_ENTRY, headers)
        assert status == 201, status
        return t
    one()
    return one


def hello_post_times(port: int, samples: int) -> list[float]:
    return times(hello_post_one(port), samples)


def dicez_table(c: Client, players: int, pass_and_play: bool) -> dict:
    status, body, _ = c.request("POST", "/api/tables", {"game": "dicez", "players": [f"P{i}" for i in range(players)],
                                                      "pass_and_play": pass_and_play})
    assert status == 201, body
    return json.loads(body)


def poll_one(port: int):
    """One timed unchanged change check per call (a 204)."""
    c = Client(port)
    table = dicez_table(c, 4, False)
    status, body, _ = c.request("GET", f"/t/{table['code']}/poll?v=0.0.0")  # the answer names the marker
    assert status == 200, (status, body)
    url = f"/t/{table['code']}/poll?v={body.strip()}"

    def one():
        status, _, t = c.request("GET", url)
        assert status == 204, status
        return t
    c.request("GET", url)
    return one


def poll_times(port: int, samples: int) -> list[float]:
    return times(poll_one(port), samples)


def html_entry_times(port: int, samples: int) -> list[float]:
    """A pass-and-play host device scoring boxes through the phone page, as htmx posts them."""
    out: list[float] = []
    while len(out) < samples:
        c = Client(port)
        table = dicez_table(c, PLAYERS, True)
        code = table["code"]
        c.cookies[f"host_{code}"] = table["host_token"]
        _, page, _ = c.request("GET", f"/t/{code}/s/0")
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
        for box in BOXES:
            for seat in range(PLAYERS):
                fields = {"d0": 2, "d1": 3, "d2": 4, "d3": 5, "d4": 6, "category": box, "csrf_token": csrf}
                status, body, t = c.request("POST", f"/t/{code}/s/{seat}/entries", form(fields),
                                            {"HX-Request": "true"})
                assert status == 200 and 'id="sheet"' in body, (status, body[:300])
                out.append(t)
    return out[:samples]


def dicez_turns(port: int):
    """DiceZ entries in an order the rules take, without end: (client, table code, seat token, entry),
    each seat scoring each box in turn on a new table (and a new connection) after every 65."""
    while True:
        c = Client(port)
        table = dicez_table(c, PLAYERS, False)
        for box in BOXES:
            for seat in table["seats"]:
                yield c, table["code"], seat["token"], {"kind": "score", "dice": [2, 3, 4, 5, 6], "category": box}


def api_entries(port: int):
    """Each seat's own client scoring boxes through the JSON API: one timed entry per next() (a new
    table, untimed, after every 65)."""
    for c, code, token, entry in dicez_turns(port):
        status, body, t = c.request("POST", f"/api/tables/{code}/entries", entry, {"Authorization": f"Bearer {token}"})
        assert status == 201, (status, body)
        yield t


def api_entry_times(port: int, samples: int) -> list[float]:
    return list(itertools.islice(api_entries(port), samples))


def floor_times(samples: int, hello_port: int, app_port: int, env: dict, tmp: Path) -> list[tuple[str, list[float]]]:
    """The POST hello, each floor, the API entry and the GET hello, one request of each per round (see FLOORS)."""
    ports = {name: free_port() for name in FLOORS}
    with ExitStack() as floors:
        for i, (name, port) in enumerate(ports.items()):
            floors.enter_context(serving(f"{FLOOR_CMD} {FLOORS[name]}", port, env, tmp / f"floor-{i}.log"))
        entries = api_entries(app_port)
        series = {"the bare hello world taking an entry (POST)": hello_post_one(hello_port),
                  **{f"floor: {name}": hello_post_one(port) for name, port in ports.items()},
                  "the API entry": lambda: next(entries),
                  "the bare hello world (GET)": hello_one(hello_port)}
        return list(zip(series, in_turn(samples, *series.values())))


def rules_floor_in_turn(samples: int, hello_port: int, env: dict, tmp: Path) -> list[list[float]]:
    """The floor with DiceZ's rules in the API entry's own round: it, the POST hello and the GET hello."""
    port = free_port()
    with serving(f"{FLOOR_CMD} --database file --rules", port, env, tmp / "floor-rules.log"):
        return in_turn(samples, hello_post_one(port), hello_post_one(hello_port), hello_one(hello_port))


def same_process_times(samples: int, env: dict, tmp: Path) -> tuple[dict[str, list[float]], list[list[float]]]:
    """The API entry, the POST hello and the GET hello all answered by one process (bench/one_process.py):
    each timed in blocks of `samples` (GET, POST, entry, then again in reverse, for the drift), and
    the three in turn. Returns ({what: block samples}, in-turn columns: entry, POST hello, GET hello)."""
    port, hello_port = free_port(), free_port()
    with serving(f"{ONE_PROCESS_CMD} --hello-port {hello_port}", port, env, tmp / "one-process.log"):
        entries = api_entries(port)
        series = {"GET hello": hello_one(hello_port), "POST hello": hello_post_one(hello_port),
                  "API entry": lambda: next(entries)}
        in_turn(min(samples, 300), *series.values())  # a first pass: both apps' code loaded and run
        blocks: dict[str, list[float]] = {name: [] for name in series}
        for name in [*series, *reversed(series)]:
            blocks[name] += times(series[name], samples)
        return blocks, in_turn(samples, series["API entry"], series["POST hello"], series["GET hello"])


def in_turn(samples: int, *series) -> list[list[float]]:
    """Each of `series` (one timed request per call) once per round, for `samples` rounds: all of them
    meet the machine's drifting load alike (series timed one after the other moved by a third between
    runs a minute apart). But each request then meets a server process that sat idle while the others
    answered, which costs a bigger request more: the ratios come out higher than those of the medians
    (docs/benchmarks.md, 2026-12-02, morning)."""
    rounds = [[one() for one in series] for _ in range(samples)]
    return [list(column) for column in zip(*rounds)]


def round_ratios(measured: list[float], baseline: list[float]) -> float:
    """The median of measured / baseline, round by round."""
    return statistics.median(a / b for a, b in zip(measured, baseline))


def add_finished_tables(db: Path, count: int) -> None:
    """`count` finished one-game tables written straight into the database (as years of game nights)."""
    from sqlalchemy import create_engine, insert

    from companion.platform.schema import games_t, new_pin, new_token, tables_t
    engine = create_engine(f"sqlite:///{db}")
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    rng = random.Random(count * 7919 + len(str(db)))
    tables, games = [], []
    for i in range(count):
        code = "".join(rng.choice("34679ACDEFGHJKMNPQRTUVWXY") for _ in range(6))
        stamp = start + timedelta(minutes=rng.randrange(10 ** 6))
        tables.append(dict(code=code, game="dicez", options={}, host_token=new_token(), pass_and_play=False,
                           current_game=1, created_at=stamp, join_secret=new_token(), pin=new_pin()))
        games.append(dict(table_code=code, game_no=1, game="dicez", options={}, started_at=stamp,
                          finished_at=stamp + timedelta(minutes=30),
                          result={"totals": [100, 120], "winners": [1], "names": ["Ann", "Ben"]}))
    with engine.begin() as conn:
        conn.execute(insert(tables_t).prefix_with("OR IGNORE"), tables)
        conn.execute(insert(games_t).prefix_with("OR IGNORE"), games)
    engine.dispose()


def history_times(port: int, samples: int) -> list[float]:
    c = Client(port)

    def one():
        status, body, t = c.request("GET", "/history")
        assert status == 200 and "Finished games" in body
        return t
    c.request("GET", "/history")
    return times(one, samples)


def dice_and_slice_view_times(port: int, samples: int) -> dict[str, list[float]]:
    """The table view and board fragment of a 6-player Dice and Slice table, at its start, middle
    and end (a random legal playout, as the contract tests play it)."""
    c = Client(port)
    status, body, _ = c.request("POST", "/api/tables", {"game": "dice_and_slice",
                                                      "players": [f"P{i}" for i in range(6)]})
    table = json.loads(body)
    code, tokens = table["code"], [s["token"] for s in table["seats"]]
    _, steps = playout(DICE_AND_SLICE, 6, random.Random(7))
    marks = {"start": 16, "middle": len(steps) // 2, "end (its last turn)": len(steps) - 1,
             "end (finished: the final score shows too)": len(steps)}
    out: dict[str, list[float]] = {}
    done = 0

    def write(step):
        status, body, _ = c.request("POST", f"/api/tables/{code}/entries", step.entry,
                                    {"Authorization": f"Bearer {tokens[step.seat]}"})
        assert status == 201, (status, body)

    for label, upto in marks.items():
        for step in steps[done:upto - 10]:
            write(step)
        after_change = []
        for step in steps[max(done, upto - 10):upto]:  # the board as a table view fetches it after an entry
            write(step)
            after_change.append(c.request("GET", f"/t/{code}/board")[2])
        out[f"board at {label}, first draw after an entry"] = after_change
        done = upto
        for page in ("view", "board"):
            c.request("GET", f"/t/{code}/{page}")

            def one(page=page):
                status, _, t = c.request("GET", f"/t/{code}/{page}")
                assert status == 200
                return t
            out[f"{page} at {label} (entry {upto} of {len(steps)}), again"] = times(one, samples)
    return out


def store_times(db: Path, samples: int) -> list[tuple[str, list[float]]]:
    """In this process, no HTTP: the change check's query and the history query with and without
    its index (dropped and made again here), on the database the server used."""
    from sqlalchemy import text

    from companion.platform.storage import Store
    store = Store(f"sqlite:///{db}")
    code = store.finished_games(limit=1)[0].table_code

    def timed(fn):
        fn()
        out = []
        for _ in range(samples):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
        return out
    rows = [("Store.poll_marker(code), in process", timed(lambda: store.poll_marker(code))),
            ("Store.finished_games() at 10,000 finished tables, in process", timed(store.finished_games))]
    with store.engine.begin() as conn:
        conn.execute(text("DROP INDEX IF EXISTS ix_games_finished_at"))
    rows.append(("the same without the games.finished_at index", timed(store.finished_games)))
    store.dispose()
    Store(f"sqlite:///{db}").dispose()  # and the app start puts it back
    return rows


MODES = ("poll", "entry", "floor", "rules_floor", "same_process", "history", "dice_and_slice")


def hello_baselines(port: int, samples: int) -> dict[str, list[float]]:
    """The hello world's three answers, by what the app's own are compared with: GET, 204 and POST."""
    return {"GET": hello_times(port, samples), "204": hello_times(port, samples, "/204"),
            "POST": hello_post_times(port, samples)}


@dataclass
class Results:
    """What one run measured: the hello world's baselines (hello_baselines), then the app's."""
    hellos: dict[str, list[float]]
    rows: list[tuple[str, list[float]]] = field(default_factory=list)
    # what: (its twin hello, timed in turn with it and the GET hello)
    paired: dict[str, tuple[str, list[list[float]]]] = field(default_factory=dict)
    one_process: tuple[dict[str, list[float]], list[list[float]]] | None = None
    floors: list[tuple[str, list[float]]] = field(default_factory=list)


def history_rows(db: Path, port: int, samples: int) -> list[tuple[str, list[float]]]:
    """/history as finished tables pile up, then the store's own reads behind it."""
    rows = []
    for added, what in ((10, "10 finished tables"), (40, "50 finished tables (a full page: it lists the latest 50)"),
                        (9950, "10,000 finished tables")):
        add_finished_tables(db, added)
        rows.append((f"/history, {what}", history_times(port, samples)))
    return rows + store_times(db, samples)


def measure(only: set[str], samples: int, app_port: int, hello_port: int, env: dict, tmp: Path,
            db: Path) -> Results:
    """Each mode in `only` (all when empty), between two rounds of the hello worlds (the machine's load drifts)."""
    def wanted(*modes: str) -> bool:
        return not only or bool(only.intersection(modes))

    got = Results(hello_baselines(hello_port, samples))
    if wanted("poll"):
        got.rows.append(("unchanged change check (poll, 204)", poll_times(app_port, samples)))
        got.paired["change check"] = ("204", in_turn(samples, poll_one(app_port), hello_one(hello_port, "/204"),
                                                     hello_one(hello_port)))
    if wanted("entry"):
        got.rows.append(("entry round trip, phone page (htmx POST -> sheet)", html_entry_times(app_port, samples)))
        got.rows.append(("entry round trip, API (POST /api/tables/<code>/entries)", api_entry_times(app_port, samples)))
        entries = api_entries(app_port)
        got.paired["API entry"] = ("POST", in_turn(samples, lambda: next(entries), hello_post_one(hello_port),
                                                   hello_one(hello_port)))
    if wanted("floor", "rules_floor"):
        got.paired["the floor with DiceZ's rules (no platform)"] = (
            "POST", rules_floor_in_turn(samples, hello_port, env, tmp))
    if wanted("same_process"):
        got.one_process = same_process_times(samples, env, tmp)
    if wanted("floor"):
        got.floors = floor_times(samples, hello_port, app_port, env, tmp)
    if wanted("history"):
        got.rows += history_rows(db, app_port, samples)
    if wanted("dice_and_slice"):
        got.rows += [(f"Dice and Slice {k}", v)
                     for k, v in dice_and_slice_view_times(app_port, max(20, samples // 10)).items()]
    for what, samples_after in hello_baselines(hello_port, samples).items():
        got.hellos[what] += samples_after
    return got


# how each hello baseline is named in the report; a row whose name holds one of the last two keys is
# also set against that hello
HELLO_NAMES = {"GET": "bare hello world (same server)",
               "204": "bare hello world answering 204 (as an unchanged poll does)",
               "POST": "bare hello world taking an entry (POST a JSON body, 201)"}


def report_rows(got: Results) -> None:
    medians = {what: median_ms(got.hellos[what]) for what in HELLO_NAMES}
    print(f"{'measurement':<72} {'median':>9} {'x hello':>8}")
    for what, name in HELLO_NAMES.items():
        print(f"{name:<72} {medians[what]:7.2f}ms {medians[what] / medians['GET']:8.2f}")
    for name, samples in got.rows:
        median = median_ms(samples)
        twins = "".join(f"   {median / medians[twin]:.2f} x the {twin} hello"
                        for twin in ("204", "POST") if twin in name)
        print(f"{name:<72} {median:7.2f}ms {median / medians['GET']:8.2f}{twins}")


def report_floors(floors: list[tuple[str, list[float]]]) -> None:
    post, get = floors[0][1], floors[-1][1]
    print("the API entry and its floors, each in turn with both hello worlds: median; of each round, "
          "x the POST hello, x the GET hello")
    for name, samples in floors:
        print(f"  {name:<70} {median_ms(samples):7.2f}ms {round_ratios(samples, post):8.2f} "
              f"{round_ratios(samples, get):8.2f}")


def report_one_process(one_process: tuple[dict[str, list[float]], list[list[float]]]) -> None:
    blocks, (measured, like, get) = one_process
    get_ms, post_ms = median_ms(blocks["GET hello"]), median_ms(blocks["POST hello"])
    print("one process answering the API entry and both hello worlds (bench/one_process.py):")
    for name, samples in blocks.items():
        print(f"  {name + ', in blocks':<70} {median_ms(samples):7.2f}ms {median_ms(samples) / get_ms:8.2f} "
              f"x the GET hello, {median_ms(samples) / post_ms:.2f} x the POST hello")
    print(f"  in turn: {in_turn_summary('POST', measured, like, get)}")


def in_turn_summary(twin: str, measured: list[float], like: list[float], get: list[float]) -> str:
    """Three series timed in turn: their medians, and the measured one against its twin hello and the GET hello."""
    return (f"medians {median_ms(measured):.2f} / {median_ms(like):.2f} / {median_ms(get):.2f} ms; of each round: "
            f"{round_ratios(measured, like):.2f} x the {twin} hello, {round_ratios(measured, get):.2f} x the GET hello")


def report_paired(paired: dict[str, tuple[str, list[list[float]]]]) -> None:
    for what, (twin, (measured, like, get)) in paired.items():
        print(f"{what}, the {twin} hello and the GET hello in turn: {in_turn_summary(twin, measured, like, get)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--server-cmd", default=SERVER_CMD, help="the app server; {port} is filled in")
    parser.add_argument("--hello-server", default="auto", help="waitress, gevent or auto (what companion runs)")
    parser.add_argument("--only", default="", help=f"comma-separated: {','.join(MODES)}")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    if only - set(MODES):
        parser.error(f"--only takes {', '.join(MODES)}; not {', '.join(sorted(only - set(MODES)))}")
    tmp = Path(tempfile.mkdtemp(prefix="bench-hot-"))
    db = tmp / "bench.sqlite"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "SECRET_KEY": "bench", "PYTHONPATH": str(ROOT)}
    app_port, hello_port = free_port(), free_port()
    with serving(args.server_cmd, app_port, env, tmp / "server.log"), \
            serving(HELLO_CMD.replace("{server}", args.hello_server), hello_port, env, tmp / "hello.log"):
        time.sleep(0.5)
        got = measure(only, args.samples, app_port, hello_port, env, tmp, db)
    server = (tmp / "hello.log").read_text().split(" on ", 1)[-1].split(" at ")[0]
    print(f"server: {args.server_cmd}\nhello world: bench/hello_wsgi.py on {server}; SQLite at {db}")
    report_rows(got)
    if got.floors:
        report_floors(got.floors)
    if got.one_process:
        report_one_process(got.one_process)
    report_paired(got.paired)


if __name__ == "__main__":
    main()
