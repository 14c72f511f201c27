"""Load at venue scale: T tables x up to 5 phones, each phone doing what static/app.js and htmx do.

    python bench/load.py [--tables 200] [--duration 45] [--fast] [--games dicez,score_pad,pizza_theory]
                         [--before DIR --rounds 2]

Bounded (it stops after --duration seconds of load) and loopback only (127.0.0.1). It starts
`python -m companion --host 127.0.0.1 --port N` (gevent's WSGI server) on SQLite in a temporary
folder, creates the tables through POST /api/tables (one game after another of --games), and for
each seat runs a phone as a browser does: a first load of /t/<code>/s/<seat> (with the seat's cookie,
keeping every cookie an answer sets, and the CSRF token of the body's hx-headers), the live stream of
that page (/t/<code>/live?v=<version>, server-sent events), and on each `table-changed` event a GET of
every fragment the page lists with hx-trigger="table-changed from:body" (the whole page after a rematch),
each on a connection of its own; it waits while one of its own taps is out and skips the change its
own tap made (the tap's answer carries that version, as static/app.js reads it). Each table makes a
turn every 20-30 s (--fast: every 1-2 s): a legal entry chosen from the game's own rules
(`GAMES[game].hints(...)["legal"]`, via tests/contract/playout.py's legal_choice), posted by that seat's
phone as htmx posts the sheet's form: the game's own form fields (FORM_OF), HX-Request, X-CSRF-Token
and a fresh idempotency `key`. (Dice and Slice is not among the games: its placement form sends
the pattern's moves, not its dots.) The turns are planned before the load starts (`plan_turns`, a
rematch through the host's API where a game ends): choosing them while measuring took the load
generator's own core at 500 tables and more. The clock starts once every phone's stream has answered
(and 2 s more): thousands of phones opening their streams at once is work of its own, reported as
"opening every stream".

With --before DIR (an older source tree of the companion, say `git archive fab2c04 | tar -x -C DIR`),
that tree's server is measured too, in the same run and the same way, the two alternating over
--rounds; each run has its own SQLite file. It runs with this checkout's Python environment and
PYTHONPATH set to DIR.

Then the same load shape against a bare baseline on the same server software (gevent.pywsgi),
this file run as `--serve-baseline PORT`: a minimal WSGI app whose /live is a real SSE stream
(retry, heartbeat every 25 s, one event per entry, fanned out with a gevent Event per table),
whose entry route only counts, and whose fragment is a few bytes of HTML. Same tables, phones,
pace and requests.

Reported for each: a tap's round trip p50/p99; live delay p50/p99 (from the moment the entry's
answer came back to the moment another phone of that table has fetched its new fragment; each of
the 4 other phones is a sample); errors; requests/s; server CPU (utime+stime from /proc/<pid>/stat
over the load, as % of one core) and peak RSS (VmRSS of /proc/<pid>/status, sampled every 0.5 s);
bytes per phone per minute (bytes read on the stream and the fragment fetches, headers included);
the CPU the VM's host took for other guests over the window (steal, from /proc/stat: on a shared
machine the same run differs by that much). One asyncio event loop with raw streams drives every connection.

On PostgreSQL it also times a commit alone beside the load (`CommitProbe`: one insert every 0.2 s on
a connection of its own) and says how many of the entries over 50 ms overlapped a commit alone over
50 ms: a commit waits for the fsync of the database's log, so a disk that stalls shows there too,
apart from the companion.
"""
from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
PHONES = 5
HOST = "127.0.0.1"
CLK = os.sysconf("SC_CLK_TCK")


# ---- a tiny HTTP/1.1 client on asyncio streams -------------------------------------------
class Conn:
    """One kept-alive connection; `request` answers (status, headers, body, bytes read)."""

    def __init__(self, port: int):
        self.port, self.reader, self.writer = port, None, None
        self.lock = asyncio.Lock()

    async def _open(self):
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port, limit=1 << 20)

    async def request(self, method: str, path: str, headers: dict | None = None, body: bytes = b""):
        async with self.lock:
            for attempt in (0, 1):
                if self.writer is None:
                    await self._open()
                try:
                    return await _exchange(self.reader, self.writer, method, path, headers or {}, body)
                except (ConnectionError, asyncio.IncompleteReadError):
                    self.close()
                    if attempt:
                        raise

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def _send_head(writer, method, path, headers, body):
    headers = {"Accept-Encoding": "gzip, br", **headers}
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}"] + [f"{k}: {v}" for k, v in headers.items()]
    if body or method == "POST":
        lines.append(f"Content-Length: {len(body)}")
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    await writer.drain()


async def _read_head(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            k, v = k.strip().lower(), v.strip()
            if k == "set-cookie":  # every cookie set, as "name=value" pairs joined as a Cookie header sends them back
                v = "; ".join(filter(None, (headers.get(k), v.split(";", 1)[0])))
            headers[k] = v
    return status, headers, len(head)


async def _exchange(reader, writer, method, path, headers, body):
    await _send_head(writer, method, path, headers, body)
    status, rh, n = await _read_head(reader)
    data = b""
    if rh.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            n += len(size_line) + len(chunk)
            if size == 0:
                break
            data += chunk[:-2]
    elif "content-length" in rh:
        data = await reader.readexactly(int(rh["content-length"]))
        n += len(data)
    elif status not in (204, 304):
        data = await reader.read()
        n += len(data)
    return status, rh, _decode(rh, data), n


def _decode(rh: dict, data: bytes) -> bytes:
    coding = rh.get("content-encoding")
    if coding == "gzip":
        return gzip.decompress(data)
    if coding == "br":
        import brotli
        return brotli.decompress(data)
    return data


# ---- what is measured ----------------------------------------------------------------------
class Stats:
    def __init__(self):
        self.entry_spans: list[tuple[float, float]] = []  # (sent, answered), perf_counter
        self.delay: list[float] = []
        self.errors: dict[str, int] = {}
        self.requests = 0
        self.phone_requests = 0  # what the phones themselves ask: stream (re)opens and fragment GETs
        self.rematches = 0
        self.bytes = 0
        self.measuring = False
        self.streams_open = 0  # phones whose stream has answered at least once

    @property
    def entry_rtt(self) -> list[float]:
        return [answered - sent for sent, answered in self.entry_spans]

    def error(self, what: str):
        self.errors[what] = self.errors.get(what, 0) + 1


class Table:
    def __init__(self, code, game_id, tokens, host_token):
        self.code, self.game_id, self.tokens, self.host_token = code, game_id, tokens, host_token
        self.accepted: dict[tuple, tuple[float, int]] = {}  # (game, entry seq) -> (answer came back, seat)
        self.early: dict[tuple, list] = {}  # (game, entry seq) -> [(seat, fetched)] before its answer came back
        self.game_no = 1
        self.turns: list = []  # planned before the load: see plan_turns
        self.phones: list = []  # its phones, by seat


class Phone:
    def __init__(self, table: Table, seat: int, port: int, stats: Stats, baseline: bool):
        self.t, self.seat, self.port, self.stats, self.baseline = table, seat, port, stats, baseline
        self.cookies = {f"seat_{table.code}": table.tokens[seat]}
        self.conn = Conn(port)
        self.heard: list[tuple] = []
        self.reload = False
        self.wake = asyncio.Event()
        self.live_url = f"/t/{table.code}/live"
        self.stream_opened = False
        self.tap_conn = Conn(port)  # a browser sends a tap on another of its connections than a refetch
        self.csrf = ""
        self.refetch: list[str] = []  # hx-get of every element listening for "table-changed from:body"
        self.tapping = asyncio.Event()
        self.tapping.set()  # set: no tap of this phone is out
        self.own: set[tuple] = set()  # versions this phone's own taps made (their answer carried them)

    async def first_load(self):
        status, rh, body, _ = await self.conn.request("GET", f"/t/{self.t.code}/s/{self.seat}",
                                                      {"Cookie": self.cookie, "Accept-Encoding": "gzip"})
        if status != 200:
            raise RuntimeError(f"first load {status}")
        self.keep_cookies(rh)
        self.read_page(body.decode())

    @property
    def cookie(self) -> str:
        return "; ".join(f"{k}={v}" for k, v in self.cookies.items())

    def keep_cookies(self, rh: dict):
        """A browser keeps what an answer set (its session) and sends it back."""
        for pair in filter(None, rh.get("set-cookie", "").split("; ")):
            name, _, value = pair.partition("=")
            self.cookies[name] = value

    def read_page(self, html: str):
        """What a browser keeps from the page: its stream URL, CSRF token, and what htmx refetches."""
        m = re.search(r'sse-connect="([^"]+)"', html)
        if m:  # the version the page shows, as its stream says it
            self.live_url = m.group(1).replace("&amp;", "&")
        m = re.search(r'"X-CSRF-Token": "([^"]+)"', html)  # the body's hx-headers, sent with every htmx request
        if m:
            self.csrf = m.group(1)
        tags = re.findall(r"<[^>]*table-changed from:body[^>]*>", html)
        self.refetch = [m.group(1).replace("&amp;", "&") for tag in tags if (m := re.search(r'hx-get="([^"]+)"', tag))]

    async def tap(self, fields: dict) -> tuple[int, bytes]:
        """A tap as htmx posts the sheet's form: its fields, the CSRF token and an idempotency key."""
        body = urlencode({"csrf_token": self.csrf, "key": uuid.uuid4().hex, **fields}).encode()  # as the form holds them
        self.tapping.clear()
        try:
            status, rh, data, _ = await self.tap_conn.request(
                "POST", f"/t/{self.t.code}/s/{self.seat}/entries",
                {"Cookie": self.cookie, "HX-Request": "true", "X-CSRF-Token": self.csrf,
                 "Content-Type": "application/x-www-form-urlencoded"},
                body)
            self.keep_cookies(rh)
            return status, data
        finally:
            self.tapping.set()

    async def hold_stream(self, stop: float):
        while time.monotonic() < stop:
            try:
                reader, writer = await asyncio.open_connection(HOST, self.port, limit=1 << 20)
                await _send_head(writer, "GET", self.live_url,
                                 {"Cookie": self.cookie, "Accept": "text/event-stream",
                                  "Cache-Control": "no-cache"}, b"")
                status, rh, n = await _read_head(reader)
                self.count(n)
                if self.stats.measuring:
                    self.stats.phone_requests += 1
                if status != 200:
                    raise ConnectionError(f"live {status}")
                if not self.stream_opened:
                    self.stream_opened = True
                    self.stats.streams_open += 1
                chunked = rh.get("transfer-encoding", "").lower() == "chunked"
                buf = ""
                while True:
                    if chunked:
                        size_line = await reader.readuntil(b"\r\n")
                        size = int(size_line.split(b";")[0], 16)
                        chunk = await reader.readexactly(size + 2)
                        self.count(len(size_line) + len(chunk))
                        if size == 0:
                            raise ConnectionError("stream ended")
                        buf += chunk[:-2].decode()
                    else:
                        chunk = await reader.read(65536)
                        if not chunk:
                            raise ConnectionError("stream ended")
                        self.count(len(chunk))
                        buf += chunk.decode()
                    while "\n\n" in buf:
                        block, buf = buf.split("\n\n", 1)
                        self.on_block(block)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - counted, then reconnect as EventSource does
                if time.monotonic() < stop:
                    self.stats.error(f"stream: {type(exc).__name__} {exc}"[:80])
                    await asyncio.sleep(1)

    def on_block(self, block: str):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        if fields.get("event") in ("table-changed", "refresh") and "id" in fields:
            self.live_url = re.sub(r"v=[^&]*", "", self.live_url.split("?")[0]) + f"?v={fields['id']}"
            game_no, seq = fields["id"].split(".")[:2]
            self.heard.append((int(game_no), int(seq)))
            self.reload |= fields["event"] == "refresh"  # a rematch: the page loads the new game's page
            self.wake.set()

    def count(self, n: int):
        if self.stats.measuring:
            self.stats.bytes += n

    async def fetch_loop(self):
        """On each change heard, what static/app.js and htmx do: wait while a tap of this phone is out
        (its answer carries the version it made), then GET every fragment listening for the change (or
        the whole page after a rematch), each on a connection of its own as a browser would."""
        conns: dict[str, Conn] = {}
        while True:
            await self.wake.wait()
            self.wake.clear()
            await self.tapping.wait()
            seqs, self.heard = [v for v in self.heard if v not in self.own], []
            if not seqs:
                continue
            reload, self.reload = self.reload, False
            urls = [f"/t/{self.t.code}/s/{self.seat}"] if reload or not self.refetch else self.refetch
            answers = await asyncio.gather(*(self.fetch(conns.setdefault(u, Conn(self.port)), u, reload)
                                             for u in urls))
            done = time.perf_counter()
            if all(answers):
                self.record_delay(seqs, done)

    async def fetch(self, conn: "Conn", url: str, page: bool) -> bool:
        headers = {"Cookie": self.cookie} if page else {"Cookie": self.cookie, "HX-Request": "true"}
        try:
            status, rh, body, n = await conn.request("GET", url, headers)
            self.keep_cookies(rh)
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            self.stats.error(f"fragment: {type(exc).__name__}")
            return False
        self.count(n)
        if self.stats.measuring:
            self.stats.requests += 1
            self.stats.phone_requests += 1
        if status != 200:
            self.stats.error(f"fragment {status}")
            return False
        if page:
            self.read_page(body.decode())
        return True

    def record_delay(self, seqs: list, done: float):
        for seq in seqs:
            acc = self.t.accepted.get(seq)
            if acc is None:  # the change reached this phone before the entry's own answer came back
                self.t.early.setdefault(seq, []).append((self.seat, done))
            elif acc[1] != self.seat and self.stats.measuring:
                self.stats.delay.append(max(0.0, done - acc[0]))


# ---- an entry as the sheet's form sends it (the fields each game's template posts) ---------------
def _dicez_form(entry: dict) -> dict:
    dice = {f"d{i}": str(d) for i, d in enumerate(entry.get("dice") or ())}
    if entry["kind"] == "roll":
        return {"action": "roll", **dice, **{f"hold{i}": "on" for i in entry.get("held", ())}}
    return {"action": "score", "category": entry["category"], **dice}


def _pizza_form(entry: dict) -> dict:
    space = ",".join(str(c) for c in entry["space"]) if entry.get("space") else "none"
    if entry["kind"] == "cut":
        return {"kind": "cut", "line": str(entry["line"])}
    if entry["kind"] == "neutral":
        return {"kind": "neutral", "nline": str(entry["line"]), "space": space}
    return {"kind": "place", "space": space}


def _score_pad_form(entry: dict) -> dict:
    return {"action": "finish"} if entry["kind"] == "finish" else {"points": str(entry.get("points", ""))}


FORM_OF = {"dicez": _dicez_form, "pizza_theory": _pizza_form, "score_pad": _score_pad_form,
           None: lambda entry: {"points": str(entry["value"])}}  # None: the baseline's entries only count


def players_of(game_id: str) -> int:
    """As many phones as the game seats, up to PHONES."""
    from companion.games import every_game
    return min(PHONES, every_game()[game_id].max_players)


def plan_turns(game_id: str | None, players: int, count: int, rng: random.Random) -> list:
    """The table's next `count` turns, chosen before the load starts (so the load generator spends no
    time on the rules while it measures): (seat, entry) from the game's own legal entries, or None
    where the game is over and the host starts a rematch. The baseline's entries only count."""
    if game_id is None:
        return [(rng.randrange(players), {"kind": "score", "value": rng.randint(0, 30)}) for _ in range(count)]
    from companion.games import every_game
    from tests.contract.playout import legal_choice
    game = every_game()[game_id]
    state, turns = game.new_state(players, game.normalize_options({})), []
    while len(turns) < count:
        if game.finished(state):
            turns.append(None)
            state = game.new_state(players, game.normalize_options({}))
            continue
        seat, legal = legal_choice(game, state, rng)
        entry = rng.choice(legal)
        state = game.apply(state, seat, entry)
        turns.append((seat, entry))
    return turns


async def play_table(t: Table, port: int, stats: Stats, pace: tuple[float, float], stop: float,
                     rng: random.Random, baseline: bool):
    conn = Conn(port)
    await asyncio.sleep(rng.uniform(0, pace[1]))
    for turn in t.turns:
        if time.monotonic() >= stop:
            return
        if turn is None:  # the host starts a rematch, as a table that plays on does
            status, _, data, _ = await conn.request("POST", f"/api/tables/{t.code}/rematch",
                                                    {"Authorization": f"Bearer {t.host_token}"})
            if status != 201:
                stats.error(f"rematch {status}: {data[:60]!r}")
                return
            t.game_no = json.loads(data)["game_no"]
            if stats.measuring:
                stats.requests += 1
                stats.rematches += 1
            continue
        seat, entry = turn
        phone = t.phones[seat]
        t0 = time.perf_counter()
        try:
            status, data = await phone.tap(FORM_OF[None if baseline else t.game_id](entry))
        except (ConnectionError, asyncio.IncompleteReadError) as exc:
            stats.error(f"entry: {type(exc).__name__}")
            return  # the planned turns after it would be out of step with the server
        t1 = time.perf_counter()
        made = re.search(rb'id="live-seen" data-version="(\d+)\.(\d+)', data)
        if status != 200 or not made:
            stats.error(f"entry {status}: {words_of(data)}")
            return
        key = (int(made.group(1)), int(made.group(2)))
        phone.own.add(key)
        t.accepted[key] = (t1, seat)
        if stats.measuring:
            stats.entry_spans.append((t0, t1))
            # phones that had the new fragment before this answer: a delay of 0
            stats.delay.extend(0.0 for other, _ in t.early.pop(key, ()) if other != seat)
            stats.requests += 1
        await asyncio.sleep(max(0.0, rng.uniform(*pace) - (t1 - t0)))


def words_of(html: bytes) -> str:
    """What a refusal says, without its markup (for the error list)."""
    return re.sub(r"\s+", " ", re.sub(r"(?s)<head>.*</head>|<[^>]+>", " ", html.decode(errors="replace")))[:100]


# ---- the server under load -----------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK  # utime, stime (fields 14, 15)


def machine_steal() -> tuple[float, float]:
    """(steal, all) CPU seconds of the whole machine so far (/proc/stat): the time a shared VM's host
    gave to other guests while this one had work; a run with much of it measured a slower machine."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return fields[7] / CLK, sum(fields) / CLK


def proc_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def wait_up(port: int, proc: subprocess.Popen, timeout: float = 30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError("the server exited")
        try:
            _, w = await asyncio.open_connection(HOST, port)
            w.close()
            return
        except OSError:
            await asyncio.sleep(0.2)
    raise RuntimeError("the server did not start")


def server_command(args, port: int, tree: Path = ROOT, profile: str | None = None) -> list[str]:
    """`python -m companion` as a user starts it (under cProfile, writing `profile`, if given), or
    gunicorn with --workers gevent workers."""
    if profile:
        return [sys.executable, "-m", "cProfile", "-o", profile, "-m", "companion", "--host", HOST, "--port", str(port)]
    if args.workers > 1:
        gunicorn = str(Path(sys.executable).with_name("gunicorn"))
        return [gunicorn, "-c", str(tree / "gunicorn.conf.py"), "--workers", str(args.workers),
                "--bind", f"{HOST}:{port}", "companion:create_app()"]
    return [sys.executable, "-m", "companion", "--host", HOST, "--port", str(port)]


def process_tree(pid: int) -> list[int]:
    """The server and its worker processes (gunicorn forks them)."""
    pids = [pid]
    for p in pids:
        for task in Path(f"/proc/{p}/task").iterdir():
            children = (task / "children").read_text().split() if (task / "children").exists() else []
            pids += [int(c) for c in children]
    return pids


def tree_cpu(pid: int) -> float:
    return sum(proc_cpu(p) for p in process_tree(pid))


def tree_rss_mb(pid: int) -> float:
    return sum(proc_rss_mb(p) for p in process_tree(pid))


async def create_tables(port: int, games: list[str], plans: list) -> list[Table]:
    """One table per plan through the API, its game taken from `games` in turn."""
    api = Conn(port)
    tables = []
    for i, plan in enumerate(plans):
        game_id = games[i % len(games)]
        payload = {"game": game_id, "players": [f"P{s + 1}" for s in range(players_of(game_id))]}
        status, _, data, _ = await api.request("POST", "/api/tables", {"Content-Type": "application/json"},
                                               json.dumps(payload).encode())
        if status != 201:
            raise RuntimeError(f"{game_id}: POST /api/tables answered {status}: {data[:200]!r}")
        d = json.loads(data)
        table = Table(d["code"], game_id, [s["token"] for s in d["seats"]], d["host_token"])
        table.turns = plan
        tables.append(table)
    return tables


async def open_phones(phones: list[Phone], stats: Stats, stop: float) -> tuple[list[asyncio.Task], float, float]:
    """Every phone's first load (50 at a time), then its stream and its fetches: (those tasks, seconds the
    first loads took, seconds until every stream was open). Every stream opens before the clock starts:
    thousands of phones opening their streams at once (as after a restart) is work of its own, not the
    load of a table at play."""
    t0 = time.perf_counter()
    for i in range(0, len(phones), 50):
        await asyncio.gather(*(p.first_load() for p in phones[i:i + 50]))
    first_load_s = time.perf_counter() - t0
    tasks = [asyncio.create_task(p.hold_stream(stop)) for p in phones]
    tasks += [asyncio.create_task(p.fetch_loop()) for p in phones]
    t1, deadline = time.perf_counter(), time.monotonic() + 60
    while stats.streams_open < len(phones) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return tasks, first_load_s, time.perf_counter() - t1


async def measured_window(pid: int, duration: float, stats: Stats, probe) -> dict:
    """The server's CPU, peak RSS and the machine's stolen CPU over `duration` seconds of play."""
    cpu0, w0, peak = tree_cpu(pid), time.perf_counter(), tree_rss_mb(pid)
    steal0 = machine_steal()
    own0 = time.process_time()  # this load generator shares the machine's cores with the server
    stats.measuring = True
    if probe:
        probe.start()
    end = time.monotonic() + duration
    while time.monotonic() < end:
        await asyncio.sleep(0.5)
        peak = max(peak, tree_rss_mb(pid))
    stats.measuring = False
    if probe:
        probe.stopped.set()
        probe.join(10)
    wall, cpu, own = time.perf_counter() - w0, tree_cpu(pid) - cpu0, time.process_time() - own0
    steal1 = machine_steal()
    steal = 100 * (steal1[0] - steal0[0]) / max(steal1[1] - steal0[1], 1e-9)
    return {"wall": wall, "cpu": cpu, "own_cpu": own, "steal": steal, "rss": peak}


async def run(label: str, cmd, env: dict, args, games: list[str], baseline: bool, tree: Path) -> dict:
    port = free_port()
    tmp = Path(env["BENCH_TMP"])
    proc = subprocess.Popen(cmd(port), cwd=tree, env=env,
                            stdout=open(tmp / f"{label}.log", "w"), stderr=subprocess.STDOUT)
    stats, rng = Stats(), random.Random(11)
    pace = (1.0, 2.0) if args.fast else (20.0, 30.0)
    turns = int(args.duration / pace[0]) + 3
    plans = [plan_turns(None if baseline else games[i % len(games)], players_of(games[i % len(games)]), turns,
                        random.Random(rng.random())) for i in range(args.tables)]
    try:
        await wait_up(port, proc)
        tables = await create_tables(port, games, plans)
        for t in tables:
            t.phones = [Phone(t, s, port, stats, baseline) for s in range(len(t.tokens))]
        phones = [p for t in tables for p in t.phones]
        stop = time.monotonic() + args.duration + 5 + 60  # streams are held while they open (at most 60 s) and the window lasts
        tasks, first_load_s, streams_s = await open_phones(phones, stats, stop)
        await asyncio.sleep(2)
        if not args.idle:
            tasks += [asyncio.create_task(play_table(t, port, stats, pace, time.monotonic() + args.duration,
                                                     random.Random(rng.random()), baseline)) for t in tables]
        probe = None if baseline or not env["DATABASE_URL"].startswith("postgresql") else CommitProbe(env["DATABASE_URL"])
        window = await measured_window(proc.pid, args.duration, stats, probe)
        await asyncio.sleep(1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return {"label": label, "stats": stats, "probe": probe, **window,
                "phones": len(phones), "first_load_s": first_load_s, "streams_s": streams_s,
                "games": sorted({t.game_id for t in tables})}
    finally:
        proc.send_signal(signal.SIGINT)  # as Ctrl+C: the server stops (and a profile is written)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] * 1000


def report(r: dict) -> dict:
    s: Stats = r["stats"]
    rtt = s.entry_rtt
    row = {"entries": len(rtt), "entry_p50": pct(rtt, 50), "entry_p99": pct(rtt, 99),
           "delay_n": len(s.delay), "delay_p50": pct(s.delay, 50), "delay_p99": pct(s.delay, 99),
           "errors": sum(s.errors.values()), "rps": s.requests / r["wall"], "cpu": 100 * r["cpu"] / r["wall"],
           "rss": r["rss"], "bpm": s.bytes / r["phones"] / (r["wall"] / 60),
           "generator_cpu": 100 * r["own_cpu"] / r["wall"],
           "rpm": s.phone_requests / r["phones"] / (r["wall"] / 60), "steal": r["steal"]}
    print(f"{r['label']:<9} entries {row['entries']:5d}  entry p50 {row['entry_p50']:6.1f} ms p99 "
          f"{row['entry_p99']:6.1f} ms | live delay p50 {row['delay_p50']:6.1f} ms p99 {row['delay_p99']:6.1f} ms "
          f"(n={row['delay_n']}) | errors {row['errors']} | {row['rps']:6.1f} req/s | CPU {row['cpu']:5.1f}% "
          f"| peak RSS {row['rss']:6.1f} MB | {row['bpm']:7.0f} B and {row['rpm']:.2f} requests /phone/min "
          f"| rematches {s.rematches} | load generator CPU {row['generator_cpu']:.1f}% "
          f"| CPU stolen by the VM's host {r['steal']:.1f}% of the machine's")
    for what, n in sorted(s.errors.items()):
        print(f"          error x{n}: {what}")
    return row


async def amain(args):
    """The companion (and, with --before, an older source tree of it, the two alternating over
    --rounds), then the bare baseline, in one run on the same machine."""
    tmp = Path(tempfile.mkdtemp(prefix="load-"))
    games = args.games.split(",")
    trees = [("after", ROOT)] + ([("before", Path(args.before).resolve())] if args.before else [])
    print(f"load: {machine_load()}; commit {commit_of(ROOT)}" + (f"; before: {args.before}" if args.before else ""))
    rows: list[tuple[str, dict]] = []
    try:
        for n in range(args.rounds):
            for label, tree in trees:
                rows.append((label, await measure(f"{label}-{n + 1}", tree, args, games, tmp)))
        if not args.no_baseline:
            rows.append(("baseline", await measure("baseline", None, args, games, tmp)))
    finally:
        if args.server_log and (tmp / "after-1.log").exists():
            shutil.copy(tmp / "after-1.log", args.server_log)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load after the run: {machine_load()}")
    if not args.idle:
        print_table(rows)


async def measure(label: str, tree: Path | None, args, games: list[str], tmp: Path) -> dict:
    """One server (tree None: the baseline) under the load, on storage of its own; its printed row."""
    database, drop_schema = database_for(args, tmp, label)
    env = {**os.environ, "DATABASE_URL": database, "SECRET_KEY": "bench",
           "PYTHONPATH": str(tree or ROOT), "BENCH_TMP": str(tmp),
           "TABLES_PER_CLIENT": "100000 per minute",  # every table comes from this one client,
           "MAX_STREAMS_PER_CLIENT": "0", "MAX_CONNECTIONS_PER_CLIENT": "0"}  # as do all the phones
    env.pop("REDIS_URL", None)
    if args.redis_url:
        env["REDIS_URL"] = args.redis_url
    if tree is None:
        cmd = lambda port: [sys.executable, str(Path(__file__).resolve()), "--serve-baseline", "--port", str(port)]  # noqa: E731
    else:
        profile = args.profile if args.profile and label == "after-1" else None
        cmd = lambda port: server_command(args, port, tree, profile)  # noqa: E731
    try:
        r = await run(label, cmd, env, args, games, tree is None, tree or ROOT)
    finally:
        drop_schema()
    print(f"\n{label}: {args.tables} tables, {r['phones']} phones, {args.duration:.0f} s, "
          f"{'no entries' if args.idle else 'a turn every ' + ('1-2' if args.fast else '20-30') + ' s per table'}; "
          f"games: {', '.join(r['games'])}; first loads {r['first_load_s']:.1f} s, opening every stream "
          f"{r['streams_s']:.1f} s; storage {database.split('?')[0].split(':')[0]}")
    row = report(r)
    if r["probe"]:
        report_probe(r["probe"], r["stats"])
    sys.stdout.flush()
    return row


def print_table(rows: list[tuple[str, dict]]) -> None:
    """Every run as one Markdown row, in the order they ran."""
    print("\n| run | taps | tap answer p50 / p99 ms | other screens p50 / p99 ms | errors | CPU % of a core "
          "| peak RSS MB | bytes /phone/min | steal % |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, r in rows:
        print(f"| {label} | {r['entries']} | {r['entry_p50']:.0f} / {r['entry_p99']:.0f} | {r['delay_p50']:.0f} / "
              f"{r['delay_p99']:.0f} | {r['errors']} | {r['cpu']:.1f} | {r['rss']:.0f} | {r['bpm']:.0f} | {r['steal']:.1f} |")


def machine_load() -> str:
    return "load average " + " ".join(Path("/proc/loadavg").read_text().split()[:3]) + f" on {os.cpu_count()} cores"


def commit_of(tree: Path) -> str:
    done = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (done.stdout.strip() or "?") + (" (with uncommitted changes)" if dirty else "")


def database_for(args, tmp: Path, label: str):
    """SQLite in the temporary folder, or a fresh schema of its own on the --database-url server."""
    if not args.database_url:
        return f"sqlite:///{tmp / f'{label}.sqlite'}", lambda: None
    from sqlalchemy import create_engine, make_url, text

    from companion.platform.store.engines import normalize_url
    base = normalize_url(args.database_url)
    schema = f"load_{uuid.uuid4().hex[:10]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))

    def drop():
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
    url = make_url(base)  # the schema joins any options the given URL has (say -csynchronous_commit=off)
    options = " ".join(filter(None, (url.query.get("options"), f"-csearch_path={schema}")))
    return url.update_query_dict({"options": options}).render_as_string(hide_password=False), drop


# ---- what the database's own commit costs beside the load (PostgreSQL) -------------------------
class CommitProbe(threading.Thread):
    """A commit alone, beside the load: every PROBE_EVERY s, one row inserted in autocommit on a
    connection of its own to the run's database, timed. On PostgreSQL a commit waits for the fsync
    of its log; where the machine's disk stalls, this shows it apart from the companion, and
    `report_probe` counts the long entries that overlapped a long commit alone."""

    PROBE_EVERY = 0.2  # a few fsyncs a second more, beside the 7-10 a second of 200 tables' entries

    def __init__(self, database_url: str):
        super().__init__(daemon=True)
        from sqlalchemy import create_engine
        # SQLAlchemy connects as the companion does: the URL's options (its schema) reach libpq whole
        self.engine = create_engine(database_url, isolation_level="AUTOCOMMIT")
        self.spans: list[tuple[float, float]] = []
        self.stopped = threading.Event()
        self.checkpoints = 0  # PostgreSQL's own checkpoints begun over the window

    def run(self):
        with self.engine.connect() as conn:
            driver = conn.connection.dbapi_connection  # the insert itself, without SQLAlchemy around it
            driver.execute("CREATE TABLE IF NOT EXISTS load_probe (at timestamptz NOT NULL)")
            before = self._checkpoints(driver)
            while not self.stopped.wait(self.PROBE_EVERY):
                t0 = time.perf_counter()
                driver.execute("INSERT INTO load_probe (at) VALUES (now())")
                self.spans.append((t0, time.perf_counter()))
            self.checkpoints = self._checkpoints(driver) - before
        self.engine.dispose()

    @staticmethod
    def _checkpoints(driver) -> int:
        return driver.execute("SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter").fetchone()[0]


def report_probe(probe: CommitProbe, stats: Stats, slow: float = 0.05) -> None:
    times = [b - a for a, b in probe.spans]
    if not times:
        return
    long_commits = [(a, b) for a, b in probe.spans if b - a > slow]
    long_entries = [(a, b) for a, b in stats.entry_spans if b - a > slow]
    overlapped = sum(any(a < d and c < b for c, d in long_commits) for a, b in long_entries)
    print(f"          a commit alone beside the load (one insert every {probe.PROBE_EVERY} s, n={len(times)}): "
          f"p50 {pct(times, 50):.2f} ms p99 {pct(times, 99):.1f} ms max {max(times) * 1000:.0f} ms, "
          f"{len(long_commits)} over {slow * 1000:.0f} ms | entries over {slow * 1000:.0f} ms: {len(long_entries)}, "
          f"{overlapped} of them while a commit alone took over {slow * 1000:.0f} ms | PostgreSQL checkpoints "
          f"begun in the window: {probe.checkpoints}")


# ---- the baseline: a bare WSGI app on the same gevent server ---------------------------------
def serve_baseline(port: int):
    from gevent import monkey
    monkey.patch_all()
    import gevent
    from gevent.event import Event
    from companion.platform.web.serve import Server as WSGIServer  # the same server, Nagle off

    tables: dict[str, dict] = {}

    def app(environ, start_response):
        path, method = environ["PATH_INFO"], environ["REQUEST_METHOD"]
        parts = path.strip("/").split("/")
        if method == "POST" and path == "/api/tables":
            players = json.loads(environ["wsgi.input"].read())["players"]
            code = uuid.uuid4().hex[:6].upper()
            tables[code] = {"seq": 0, "event": Event()}
            body = json.dumps({"code": code, "host_token": "h", "seats": [
                {"seat": s, "token": f"tok{s}"} for s in range(len(players))]}).encode()
            start_response("201 Created", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
            return [body]
        code = parts[2] if parts[0] == "api" and len(parts) > 2 else parts[1] if len(parts) > 1 else ""
        t = tables.get(code)
        if t is None:
            start_response("404 Not Found", [("Content-Length", "0")])
            return [b""]
        if method == "POST":  # an entry: the next version, and every stream of the table hears it
            environ["wsgi.input"].read()
            t["seq"] += 1
            t["event"].set()
            t["event"] = Event()
            body = f'<div id="sheet">{t["seq"]}</div><div id="live-seen" data-version="1.{t["seq"]}.0"></div>'.encode()
            start_response("200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(body)))])
            return [body]
        if parts[-1] == "live":
            start_response("200 OK", [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")])

            def stream():
                yield b"retry: 2000\n\n"
                seen = t["seq"]
                while True:
                    if t["seq"] == seen and not t["event"].wait(25):
                        yield b":\n\n"
                        continue
                    seen = t["seq"]
                    yield f"id: 1.{seen}.0\nevent: table-changed\ndata: 1.{seen}.0\n\n".encode()
            return stream()
        if parts[-1] == "sheet":
            body = f'<div id="sheet">{t["seq"]}</div>'.encode()
        else:
            body = (f'<html><body hx-headers=\'{{"X-CSRF-Token": "c"}}\'><div id="live" sse-connect="/t/{code}/live">'
                    f'</div><div hx-get="{path}/sheet" '
                    f'hx-trigger="table-changed from:body"></div></html>').encode()
        start_response("200 OK", [("Content-Type", "text/html"), ("Content-Length", str(len(body)))])
        return [body]

    gevent.get_hub()
    WSGIServer((HOST, port), app, log=None, connections_per_client=0).serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load (it stops by itself)")
    parser.add_argument("--fast", action="store_true", help="a turn every 1-2 s per table (else 20-30 s)")
    parser.add_argument("--games", default="dicez,score_pad,pizza_theory",
                        help=f"any of {', '.join(g for g in FORM_OF if g)} (the games whose forms this posts)")
    parser.add_argument("--idle", action="store_true", help="no entries: what phones cost that only hold a stream")
    parser.add_argument("--workers", type=int, default=1, help="over 1: gunicorn with this many gevent workers")
    parser.add_argument("--database-url", help="e.g. postgresql://postgres@127.0.0.1:5432/test (else SQLite)")
    parser.add_argument("--redis-url", help="REDIS_URL for the server (fan-out through Redis)")
    parser.add_argument("--server-log", help="keep the companion server's output in this file")
    parser.add_argument("--before", help="an older source tree of the companion (say `git archive fab2c04`, unpacked)"
                        " measured in the same run, alternating with this one")
    parser.add_argument("--rounds", type=int, default=1, help="how many times each tree is measured, in turn")
    parser.add_argument("--no-baseline", action="store_true", help="skip the bare baseline's run")
    parser.add_argument("--profile", help="run this tree's first server under cProfile, writing its stats to this file"
                        " (CPU and latencies of that run are then cProfile's, not the app's)")
    parser.add_argument("--serve-baseline", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--host", help=argparse.SUPPRESS)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.serve_baseline:
        serve_baseline(args.port)
        return
    sys.path.insert(0, str(ROOT))
    asyncio.run(amain(args))


if __name__ == "__main__":
    main()
