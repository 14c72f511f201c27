"""The server's connections send small answers at once (Nagle's algorithm off on each of them), a
small answer's headers and body in one send.

With Nagle on, gevent's two sends of a small answer (headers, then body) waited for the client's
delayed acknowledgement on every kept-alive request after the first: about 40 ms a fragment.
"""
from __future__ import annotations

import io
import socket as std_socket

import gevent
from gevent import socket

from companion.server import Handler, Server


class CountedSends:
    """The server's side of a connection, keeping each sendall's bytes."""

    def __init__(self, sock):
        self.sock, self.sends = sock, []

    def sendall(self, data):
        self.sends.append(bytes(data))
        return self.sock.sendall(data)

    def __getattr__(self, name):
        return getattr(self.sock, name)


def _one_request(server_for, while_answering=lambda conn: None, body=b"ok", wrap=lambda conn: conn) -> bytes:
    """One GET answered by the server `server_for(listener, app)` makes; the raw answer. The app
    answers `body` and calls `while_answering(conn)` with the server's side of the connection (as
    `wrap` gave it to the server)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    phone = socket.create_connection(listener.getsockname())
    conn, address = listener.accept()
    conn = wrap(conn)

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


def test_without_an_access_log_no_log_line_is_even_formatted():
    formatted = []

    class Counting(Handler):
        def format_request(self):
            formatted.append(self.requestline)
            return super().format_request()

    answer = _one_request(lambda listener, app: Server(listener, app, log=None, handler_class=Counting))
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"ok")
    assert formatted == []


def test_a_small_answer_leaves_in_one_send_headers_and_body_together():
    conns = []
    answer = _one_request(lambda listener, app: Server(listener, app, log=None), body=b"x" * 2000,
                          wrap=lambda conn: conns.append(CountedSends(conn)) or conns[-1])
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"\r\n\r\n" + b"x" * 2000)
    assert conns[0].sends == [answer]


def test_a_large_answer_still_arrives_whole_in_two_sends():
    conns = []
    big = bytes(range(256)) * 1024  # 256 KiB, over ONE_SEND_BYTES: not copied behind its headers
    answer = _one_request(lambda listener, app: Server(listener, app, log=None), body=big,
                          wrap=lambda conn: conns.append(CountedSends(conn)) or conns[-1])
    head, _, received = answer.partition(b"\r\n\r\n")
    assert received == big and b"Content-Length: 262144" in head
    assert conns[0].sends == [head + b"\r\n\r\n", big]
