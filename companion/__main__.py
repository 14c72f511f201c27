"""`python -m companion`: serve the app on the LAN and print the join address and QR code."""
from __future__ import annotations

import argparse
import io
import socket

import qrcode


def lan_address() -> str:
    """This machine's address on the local network, found without sending any packet."""
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            addr = info[4][0]
            if not addr.startswith("127."):
                return addr
    except OSError:
        pass
    return "127.0.0.1"


def terminal_qr(text: str) -> str:
    qr = qrcode.QRCode(border=1)
    qr.add_data(text)
    out = io.StringIO()
    qr.print_ascii(out=out, invert=True)
    return out.getvalue()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Run the game companion server.")
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all, for the LAN)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args(argv)

    from waitress import serve

    from . import create_app

    app = create_app()
    host = lan_address() if args.host == "0.0.0.0" else args.host
    url = app.config.get("PUBLIC_URL") or f"http://{host}:{args.port}/"
    app.config["PUBLIC_URL"] = url
    app.config["ANNOUNCE_TABLES"] = True
    print(f"Game companion is running. Open this on the host's phone or tablet:\n\n  {url}\n")
    print(terminal_qr(url))
    print(f"Storage: {app.config['DATABASE_URL']}\nStop with Ctrl+C.", flush=True)
    serve(app, host=args.host, port=args.port, threads=args.threads, ident="companion")


if __name__ == "__main__":
    main()
