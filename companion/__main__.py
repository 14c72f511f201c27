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
import sys

from .platform.web.address import lan_address
from .platform.web.faults import first_line
from .platform.web.qr import terminal_qr
from .platform.web.serve import serve


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
    from .platform.store import backup as bk

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


if __name__ == "__main__":
    main()
