"""The WSGI server `python -m companion` runs: gevent's, with Nagle's algorithm off per connection.

gevent's pywsgi writes a small answer in two sends (the headers, then the body). On a kept-alive
connection with Nagle's algorithm on, the kernel holds the body back until the client acknowledges
the headers, and clients delay that acknowledgement by up to 40 ms: every small answer after a
connection's first (a fragment, an entry's reply, a poll) then took about 44 ms instead of under one.
gunicorn sets TCP_NODELAY on its listening socket for the same reason; set here on each accepted
socket, it holds on every system (not all of them copy the option from the listener).
"""
from __future__ import annotations

import gc
import socket

from gevent.pywsgi import WSGIServer


class Server(WSGIServer):
    def handle(self, sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().handle(sock, address)


# A full collection (generation 2) walks every tracked object of the process and holds every
# request meanwhile. Under load (200 tables, 900 open streams) CPython ran one every 2 to 3 s, each
# 85 to 130 ms of CPU, collecting nothing: the largest part of the entries' p99 (bench/load.py).
FULL_COLLECTION_EVERY = 1000  # collections of generation 1 (CPython's default: 10)


def shorten_collector_pauses() -> None:
    """Freeze what the process holds from its start (modules, templates, rules tables: they live
    as long as the process, and the collector no longer walks them) and make full collections
    rare. Cycles still get collected; the young generations run as often as before."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
