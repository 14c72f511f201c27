"""The WSGI server `python -m companion` runs: gevent's, with Nagle's algorithm off per connection.

gevent's pywsgi writes a small answer in two sends (the headers, then the body). On a kept-alive
connection with Nagle's algorithm on, the kernel holds the body back until the client acknowledges
the headers, and clients delay that acknowledgement by up to 40 ms: every small answer after a
connection's first (a fragment, an entry's reply, a poll) then took about 44 ms instead of under one.
gunicorn sets TCP_NODELAY on its listening socket for the same reason; set here on each accepted
socket, it holds on every system (not all of them copy the option from the listener).
"""
from __future__ import annotations

import socket

from gevent.pywsgi import WSGIServer


class Server(WSGIServer):
    def handle(self, sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().handle(sock, address)
