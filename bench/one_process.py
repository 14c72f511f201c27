"""`python -m companion` and the bare hello world in one server process: bench_hot_paths' `same_process`.

    python bench/one_process.py --port 8000 --hello-port 8001

The app is made and served as `python -m companion` serves it (gevent's cooperative sockets first,
the open-file limit raised, the collector's pauses shortened, companion.server's Server without an
access log); bench/hello_wsgi.py's app answers on a second listener of the same kind in the same
process. Timed one request after another, each request then meets the process as the other left it:
the interpreter, gevent's handler and the processor's caches are shared, as they would be for two
routes of one server. Timed in separate processes, each server sits idle while the others answer and
the bigger one finds more of its code pushed out of the caches (docs/benchmarks.md, 2026-12-04).
"""
from __future__ import annotations

if __name__ == "__main__":
    from gevent import monkey

    monkey.patch_all()  # first, as companion/__main__.py does

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion import create_app  # noqa: E402
from companion.__main__ import serve  # noqa: E402
from companion.server import Server  # noqa: E402
from hello_wsgi import hello  # noqa: E402  (bench/, this script's folder)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="the companion's port")
    parser.add_argument("--hello-port", type=int, required=True, help="the hello world's port")
    args = parser.parse_args()
    app = create_app()
    Server((args.host, args.hello_port), hello, log=None).start()  # answers while serve() runs
    print(f"companion on {args.port} and hello world on {args.hello_port}, one process", flush=True)
    serve(app, args.host, args.port)


if __name__ == "__main__":
    main()
