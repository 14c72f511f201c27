"""The WSGI server `python -m companion` runs: gevent's, with Nagle's algorithm off per connection.

gevent's pywsgi writes a small answer in two sends (the headers, then the body). On a kept-alive
connection with Nagle's algorithm on, the kernel holds the body back until the client acknowledges
the headers, and clients delay that acknowledgement by up to 40 ms: every small answer after a
connection's first (a fragment, an entry's reply, a poll) then took about 44 ms instead of under one.
gunicorn sets TCP_NODELAY on its listening socket for the same reason; set here on each accepted
socket, it holds on every system (not all of them copy the option from the listener).

It also sends a small answer's headers and body together (Handler._write_with_headers).

With no access log (`log=None`, as `python -m companion` serves), gevent still formats each request's
log line (a timestamp and five fields) and hands it to a log that drops it. That is about 8 µs of
CPU a request, 12 after an entry has pushed gevent's code out of the processor's cache, spent once
the answer is sent (docs/benchmarks.md, 2026-12-03). The handler here formats it only for a log that
keeps it.
"""
from __future__ import annotations

import gc
import socket

from gevent.pywsgi import WSGIHandler, WSGIServer


# An answer up to this size leaves in one send, its headers and body together (see Handler)
ONE_SEND_BYTES = 64 * 1024


class Handler(WSGIHandler):
    _gathered: list | None = None  # while set, what gevent would send is kept here instead

    def log_request(self):
        if self.server.keeps_access_log:
            super().log_request()

    def _write_with_headers(self, data):
        """gevent sends the headers, then the body: two system calls, two packets, and a client that
        wakes for the headers and waits again for the body. Up to ONE_SEND_BYTES the two go as one
        send (copying that much costs less than a second system call)."""
        if not data or len(data) > ONE_SEND_BYTES:
            return super()._write_with_headers(data)
        self._gathered = []
        try:
            super()._write_with_headers(data)
        finally:
            parts, self._gathered = self._gathered, None
        super()._sendall(b"".join(parts))

    def _sendall(self, data):
        if self._gathered is None:
            super()._sendall(data)
        else:
            self._gathered.append(data)  # gevent makes each part anew: no copy needed until the join


class Server(WSGIServer):
    handler_class = Handler

    def __init__(self, listener, application=None, log="default", **kwargs):
        super().__init__(listener, application, log=log, **kwargs)
        self.keeps_access_log = log is not None

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
