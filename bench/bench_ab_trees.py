"""The API entry of two source trees side by side, with both hello worlds, in shuffled order.

    python bench/bench_ab_trees.py OLD_TREE NEW_TREE [--rounds 6000]

A change to the entry path moves its round trip by a few per cent, less than this machine drifts
between two runs of bench_hot_paths.py. So both trees' servers (`python -m companion` started in
each tree, each on its own SQLite file) and the hello world run at once, and each round sends one
request to each of the four (an entry to either tree, the GET hello, the POST hello) in a new random
order: drift falls on all four alike. Give the same tree twice for an A/A pair (the noise).
Prints medians, p99 and the ratios. Asserts nothing about time.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
from pathlib import Path

import bench_hot_paths as hot  # bench/, this script's folder
import load  # bench/load.py: its percentile


def servers(trees: list[Path], tmp: Path):
    """(processes, {name: one timed request}) for an entry to each tree and both hello worlds."""
    procs, calls = [], {}
    for name, tree in zip(("old", "new"), trees):
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp / (name + '.sqlite')}", "SECRET_KEY": "bench"}
        port = hot.free_port()
        procs.append(hot.start(hot.SERVER_CMD, port, env, tmp / f"{name}.log", cwd=tree))
        calls[name] = (lambda entries=hot.api_entries(port): next(entries))
    port = hot.free_port()
    procs.append(hot.start(hot.HELLO_CMD.replace("{server}", "gevent"), port, dict(os.environ), tmp / "hello.log"))
    calls["GET hello"], calls["POST hello"] = hot.hello_one(port), hot.hello_post_one(port)
    return procs, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=6000)
    args = parser.parse_args()
    procs, calls = servers([Path(args.old).resolve(), Path(args.new).resolve()],
                           Path(tempfile.mkdtemp(prefix="bench-ab-")))
    try:
        for _ in range(200):  # warm-up: imports, caches, the first tables
            for call in calls.values():
                call()
        times = {name: [] for name in calls}
        order = list(calls)
        for _ in range(args.rounds):
            random.shuffle(order)
            for name in order:
                times[name].append(calls[name]())
    finally:
        for p in procs:
            p.terminate()
            p.wait()
    median = {name: statistics.median(v) * 1e6 for name, v in times.items()}
    print(f"{args.rounds} rounds; µs")
    for name, v in times.items():
        print(f"{name:12} median {median[name]:7.1f}   p99 {load.pct(v, 99) * 1000:7.1f}")
    print(f"new / old {median['new'] / median['old']:.3f}")
    for name in ("old", "new"):
        print(f"{name} entry: {median[name] / median['GET hello']:.2f} x the GET hello, "
              f"{median[name] / median['POST hello']:.2f} x the POST hello")


if __name__ == "__main__":
    main()
