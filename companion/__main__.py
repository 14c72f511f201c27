"""`python -m companion`: serve the app on the LAN and print the join address and QR code.

`python -m companion export-all FILE` / `import-all FILE`: back up every table and game of the
database DATABASE_URL names (the server's), or restore a backup into it.
"""
from __future__ import annotations

if __name__ == "__main__":
    # First, before anything else is imported: gevent's cooperative sockets, threads and sleeps, so
    # that one process holds thousands of open live streams (psycopg sees the patch and waits with
    # select instead of its C loop). Only when run as the server: importing this module patches nothing.
    from gevent import monkey

    monkey.patch_all()

import argparse
import os
import sys

from .platform.address import lan_address
from .platform.faults import first_line
from .platform.qr import terminal_qr


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m companion", description="Run the game companion server.")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all, for the LAN)")
    parser.add_argument("--port", type=int, default=8000)
    commands = parser.add_subparsers(dest="command", metavar="{export-all,import-all}",
                                     help="instead of serving: back up or restore the database")
    out = commands.add_parser("export-all", help="write every table and game to FILE (JSON)")
    out.add_argument("file", metavar="FILE", help="where to write the backup ('-': standard output)")
    out.add_argument("--without-secrets", action="store_true",
                     help="a file safe to share: no seat or host tokens, join links or PINs (seats must be joined again)")
    into = commands.add_parser("import-all", help="add every table and game in FILE to the database")
    into.add_argument("file", metavar="FILE", help="a backup made by export-all ('-': standard input)")
    return parser.parse_args(argv)


def backup(command: str, path: str, without_secrets: bool = False) -> int:
    """Run export-all or import-all; report to stderr (stdout may be the backup itself)."""
    from sqlalchemy.exc import OperationalError

    from . import create_app
    from .platform import backup as bk

    try:
        store = create_app().extensions["store"]
        if command == "export-all":
            counts = bk.export_all(store.engine, path, without_secrets)
            said = ", ".join(f"{name} {n}" for name, n in counts.items())
            print(f"Exported to {path}: {said}.", file=sys.stderr)
        else:
            done = bk.import_all(store.engine, path)
            said = ", ".join(f"{name} {added}" for name, (added, _) in done.items())
            skipped = sum(s for _, s in done.values())
            print(f"Imported from {path}: {said}"
                  + (f" ({skipped} identical rows were there already)." if skipped else "."), file=sys.stderr)
    except bk.BackupError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
        return 1
    except OperationalError as exc:
        print(f"{command}: the database cannot be reached: {first_line(exc)}", file=sys.stderr)
        return 1
    return 0


def main(argv=None) -> None:
    args = parse(argv)
    if args.command:
        sys.exit(backup(args.command, args.file, getattr(args, "without_secrets", False)))

    from sqlalchemy.exc import OperationalError

    from . import create_app

    try:
        app = create_app()
    except OperationalError as exc:
        sys.exit(f"The database cannot be reached, so the server did not start: {first_line(exc)}")
    host = lan_address() if args.host == "0.0.0.0" else args.host
    url = app.config.get("PUBLIC_URL") or f"http://{host}:{args.port}/"
    app.config["PUBLIC_URL"] = url
    app.config["ANNOUNCE_TABLES"] = True
    print(f"Game companion is running. Open this on the host's phone or tablet:\n\n  {url}\n")
    print(terminal_qr(url))
    print(f"Storage: {app.config['DATABASE_URL']}\nStop with Ctrl+C.", flush=True)
    serve(app, args.host, args.port)


# Soft limits to ask for when the hard limit cannot be taken as it is: Linux's usual cap on a
# process's open files (fs.nr_open), then smaller ones down to macOS's OPEN_MAX. macOS reports an
# unlimited hard limit, refuses it and anything above kern.maxfilesperproc, and its setrlimit(2) page
# says to use min(OPEN_MAX, hard) instead.
FALLBACK_OPEN_FILES = (1_048_576, 65_536, 10_240)


def open_file_limits_to_try(soft: int, hard: int, unlimited: int) -> list[int]:
    """Soft limits above `soft` to ask for, largest first: the hard limit, then the fallbacks under it."""
    wanted = [] if hard == unlimited else [hard]
    wanted += [n for n in FALLBACK_OPEN_FILES if hard == unlimited or n < hard]
    return [n for n in wanted if n > soft]


def raise_open_file_limit(limits=None) -> int | None:
    """Every open page holds a connection: lift this process's soft limit on open files (often 1,024,
    256 on macOS) as far as the system lets one process go. `limits`: the `resource` module. Returns
    the soft limit now in force, or None where there is no such limit (Windows)."""
    if limits is None:
        try:
            import resource as limits
        except ImportError:  # Windows: no such limit
            return None
    soft, hard = limits.getrlimit(limits.RLIMIT_NOFILE)
    for wanted in open_file_limits_to_try(soft, hard, limits.RLIM_INFINITY):
        try:
            limits.setrlimit(limits.RLIMIT_NOFILE, (wanted, hard))
            return wanted
        except (ValueError, OSError):
            continue  # more than this system allows one process: ask for less
    return soft


def connection_limits(app, environ=None) -> dict:
    """The server's deadlines and per-client bound (companion/server.py), from the environment:
    REQUEST_READ_SECONDS, KEEPALIVE_SECONDS, MAX_CONNECTIONS_PER_CLIENT (0: none). Behind a
    reverse proxy (TRUST_PROXY) every connection comes from the proxy: the bound is its to keep."""
    from . import server

    environ = os.environ if environ is None else environ

    def number(name: str, default: float) -> float:
        raw = environ.get(name) or ""
        try:
            return default if raw == "" else max(float(raw), 0.0)
        except ValueError:
            raise SystemExit(f"{name} must be a number (0: none); got {raw!r}.") from None

    per_client = 0 if app.config.get("TRUST_PROXY") else int(number("MAX_CONNECTIONS_PER_CLIENT",
                                                                    server.CONNECTIONS_PER_CLIENT))
    return {"read_seconds": number("REQUEST_READ_SECONDS", server.READ_SECONDS),
            "idle_seconds": number("KEEPALIVE_SECONDS", server.IDLE_SECONDS),
            "connections_per_client": per_client,
            "max_body": app.config.get("MAX_CONTENT_LENGTH") or server.MAX_BODY}


def serve(app, host: str, port: int) -> None:
    """gevent's WSGI server: one greenlet per connection, keep-alive, no descriptor ceiling (README)."""
    from .server import Server, shorten_collector_pauses

    raise_open_file_limit()
    shorten_collector_pauses()
    # no access log: thousands of phones
    server = Server((host, port), app, log=None, **connection_limits(app))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.stop(timeout=1)


if __name__ == "__main__":
    main()
