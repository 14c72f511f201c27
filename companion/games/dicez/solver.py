"""The exact DiceZ coach: optimal solitaire play (maximum expected final score), built with numpy.

A position between turns is (filled boxes, upper total capped at 63, whether the DiceZ box holds 50);
the last only matters with the extra DiceZ bonus (DZ-16). `build` fills `Table.future`: the expected
points still to come from each position with optimal play. Positions are solved from the fullest
sheets back to the empty one, all positions with the same number of filled boxes at once.

Within a turn the dice are sorted multisets: the 252 outcomes of five dice and the 462 keeps of 0..5
dice. The value of a keep is the mean, over the six faces, of the keep with one more die (rolling
the rest one die at a time gives the same distribution), and the best keep inside an outcome is found
by taking one die off at a time. That makes a turn about 8,000 array operations per position
instead of 252 x 462 products.

Box scores come from the rules (`rules.preview`, `rules.apply`), never from here.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial
from typing import Callable

import numpy as np

from . import rules

FACES = 6
BOX_COUNT = len(rules.BOXES)
MASKS = 1 << BOX_COUNT
CAP = rules.UPPER_BONUS_THRESHOLD            # the upper total is kept up to 63: more changes nothing
UPPER_COUNT = len(rules.UPPER)
UPPER_BITS = (1 << UPPER_COUNT) - 1
DICEZ_BOX = rules.BOXES.index("dicez")
SCORING_OPTIONS = ("five_of_a_kind_full_house", "extra_dicez_bonus", "joker")
VERSION = 1                                   # part of the stored table's name: bump when the maths changes
BLOCK = 1024                                  # positions solved in one set of array operations


# --- the dice ---------------------------------------------------------------------


@dataclass(frozen=True)
class Dice:
    """Index tables over the keeps of every size (size 5: the outcomes)."""

    keeps: tuple[tuple[tuple[int, ...], ...], ...]   # keeps[k]: sorted multisets of k dice
    index: dict                                      # multiset -> its index in keeps[len]
    plus: tuple[np.ndarray, ...]                     # plus[k][i, f]: keeps[k][i] with face f+1 added
    minus: tuple[np.ndarray, ...]                    # minus[k][i, j]: keeps[k][i] less one die (padded)
    chance: np.ndarray                               # probability of each outcome of five dice
    counts: np.ndarray                               # counts[r, f]: dice showing f+1 in outcome r
    five_alike: np.ndarray                           # the outcome index of five (f+1)s


@lru_cache(maxsize=1)
def dice() -> Dice:
    keeps = tuple(tuple(combinations_with_replacement(range(1, FACES + 1), k)) for k in range(6))
    index = {keep: i for size in keeps for i, keep in enumerate(size)}
    plus = tuple(np.array([[index[tuple(sorted(keep + (f,)))] for f in range(1, FACES + 1)]
                           for keep in keeps[k]]) for k in range(5))
    minus = [np.zeros((1, 1), dtype=int)]
    for k in range(1, 6):
        rows = []
        for keep in keeps[k]:
            less = [index[keep[:i] + keep[i + 1:]] for i in range(k) if i == 0 or keep[i] != keep[i - 1]]
            rows.append(less + [less[0]] * (k - len(less)))  # repeating one changes no maximum
        minus.append(np.array(rows))
    outcomes = keeps[5]
    counts = np.array([[o.count(f) for f in range(1, FACES + 1)] for o in outcomes])
    ways = np.array([factorial(5) / np.prod([factorial(c) for c in row]) for row in counts])
    five = np.array([index[(f,) * 5] for f in range(1, FACES + 1)])
    return Dice(keeps, index, plus, tuple(minus), ways / FACES ** 5, counts, five)


def best_keeps(values: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """`values[r]` (rows: outcomes) is worth having after a roll. Returns what each outcome is
    worth when the player may first keep any of its dice and roll the rest again, and the
    expected value of every keep (by size)."""
    d = dice()
    worth = [None] * 6
    worth[5] = values
    # one face (one column of the index table) at a time: gathering whole rows in place is about
    # twice as fast as gathering all six at once into a three-dimensional array
    for k in range(4, -1, -1):
        after, plus = worth[k + 1], d.plus[k]
        total = after[plus[:, 0]]
        for f in range(1, FACES):
            total += after[plus[:, f]]
        worth[k] = np.divide(total, FACES, out=total)
    best = worth[0]
    for k in range(1, 6):
        minus = d.minus[k]
        less = best[minus[:, 0]]
        for j in range(1, k):
            np.maximum(less, best[minus[:, j]], out=less)
        best = np.maximum(worth[k], less, out=less)
    return best, worth


# --- what the rules say about each box --------------------------------------------


def scoring_options(options: dict) -> dict:
    return {name: bool(options.get(name)) for name in SCORING_OPTIONS}


def options_key(options: dict) -> str:
    text = json.dumps(scoring_options(options), sort_keys=True)
    return f"v{VERSION}-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def solo_state(options: dict, scores=(None,) * BOX_COUNT) -> rules.State:
    """A one-seat state of these rules with these scores (None: open), entering final dice only."""
    return rules.solo(scoring_options(options), rules.Sheet(scores=tuple(scores)))


def sheet_of_mask(mask: int, dicez_50: bool = False) -> tuple:
    """Scores of a sheet with the boxes of `mask` filled (the values matter only for DiceZ's 50)."""
    scores = [0 if mask >> b & 1 else None for b in range(BOX_COUNT)]
    if mask >> DICEZ_BOX & 1 and dicez_50:
        scores[DICEZ_BOX] = rules.DICEZ_SCORE
    return tuple(scores)


@dataclass(frozen=True)
class Scoring:
    """Box scores from the rules: `plain[r, b]` for every outcome on an empty sheet, and for the
    five-alike outcomes `alike[f, mask, b]` on every sheet (-1: the box may not be chosen), since
    the joker rule (DZ-17) makes those depend on the sheet. `extra[r]`: the bonus an outcome earns
    when the DiceZ box already holds 50 (DZ-16)."""

    plain: np.ndarray
    alike: np.ndarray
    extra: np.ndarray


def _preview_row(state, outcome) -> np.ndarray:
    row = np.full(BOX_COUNT, -1, dtype=np.int16)
    for box, points in rules.preview(state, 0, list(outcome)).items():
        row[rules.BOXES.index(box)] = points
    return row


def scoring(options: dict) -> Scoring:
    d = dice()
    empty = solo_state(options)
    plain = np.array([_preview_row(empty, o) for o in d.keeps[5]])
    alike = np.repeat(plain[d.five_alike][:, None, :], MASKS, axis=1)
    if options.get("joker"):
        fives = [d.keeps[5][r] for r in d.five_alike]
        for mask in range(MASKS - 1):
            sheet = solo_state(options, sheet_of_mask(mask))  # one state per sheet, asked about all six
            for f, outcome in enumerate(fives):
                alike[f, mask] = _preview_row(sheet, outcome)
    alike[:, np.arange(MASKS)[:, None] >> np.arange(BOX_COUNT) & 1 == 1] = -1
    extra = np.array([_extra_bonus(options, o) for o in d.keeps[5]], dtype=float)
    return Scoring(plain.astype(float), alike, extra)


def _extra_bonus(options: dict, outcome) -> int:
    """What the rules add besides the box when `outcome` is scored with 50 in the DiceZ box."""
    state = solo_state(options, sheet_of_mask(1 << DICEZ_BOX, dicez_50=True))
    box = next(iter(rules.preview(state, 0, list(outcome))))
    after = rules.apply(state, 0, {"kind": "score", "category": box, "dice": list(outcome)})
    return rules.sheet_of(after, 0).extra_bonus - rules.sheet_of(state, 0).extra_bonus


# --- positions ----------------------------------------------------------------------


def _upper_reach() -> list[list[int]]:
    """For each set of filled upper boxes (6 bits), the upper totals it can hold (capped)."""
    reach = []
    for filled in range(1 << UPPER_COUNT):
        totals = {0}
        for face in range(1, UPPER_COUNT + 1):
            if filled >> (face - 1) & 1:
                totals = {min(CAP, t + face * c) for t in totals for c in range(6)}
        reach.append(sorted(totals))
    return reach


@lru_cache(maxsize=1)
def canonical_upper() -> np.ndarray:
    """canon[filled upper boxes, total]: totals that lead to the same future share one position
    (every upper box filled, or the bonus out of reach: 0)."""
    canon = np.tile(np.arange(CAP + 1), (1 << UPPER_COUNT, 1))
    for filled in range(1 << UPPER_COUNT):
        room = sum(5 * face for face in range(1, UPPER_COUNT + 1) if not filled >> (face - 1) & 1)
        canon[filled, np.arange(CAP + 1) + room < CAP] = 0
    canon[(1 << UPPER_COUNT) - 1] = 0
    return canon


def positions(filled_count: int, bonus_flag: bool) -> np.ndarray:
    """(mask, upper total, DiceZ holds 50) of every distinct position with `filled_count` boxes."""
    reach, canon = _upper_reach(), canonical_upper()
    rows = []
    for mask in range(MASKS):
        if bin(mask).count("1") != filled_count:
            continue
        upper = mask & UPPER_BITS
        flags = (0, 1) if bonus_flag and mask >> DICEZ_BOX & 1 else (0,)
        for total in sorted({int(canon[upper, t]) for t in reach[upper]}):
            rows.extend((mask, total, flag) for flag in flags)
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


# --- the table ------------------------------------------------------------------------


@dataclass
class Table:
    """future[mask, upper total, DiceZ holds 50]: expected points still to come, optimal play."""

    options: dict
    future: np.ndarray
    score: Scoring
    turns: dict = field(default_factory=dict, repr=False)  # advice asked of recent positions
    points: list = field(default_factory=list, repr=False)  # box_points, worked out once

    def box_points(self) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """Per box: (box, the distinct points it can score, which of those each outcome scores).
        Few distinct points per box (an upper box: 0 to 5 times its face), so the future after
        writing them is looked up once for each."""
        if not self.points:
            for box in range(BOX_COUNT):
                distinct, which = np.unique(self.score.plain[:, box], return_inverse=True)
                self.points.append((box, distinct, which))
        return self.points

    def key(self, mask: int, upper: int, dicez_50: bool) -> tuple[int, int, int]:
        canon = canonical_upper()[mask & UPPER_BITS, min(upper, CAP)]
        flag = int(dicez_50 and self.options.get("extra_dicez_bonus") and mask >> DICEZ_BOX & 1)
        return mask, int(canon), flag

    def expected(self, mask: int, upper: int, dicez_50: bool) -> float:
        return float(self.future[self.key(mask, upper, dicez_50)])

    def turn(self, mask: int, upper: int, dicez_50: bool) -> "Turn":
        """The values inside one turn from this position (for advice)."""
        key = self.key(mask, upper, dicez_50)
        if key not in self.turns:
            if len(self.turns) > 1024:
                self.turns.clear()
            self.turns[key] = Turn(_box_values(self, np.array([key]))[:, 0])
        return self.turns[key]


@dataclass
class Turn:
    """A turn's values from one position: `final[r]` the expected points from choosing the best
    box for outcome r; `after_second[r]`/`after_first[r]` with rolls left; `keep_*` every keep's."""

    final: np.ndarray

    def __post_init__(self):
        self.after_second, self.keep_third = best_keeps(self.final)
        self.after_first, self.keep_second = best_keeps(self.after_second)

    @property
    def expected(self) -> float:
        return float(dice().chance @ self.after_first)


def _next_values(table: Table, pos: np.ndarray, box: int, points: np.ndarray) -> np.ndarray:
    """Bonus gained plus the future after writing `points[k, i]` into `box` at each position i
    (-inf where the box is filled)."""
    mask, upper, flag = pos[:, 0], pos[:, 1], pos[:, 2]
    new_mask = (mask | (1 << box))[None, :]
    points = points.astype(np.int64)
    if box < UPPER_COUNT:
        raw = upper[None, :] + points
        new_upper = np.minimum(raw, CAP)
        gained = np.where((upper[None, :] < CAP) & (raw >= CAP), rules.UPPER_BONUS, 0)
    else:
        new_upper = np.broadcast_to(upper[None, :], np.broadcast_shapes(points.shape, upper[None, :].shape))
        gained = 0
    if table.options["extra_dicez_bonus"]:
        new_flag = flag[None, :] | ((box == DICEZ_BOX) & (points == rules.DICEZ_SCORE))
    else:
        new_flag = 0
    new_upper = canonical_upper()[new_mask & UPPER_BITS, new_upper]
    values = table.future[new_mask, new_upper, new_flag] + gained
    is_open = (mask >> box & 1) == 0
    return np.where(is_open[None, :], values, -np.inf)


def _box_values(table: Table, pos: np.ndarray) -> np.ndarray:
    """final[r, i]: expected points from outcome r for position i, choosing the best open box."""
    d = dice()
    best = np.full((len(d.keeps[5]), len(pos)), -np.inf)
    for box, distinct, which in table.box_points():
        if ((pos[:, 0] >> box) & 1).all():
            continue
        # an outcome's value depends only on which of the distinct points it scores
        values = _next_values(table, pos, box, distinct[:, None])
        values += distinct[:, None]
        np.maximum(best, values[which], out=best)
    best[d.five_alike] = _five_alike_values(table, pos)
    return best


def _five_alike_values(table: Table, pos: np.ndarray) -> np.ndarray:
    """The rows of the six five-alike outcomes, whose boxes depend on the sheet (joker, DZ-17)
    and which may earn the extra DiceZ bonus (DZ-16)."""
    score = table.score
    points = score.alike[:, pos[:, 0], :].astype(float)        # (face, position, box)
    best = np.full((FACES, len(pos)), -np.inf)
    for box in range(BOX_COUNT):
        allowed = points[:, :, box] >= 0
        if not allowed.any():
            continue
        got = np.where(allowed, points[:, :, box], 0)
        values = _next_values(table, pos, box, got) + got
        np.maximum(best, np.where(allowed, values, -np.inf), out=best)
    extra = score.extra[dice().five_alike][:, None] * pos[None, :, 2]
    return best + extra


def build(options: dict, progress: Callable[[float], None] | None = None) -> Table:
    """Solve every position for these rules' options (seconds: bench/bench_coach.py measures it)."""
    options = scoring_options(options)
    table = Table(options, np.full((MASKS, CAP + 1, 2), np.nan), scoring(options))
    table.future[MASKS - 1] = 0.0
    layers = [positions(n, options["extra_dicez_bonus"]) for n in range(BOX_COUNT - 1, -1, -1)]
    total, done = sum(len(layer) for layer in layers), 0
    chance = dice().chance
    for layer in layers:
        for start in range(0, len(layer), BLOCK):
            pos = layer[start:start + BLOCK]
            final = _box_values(table, pos)
            second, _ = best_keeps(final)
            first, _ = best_keeps(second)
            table.future[pos[:, 0], pos[:, 1], pos[:, 2]] = chance @ first
            done += len(pos)
            if progress:
                progress(done / total)
    return table

