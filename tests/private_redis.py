"""A Redis server of the test's own, in a temporary folder on a free port, that the test may freeze
(SIGSTOP: it holds its connections and answers nothing, as a stalled Redis does) and thaw (SIGCONT).

The machine's shared Redis (port 6379) is never touched.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

from tests.browser_fixtures import _free_port


class PrivateRedis:
    def __init__(self):
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("no redis-server binary: cannot start a private Redis")
        self.dir = tempfile.mkdtemp(prefix="companion-redis-", dir="/tmp")
        self.port = _free_port()
        self.proc = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir, "--logfile", os.path.join(self.dir, "log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_until_it_answers()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _wait_until_it_answers(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the private redis-server did not start")

    def freeze(self) -> None:
        os.kill(self.proc.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.kill(self.proc.pid, signal.SIGCONT)

    def close(self) -> None:
        self.thaw()
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def private_redis():
    server = PrivateRedis()
    try:
        yield server
    finally:
        server.close()
