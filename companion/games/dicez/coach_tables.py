"""The coach's solved tables on disk: one file per set of scoring options, built once.

A table is built by its own process (`python -m companion.games.dicez.coach_tables build`), so a
server with several worker processes builds it once and no request waits on ten seconds of numpy.
While it builds, `<name>.progress` holds the fraction done (the host screen shows it) and the
terminal that started the server shows a progress bar. The folder is DICEZ_COACH_DIR (app config
or environment) or `instance/coach/`.

    python -m companion.games.dicez.coach_tables build [--joker] [--extra-dicez-bonus] [--five-of-a-kind-full-house]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import solver

STALE_SECONDS = 60  # a build whose progress file has not moved for this long has died
_loaded: dict[Path, solver.Table] = {}


@dataclass(frozen=True)
class Status:
    """What the coach can do now for a set of options: `table` once built, else the build's progress."""

    table: solver.Table | None
    progress: float | None  # 0..1 while building; None when built or not started


def folder_for(app) -> Path:
    chosen = app.config.get("DICEZ_COACH_DIR") or os.environ.get("DICEZ_COACH_DIR")
    return Path(chosen) if chosen else Path(app.instance_path) / "coach"


def path_for(folder: Path, options: dict) -> Path:
    return Path(folder) / f"{solver.options_key(options)}.npz"


def save(table: solver.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
    np.savez(tmp, future=table.future, plain=table.score.plain, alike=table.score.alike,
             extra=table.score.extra)
    os.replace(tmp, path)  # readers see the whole file or none


def load(path: Path, options: dict) -> solver.Table | None:
    path = Path(path)
    if path in _loaded:
        return _loaded[path]
    if not path.exists():
        return None
    with np.load(path) as data:
        score = solver.Scoring(data["plain"], data["alike"], data["extra"])
        table = solver.Table(solver.scoring_options(options), data["future"], score)
    _loaded[path] = table
    return table


def _progress_file(path: Path) -> Path:
    return path.with_suffix(".progress")


def progress(path: Path) -> float | None:
    """The fraction a live build has done, or None if none is under way."""
    marker = _progress_file(path)
    try:
        if time.time() - marker.stat().st_mtime > STALE_SECONDS:
            return None
        return float(marker.read_text() or 0)
    except (OSError, ValueError):
        return None


def status(folder: Path, options: dict, start: bool = True) -> Status:
    """The table if it is built; otherwise start its build (once, whoever asks) and say how far it is."""
    path = path_for(folder, options)
    table = load(path, options)
    if table is not None:
        return Status(table, None)
    done = progress(path)
    if done is None and start:
        done = _start_build(path, options)
    return Status(None, done)


def _start_build(path: Path, options: dict) -> float:
    path.parent.mkdir(parents=True, exist_ok=True)
    marker = _progress_file(path)
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        if progress(path) is not None:
            return progress(path) or 0.0
        marker.unlink(missing_ok=True)  # left by a build that died: take over
        return _start_build(path, options)
    os.write(fd, b"0")
    os.close(fd)
    flags = [f"--{name.replace('_', '-')}" for name, on in solver.scoring_options(options).items() if on]
    # the server's own stdout/stderr: the progress bar shows in the terminal that started it
    subprocess.Popen([sys.executable, "-m", __name__, "build", "--dir", str(path.parent), *flags],
                     cwd=Path(__file__).resolve().parents[3], start_new_session=True)
    return 0.0


def build_into(folder: Path, options: dict, out=sys.stderr) -> solver.Table:
    """Build one table, showing a progress bar on `out` and in the progress file, then save it."""
    path = path_for(folder, options)
    path.parent.mkdir(parents=True, exist_ok=True)
    marker = _progress_file(path)
    bar = ProgressBar(out, describe(options))
    last = [0.0]

    def report(done: float) -> None:
        bar.show(done)
        if done - last[0] >= 0.01 or done >= 1:
            last[0] = done
            marker.write_text(f"{done:.3f}")

    marker.write_text("0")
    try:
        table = solver.build(options, report)
        save(table, path)
    finally:
        marker.unlink(missing_ok=True)
    bar.finish(table.expected(0, 0, False))
    return table


def describe(options: dict) -> str:
    on = [name.replace("_", " ") for name, value in solver.scoring_options(options).items() if value]
    return "DiceZ coach, " + (", ".join(on) if on else "seed rules")


class ProgressBar:
    """A one-line bar on a terminal; on anything else a line every tenth."""

    WIDTH = 30

    def __init__(self, out, label: str):
        self.out, self.label, self.started, self.tenth = out, label, time.perf_counter(), -1
        self.tty = hasattr(out, "isatty") and out.isatty()

    def show(self, done: float) -> None:
        filled = int(done * self.WIDTH)
        text = f"{self.label}: [{'#' * filled}{'.' * (self.WIDTH - filled)}] {done:4.0%} {self._seconds()}"
        if self.tty:
            print("\r" + text, end="", file=self.out, flush=True)
        elif int(done * 10) > self.tenth:
            self.tenth = int(done * 10)
            print(text, file=self.out, flush=True)

    def finish(self, expected: float) -> None:
        print(("\n" if self.tty else "") + f"{self.label}: built in {self._seconds()}; "
              f"expected score from an empty sheet {expected:.2f}", file=self.out, flush=True)

    def _seconds(self) -> str:
        return f"{time.perf_counter() - self.started:.1f} s"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {__name__}", description="Build the DiceZ coach's table.")
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="solve DiceZ for one set of house rules and store the table")
    build.add_argument("--dir", help="where tables are kept (default: DICEZ_COACH_DIR or instance/coach)")
    for name in solver.SCORING_OPTIONS:
        build.add_argument(f"--{name.replace('_', '-')}", action="store_true", dest=name)
    args = parser.parse_args(argv)
    folder = Path(args.dir or os.environ.get("DICEZ_COACH_DIR")
                  or Path(__file__).resolve().parents[3] / "instance" / "coach")
    build_into(folder, {name: getattr(args, name) for name in solver.SCORING_OPTIONS})
    return 0


if __name__ == "__main__":
    sys.exit(main())
