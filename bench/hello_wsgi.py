"""A bare hello-world WSGI app on the server `python -m companion` uses: the baseline of
bench/bench_hot_paths.py (one request of the real app is measured as a multiple of one of these).

    python bench/hello_wsgi.py --port 8001 [--server waitress|gevent|auto]

`auto` picks gevent's WSGI server if `python -m companion` serves with it, else waitress.
"""
from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

MAIN = Path(__file__).resolve().parents[1] / "companion" / "__main__.py"


def hello(environ, start_response):
    if environ.get("PATH_INFO") == "/204":  # what an unchanged poll answers: nothing
        start_response("204 No Content", [])
        return [b""]
    if environ.get("REQUEST_METHOD") == "POST":  # what an entry is: a JSON body in, a short JSON answer out
        environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        body = b'{"seq":1,"version":1}\n'
        start_response("201 Created", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]
    body = b"Hello, world!"
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]


def companion_server() -> str:
    """Which server `python -m companion` runs (read from its source, so nothing is started)."""
    uses_gevent = "gevent" in MAIN.read_text() and importlib.util.find_spec("gevent") is not None
    return "gevent" if uses_gevent else "waitress"


def serve(app, server: str, host: str, port: int, threads: int) -> None:
    """`app` on the server software `python -m companion` runs (bench/floor_wsgi.py serves its floors so)."""
    if server == "gevent":
        from gevent import monkey
        monkey.patch_all()
        from companion.server import Server as WSGIServer  # the same server, Nagle off
        WSGIServer((host, port), app, log=None).serve_forever()
    else:
        from waitress import serve as waitress_serve
        waitress_serve(app, host=host, port=port, threads=threads, ident="hello")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--threads", type=int, default=8)  # as `python -m companion`
    parser.add_argument("--server", choices=("auto", "waitress", "gevent"), default="auto")
    args = parser.parse_args()
    server = companion_server() if args.server == "auto" else args.server
    print(f"hello world on {server} at http://{args.host}:{args.port}/", flush=True)
    serve(hello, server, args.host, args.port, args.threads)


if __name__ == "__main__":
    main()
