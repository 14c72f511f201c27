"""The server's connections send small answers at once (Nagle's algorithm off on each of them).

With Nagle on, gevent's two sends of a small answer (headers, then body) waited for the client's
delayed acknowledgement on every kept-alive request after the first: about 40 ms a fragment.
"""
from __future__ import annotations

import io
import socket as std_socket

import gevent
from gevent import socket

from companion.platform.web.serve import Server


def _one_request(server_for, while_answering=lambda conn: None, body=b"ok") -> bytes:
    """One GET answered by the server `server_for(listener, app)` makes; the raw answer. The app
    answers `body` and calls `while_answering(conn)` with the server's side of the connection."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    phone = socket.create_connection(listener.getsockname())
    conn, address = listener.accept()

    def app(environ, start_response):
        while_answering(conn)
        start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        return [body]

    worker = gevent.spawn(server_for(listener, app).handle, conn, address)
    phone.sendall(b"GET /sheet HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    answer = b""
    while chunk := phone.recv(4096):
        answer += chunk
    worker.join(timeout=5)
    phone.close()
    listener.close()
    return answer


def test_every_accepted_connection_has_nagle_off():
    option_while_answering = []
    answer = _one_request(lambda listener, app: Server(listener, app, log=None), lambda conn: (
        option_while_answering.append(conn.getsockopt(std_socket.IPPROTO_TCP, std_socket.TCP_NODELAY))))
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"ok")
    assert option_while_answering and option_while_answering[0] != 0


def test_an_access_log_given_to_the_server_gets_a_line_per_request():
    log = io.StringIO()
    answer = _one_request(lambda listener, app: Server(listener, app, log=log))
    assert answer.endswith(b"ok")
    assert '"GET /sheet HTTP/1.1" 200 ' in log.getvalue()
