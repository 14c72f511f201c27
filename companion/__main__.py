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
import socket
import sys

from .platform.faults import first_line
from .platform.qr import terminal_qr


def interface_addresses() -> list[str]:
    """IPv4 addresses of this machine's network interfaces (Linux), read without sending anything."""
    import fcntl
    import struct

    found = []
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
            except OSError:
                continue  # no IPv4 address on this interface
        found.append(socket.inet_ntoa(packed[20:24]))
    return found


def lan_address() -> str:
    """The address phones on the same network can reach: not loopback (Debian maps the host name
    to 127.0.1.1, so the host name alone is not enough)."""
    candidates = []
    try:
        candidates += interface_addresses()
    except (ImportError, OSError, AttributeError):
        pass
    try:
        candidates += [info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass
    for addr in candidates:
        if not addr.startswith("127."):
            return addr
    return "127.0.0.1"


def parse(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m companion", description="Run the game companion server.")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all, for the LAN)")
    parser.add_argument("--port", type=int, default=8000)
    commands = parser.add_subparsers(dest="command", metavar="{export-all,import-all}",
                                     help="instead of serving: back up or restore the database")
    out = commands.add_parser("export-all", help="write every table and game to FILE (JSON)")
    out.add_argument("file", metavar="FILE", help="where to write the backup ('-': standard output)")
    into = commands.add_parser("import-all", help="add every table and game in FILE to the database")
    into.add_argument("file", metavar="FILE", help="a backup made by export-all ('-': standard input)")
    return parser.parse_args(argv)


def backup(command: str, path: str) -> int:
    """Run export-all or import-all; report to stderr (stdout may be the backup itself)."""
    from sqlalchemy.exc import OperationalError

    from . import create_app
    from .platform import backup as bk

    try:
        store = create_app().extensions["store"]
        if command == "export-all":
            counts = bk.export_all(store.engine, path)
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
        sys.exit(backup(args.command, args.file))

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


def raise_open_file_limit() -> None:
    """Every open page holds a connection: lift this process's soft limit on open files (often
    1,024) to the hard limit the system allows."""
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass  # e.g. macOS refuses RLIM_INFINITY: keep the soft limit


def serve(app, host: str, port: int) -> None:
    """gevent's WSGI server: one greenlet per connection, keep-alive, epoll/kqueue (no select() ceiling)."""
    from .server import Server, shorten_collector_pauses

    raise_open_file_limit()
    shorten_collector_pauses()
    server = Server((host, port), app, log=None)  # no access log: thousands of phones
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.stop(timeout=1)


if __name__ == "__main__":
    main()
