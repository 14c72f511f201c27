"""SQLite's checkpoints, moved off the request path.

In WAL mode SQLite writes each commit to the `-wal` file and, once that holds 1,000 pages, copies it
back into the database file during the commit that crossed the line (a checkpoint), with an fsync of
both files. On this machine's virtual disk that fsync took from a few to about 100 ms, about every
250 entries. Under gevent the whole process waits for it: every phone's stream and fetch, not only the
entry that happened to commit then. The entry path's mean commit was 50-200 µs though its median is
15 µs (the benchmark diary, now in git history).

So commits leave the work to a `Checkpointer`: every CHECKPOINT_SECONDS, if the database changed, it
runs a PASSIVE checkpoint (which never blocks a writer) from a real thread of the operating system, so
the fsync holds no request. What it syncs and when is what SQLite did before (the durability of
`synchronous=NORMAL`): a commit is on disk through the operating system at once, and synced at the next
checkpoint. If it falls behind (a reader holding the log), a commit still checkpoints once the log
reaches BACKSTOP_PAGES.

SQLite starts writing its log from the beginning again only when a commit finds every frame of it
copied into the database file. A PASSIVE checkpoint copies what was logged when it began, so while
entries came in back to back (each commit landing while the checkpoint ran) the log never started
over: it grew to the backstop's 80 MB, and every commit wrote to new blocks at the end of the file,
which the kernel allocated and zeroed (9 % of the server's CPU, measured 2026-12-03). So
when a checkpoint found more than RESTART_FRAMES in the log, a second one follows at once with this
process's writers held back (`writers`: a lock the store holds around each entry's commit; under
gevent they wait as greenlets while the other requests go on). It copies only what was committed during the
first (held 2-5 ms here, once a second and only under such a stream), and the next commit starts the
log over. An entry's round trip under that stream: 3-7 % quicker.
"""
from __future__ import annotations

import logging
import os
import sqlite3
import threading
from contextlib import AbstractContextManager

log = logging.getLogger(__name__)

CHECKPOINT_SECONDS = 1.0
BACKSTOP_PAGES = 20_000  # about 80 MB of log: SQLite's own checkpoint, only if this one fell behind
RESTART_FRAMES = 1_000  # SQLite's own checkpoint size: a longer log at a checkpoint gets the second pass


def off_the_loop(fn):
    """`fn()`, from a thread of the operating system when gevent has made threads cooperative (a
    call that blocks in C would otherwise hold every greenlet), else here."""
    try:
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return fn()
    if not monkey.is_module_patched("threading"):
        return fn()
    import gevent

    return gevent.get_hub().threadpool.apply(fn)


class Checkpointer:
    """The checkpoints of one SQLite file, for the process that writes it (started at its first
    connection, so a pre-forking server starts one in each worker)."""

    def __init__(self, path: str, interval: float = CHECKPOINT_SECONDS):
        self.path, self.interval = path, interval
        self.stopped = threading.Event()
        self.pid: int | None = None
        self.runs = 0  # checkpoints made (the tests wait for one)
        # held by the store around each entry's commit, and here for the second pass: this process's
        # entries wait while it runs
        self.writers: AbstractContextManager = threading.Lock()

    def ensure_running(self) -> None:
        if self.pid == os.getpid() or self.stopped.is_set():
            return
        self.pid = os.getpid()
        threading.Thread(target=self._loop, name="companion-sqlite-checkpoints", daemon=True).start()

    def checkpoint(self, conn: sqlite3.Connection) -> None:
        """Copy the log into the database file, so that the next commit can start it over."""
        def passive() -> tuple[int, int, int]:  # (busy, frames in the log, frames copied)
            return conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()

        _, logged, _ = off_the_loop(passive)
        if logged > RESTART_FRAMES:
            with self.writers:  # nothing of this process is committed meanwhile: all of the log is copied
                off_the_loop(passive)

    def stop(self) -> None:
        self.stopped.set()

    def _loop(self) -> None:
        conn, seen = None, None
        while not self.stopped.wait(self.interval):
            try:
                conn = conn or sqlite3.connect(self.path, timeout=1, check_same_thread=False)
                version = conn.execute("PRAGMA data_version").fetchone()[0]  # moves with others' commits
                if version != seen:
                    self.checkpoint(conn)
                    seen, self.runs = version, self.runs + 1
            except sqlite3.Error:
                log.warning("could not checkpoint %s; SQLite's own checkpoint still runs", self.path, exc_info=True)
                if conn is not None:
                    conn.close()
                conn, seen = None, None
        if conn is not None:
            conn.close()
