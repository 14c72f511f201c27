"""A PostgreSQL server of the test's own, in a temporary folder, that the test may stop and start.

The machine's shared server (port 5432) is never touched. initdb refuses to run as root, so as
root the server runs as the `postgres` system user, in a folder handed to it.
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile

import pytest

from tests.browser_fixtures import _free_port


def _bin_dir() -> str | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return os.path.dirname(found[-1])
    on_path = shutil.which("initdb")
    return os.path.dirname(on_path) if on_path else None


class PrivatePostgres:
    def __init__(self):
        self.bin = _bin_dir()
        if self.bin is None:
            pytest.skip("no initdb binary (PostgreSQL server package not installed): cannot start a private server")
        self.as_user: list[str] = []
        owner = None
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root and there is no postgres user to run initdb as")
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.dir = tempfile.mkdtemp(prefix="companion-pg-", dir="/tmp")
        if owner is not None:
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
        self.data = os.path.join(self.dir, "data")
        self.port = _free_port()
        self._run("initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        self.start()
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "companion")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/companion"

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run([*self.as_user, os.path.join(self.bin, tool), *args],
                              capture_output=True, text=True, cwd=self.dir)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed: {done.stdout}{done.stderr}")

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={self.dir} -c fsync=off"
        self._run("pg_ctl", "-D", self.data, "-o", options, "-l", os.path.join(self.dir, "log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")

    def close(self) -> None:
        subprocess.run([*self.as_user, os.path.join(self.bin, "pg_ctl"), "-D", self.data, "-m", "immediate",
                        "-w", "stop"], capture_output=True, cwd=self.dir)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def private_postgres():
    server = PrivatePostgres()
    try:
        yield server
    finally:
        server.close()
