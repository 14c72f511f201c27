"""Measure the dice reader on photos it never saw (prints figures; asserts nothing).

    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_dice_reader.py [--data shared/datasets/dice-photos/test]

For every labelled die: found (a read die whose box overlaps it by IoU >= 0.3) and read with the right
face. Also: read dice that match no labelled die (false dice per photo), time per photo on one core
(opening the JPEG included; the reader runs single-threaded and the process is pinned to one core),
and DiceZ's case: of the photos with at least five dice, the share whose five most confident read dice
are all real dice read right.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from companion.dice_reader import iou, read_photo  # noqa: E402

FACE_WORDS = ("one", "two", "three", "four", "five", "six")
DATA_SET = Path("shared") / "datasets" / "dice-photos"
# the data set lies in shared/ beside the repository (or beside the folder of work trees)
DEFAULT_DATA = next((folder / DATA_SET for folder in Path(__file__).resolve().parents if (folder / DATA_SET).is_dir()),
                    DATA_SET) / "test"
MATCH_IOU = 0.3


def labelled_dice(path: Path) -> list[tuple[int, tuple[float, float, float, float]]]:
    dice = []
    for line in path.read_text().split("\n"):
        parts = line.split()
        if len(parts) == 5:
            cx, cy, w, h = map(float, parts[1:])
            dice.append((FACE_WORDS.index(parts[0]) + 1, (cx - w / 2, cy - h / 2, w, h)))
    return dice


def match(read, labelled) -> list[int | None]:
    """For each read die (most confident first), the labelled die it stands for, or None."""
    taken: set[int] = set()
    matched = []
    for die in read:
        overlaps = [(iou(die.box, box), index) for index, (_face, box) in enumerate(labelled) if index not in taken]
        best = max(overlaps, default=(0.0, None))
        if best[0] >= MATCH_IOU:
            taken.add(best[1])
            matched.append(best[1])
        else:
            matched.append(None)
    return matched


def score_photo(read, labelled) -> dict:
    matched = match(read, labelled)
    right = [index is not None and labelled[index][0] == die.face for die, index in zip(read, matched)]
    return {"labelled": len(labelled), "found": sum(index is not None for index in matched), "right": sum(right),
            "false": sum(index is None for index in matched), "top_five_right": all(right[:5]) and len(right) >= 5}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    photos = sorted((args.data / "images").glob("*.jpg"))
    read_photo(photos[0].read_bytes())  # load the networks before timing
    scores, times = [], []
    for path in photos:
        data = path.read_bytes()
        started = time.perf_counter()
        reading = read_photo(data)
        times.append((time.perf_counter() - started) * 1000)
        scores.append(score_photo(reading.dice, labelled_dice(args.data / "labels" / f"{path.stem}.txt")))
    labelled = sum(s["labelled"] for s in scores)
    five_or_more = [s for s in scores if s["labelled"] >= 5]
    print(f"photos {len(scores)}, labelled dice {labelled}")
    print(f"dice found:            {sum(s['found'] for s in scores) / labelled:.1%}")
    print(f"dice read right:       {sum(s['right'] for s in scores) / labelled:.1%}  (target >= 97 %)")
    print(f"false dice per photo:  {sum(s['false'] for s in scores) / len(scores):.2f}  (target <= 0.1)")
    print(f"ms per photo, median:  {statistics.median(times):.0f}  (max {max(times):.0f}; target <= 300)")
    print(f"photos with >= 5 dice whose five most confident are all right: "
          f"{sum(s['top_five_right'] for s in five_or_more)}/{len(five_or_more)} "
          f"({sum(s['top_five_right'] for s in five_or_more) / max(1, len(five_or_more)):.1%})")


if __name__ == "__main__":
    main()
