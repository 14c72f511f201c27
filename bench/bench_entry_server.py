"""Where an API entry's time goes inside the server, beside the hello world's, and its CPU under load.

    python bench/bench_entry_server.py [--samples 2000] [--requests 5000] [--clients 4]

bench/bench_hot_paths.py times round trips, which hold the bench client's own work as well as the
server's. This script looks inside the servers. Part one starts `python -m companion` and
bench/hello_wsgi.py through a launcher (this file, `--timed`) that times gevent's handler in
each: reading and parsing the request, the WSGI app itself, writing the answer, the access-log
line. Then it sends one request at a time as bench_hot_paths does: the hello world's GET and POST,
and DiceZ entries through the API. Part two starts both servers again without timers. Client
processes hold `--clients` kept-alive connections and send prepared requests as fast as the
server answers (raw sockets, so the clients stay light). It reads each server's CPU time from
/proc (Linux) to give CPU per request when the server is saturated. Prints medians and ratios to
the hello world; asserts nothing about time.
"""
from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import signal
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import bench_hot_paths as hot  # noqa: E402  (bench/: its servers, client and entries)
import load  # noqa: E402  (bench/load.py: a process's CPU time)

PHASES = ("read_request", "app", "write_answer", "log_request")


# ---- the launcher: a server with gevent's handler timed -------------------------------------------
def timed_server(out: str, argv: list[str]) -> None:
    """Run `argv` (`-m companion ...` or a script) with gevent's WSGIHandler phases timed; on SIGUSR1
    write each phase's median (µs) over the requests since the last dump to `out`."""
    from gevent import monkey
    monkey.patch_all()
    import runpy

    from gevent import pywsgi

    times: dict[str, list[float]] = {name: [] for name in PHASES}

    def timing(method: str, phase: str):
        inner = getattr(pywsgi.WSGIHandler, method)

        def timed(self, *args, **kwargs):
            start = time.perf_counter()
            try:
                return inner(self, *args, **kwargs)
            finally:
                times[phase].append(time.perf_counter() - start)
        setattr(pywsgi.WSGIHandler, method, timed)

    def app_and_answer(self):
        """run_application is the app's call, then process_result: each timed on its own."""
        start = time.perf_counter()
        self.result = self.application(self.environ, self.start_response)
        middle = time.perf_counter()
        try:
            self.process_result()
        finally:
            close = getattr(self.result, "close", None)
            if close is not None:
                close()
            self.result = None
            times["app"].append(middle - start)
            times["write_answer"].append(time.perf_counter() - middle)

    timing("read_request", "read_request")
    timing("log_request", "log_request")
    pywsgi.WSGIHandler.run_application = app_and_answer

    def dump(*_):
        medians = {name: statistics.median(v) * 1e6 if v else 0.0 for name, v in times.items()}
        Path(out).write_text(json.dumps({"medians": medians, "requests": len(times["app"])}))
        for v in times.values():
            v.clear()
    signal.signal(signal.SIGUSR1, dump)
    if argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__")
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")


def phases_of(proc, out: Path) -> dict:
    """The medians the timed server `proc` has gathered since its last dump."""
    out.unlink(missing_ok=True)
    proc.send_signal(signal.SIGUSR1)
    deadline = time.time() + 10
    while not out.exists() and time.time() < deadline:
        time.sleep(0.05)
    return json.loads(out.read_text())


# ---- saturating load: prepared requests on raw sockets --------------------------------------------
def raw_request(method: str, path: str, body: bytes = b"", token: str | None = None) -> bytes:
    head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if body:
        head += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    if token:
        head.append(f"Authorization: Bearer {token}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def entry_requests(port: int, count: int) -> list[bytes]:
    """`count` DiceZ entries in an order the rules take (bench_hot_paths.dicez_turns), prepared."""
    return [raw_request("POST", f"/api/tables/{code}/entries", json.dumps(entry).encode(), token)
            for _, code, token, entry in itertools.islice(hot.dicez_turns(port), count)]


def send_all(port: int, requests: list[bytes], results) -> None:
    """One kept-alive connection sending `requests` one after another; puts (answered, not 2xx)."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    refused = 0
    for request in requests:
        sock.sendall(request)
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(body) < length:
            body += sock.recv(65536)
        refused += not head.startswith(b"HTTP/1.1 2")
    sock.close()
    results.put((len(requests), refused))


def saturated(pid: int, port: int, per_client: list[list[bytes]]) -> tuple[float, float, int]:
    """(server CPU µs per request, requests per second, answers not 2xx) with one client process
    per list, all at once."""
    results = multiprocessing.Queue()
    clients = [multiprocessing.Process(target=send_all, args=(port, reqs, results)) for reqs in per_client]
    cpu0, t0 = load.proc_cpu(pid), time.perf_counter()
    for c in clients:
        c.start()
    done = [results.get(timeout=600) for _ in clients]
    for c in clients:
        c.join()
    elapsed, cpu = time.perf_counter() - t0, load.proc_cpu(pid) - cpu0
    answered = sum(n for n, _ in done)
    return cpu / answered * 1e6, answered / elapsed, sum(r for _, r in done)


# ---- the two parts ----------------------------------------------------------------------------------
def inside(args, env: dict, tmp: Path) -> None:
    me = f"{sys.executable} {Path(__file__).resolve()}"
    app_port, hello_port = hot.free_port(), hot.free_port()
    app_out, hello_out = tmp / "app-phases.json", tmp / "hello-phases.json"
    app = hot.start(f"{me} --timed {app_out} -m companion --host 127.0.0.1 --port {{port}}", app_port, env,
                    tmp / "timed-app.log")
    hello = hot.start(f"{me} --timed {hello_out} {ROOT / 'bench' / 'hello_wsgi.py'} --port {{port}} --server gevent",
                      hello_port, env, tmp / "timed-hello.log")
    try:
        rows = []
        for what, proc, out, timed in (
                ("hello world, GET", hello, hello_out, hot.hello_one(hello_port)),
                ("hello world, POST (an entry's request)", hello, hello_out, hot.hello_post_one(hello_port)),
                ("API entry", app, app_out, (lambda entries=hot.api_entries(app_port): next(entries)))):
            phases_of(proc, out)  # forget the requests before these (warm-up, table setup)
            round_trips = [timed() for _ in range(args.samples)]
            rows.append((what, statistics.median(round_trips) * 1e6, phases_of(proc, out)["medians"]))
    finally:
        for p in (app, hello):
            p.terminate()
            p.wait()
    print(f"one request at a time, {args.samples} each; medians in µs (inside the server: gevent's handler)")
    print(f"{'':40} {'round trip':>10} {'request':>8} {'app':>8} {'answer':>8} {'log':>6} {'server':>8}")
    servers = [sum(m[phase] for phase in PHASES) for _, _, m in rows]
    for (what, trip, m), server in zip(rows, servers):
        print(f"{what:40} {trip:10.1f} {m['read_request']:8.1f} {m['app']:8.1f} {m['write_answer']:8.1f} "
              f"{m['log_request']:6.1f} {server:8.1f}   server x GET hello {server / servers[0]:.2f}")


def under_load(args, env: dict, tmp: Path) -> None:
    app_port, hello_port = hot.free_port(), hot.free_port()
    app = hot.start(hot.SERVER_CMD, app_port, env, tmp / "app.log")
    hello = hot.start(hot.HELLO_CMD.replace("{server}", "gevent"), hello_port, env, tmp / "hello.log")
    per = args.requests
    post_body = json.dumps(hot.HELLO_ENTRY).encode()
    try:
        loads = {
            "hello world, GET": (hello, hello_port, [[raw_request("GET", "/")] * per] * args.clients),
            "hello world, POST (an entry's request)": (
                hello, hello_port, [[raw_request("POST", "/entries", post_body, hot.HELLO_TOKEN)] * per] * args.clients),
            "API entry": (app, app_port, [entry_requests(app_port, per) for _ in range(args.clients)]),
        }
        results = {what: saturated(proc.pid, port, reqs) for what, (proc, port, reqs) in loads.items()}
    finally:
        for p in (app, hello):
            p.terminate()
            p.wait()
    print(f"\nsaturated: {args.clients} connections x {per} requests each, server CPU from /proc")
    base = results["hello world, GET"][0]
    for what, (cpu, rate, refused) in results.items():
        print(f"{what:40} {cpu:7.1f} µs CPU/request  {rate:8.0f}/s  not 2xx {refused}   x GET hello {cpu / base:.2f}")


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--timed":
        return timed_server(sys.argv[2], sys.argv[3:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=2000, help="requests one at a time, each kind")
    parser.add_argument("--requests", type=int, default=5000, help="requests per connection under load")
    parser.add_argument("--clients", type=int, default=4, help="connections (client processes) under load")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-entry-server-"))
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite'}", "SECRET_KEY": "bench",
           "PYTHONPATH": str(ROOT)}
    inside(args, env, tmp)
    env["DATABASE_URL"] = f"sqlite:///{tmp / 'load.sqlite'}"
    under_load(args, env, tmp)


if __name__ == "__main__":
    main()
