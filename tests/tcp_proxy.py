"""A TCP proxy on loopback that the test controls: it passes bytes both ways and, while told to,
holds every connection that has sent a given word (say b"LISTEN") without closing it, as a
connection a firewall forgot or a frozen peer would: nothing arrives, nothing fails."""
from __future__ import annotations

import socket
import threading


class StallingProxy:
    def __init__(self, upstream: tuple[str, int], marker: bytes):
        self.upstream, self.marker = upstream, marker
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.stalled = threading.Event()
        self.closed = threading.Event()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def stall(self) -> None:
        self.stalled.set()

    def resume(self) -> None:
        self.stalled.clear()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.upstream)
            self.sockets += [client, server]
            marked = threading.Event()  # this connection has sent the marker
            threading.Thread(target=self._pump, args=(client, server, marked, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, marked, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, marked: threading.Event, from_client: bool):
        source.settimeout(0.1)
        while not self.closed.is_set():
            if marked.is_set() and self.stalled.is_set():
                self.closed.wait(0.05)  # held: read nothing, pass nothing, close nothing
                continue
            try:
                data = source.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
            if from_client and self.marker in data:
                marked.set()
            try:
                sink.sendall(data)
            except OSError:
                break
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self) -> None:
        self.closed.set()
        self.listener.close()
        for s in self.sockets:
            s.close()
