"""Dice and Slice sheet geometry: dots, lines, regions, placements.

A sheet is a plain int bitmask of marked dots. Dot (x, y), x 0..12 and y 0..9 with y
growing downward, is bit ``y * 13 + x``. Square (cx, cy), cx 0..11 and cy 0..8, has corners
(cx, cy)-(cx + 1, cy + 1) and index ``cy * 12 + cx``.

Everything here is a pure function of the mask, so the analysis of a mask is cached:
replaying a game re-analyses only masks it has not seen yet.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable

SQ_W, SQ_H = 12, 9  # squares across and down
DOT_W, DOT_H = SQ_W + 1, SQ_H + 1  # 13 x 10 dots
SQUARES = SQ_W * SQ_H  # 108
MAX_SLICE = 15
ALL_DOTS = (1 << (DOT_W * DOT_H)) - 1


def dot_bit(x: int, y: int) -> int:
    return 1 << (y * DOT_W + x)


def on_lattice(x: int, y: int) -> bool:
    return 0 <= x < DOT_W and 0 <= y < DOT_H


def mask_of(dots: Iterable[tuple[int, int]]) -> int:
    m = 0
    for x, y in dots:
        m |= dot_bit(x, y)
    return m


def dots_of(mask: int) -> list[tuple[int, int]]:
    """Marked dots in reading order (row by row)."""
    out = []
    while mask:
        low = mask & -mask
        i = low.bit_length() - 1
        out.append((i % DOT_W, i // DOT_W))
        mask ^= low
    return out


BORDER = mask_of(
    [(x, y) for x in range(DOT_W) for y in range(DOT_H) if x in (0, DOT_W - 1) or y in (0, DOT_H - 1)]
)
# bits of dots that have a right-hand neighbour (x < 12)
_HAS_RIGHT = mask_of([(x, y) for x in range(DOT_W - 1) for y in range(DOT_H)])


def horizontal_lines(mask: int) -> int:
    """Bit (x, y) set when the line (x, y)-(x + 1, y) is drawn."""
    return mask & (mask >> 1) & _HAS_RIGHT


def vertical_lines(mask: int) -> int:
    """Bit (x, y) set when the line (x, y)-(x, y + 1) is drawn."""
    return mask & (mask >> DOT_W)


def lines_of(mask: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    out = [((x, y), (x + 1, y)) for x, y in dots_of(horizontal_lines(mask))]
    out += [((x, y), (x, y + 1)) for x, y in dots_of(vertical_lines(mask))]
    return out


# --- regions -------------------------------------------------------------------------------

# For each square: (neighbour square or -1 for the sheet's edge, bit of the edge's line, 'h'/'v')
def _square_sides() -> tuple:
    table = []
    for s in range(SQUARES):
        cx, cy = s % SQ_W, s // SQ_W
        sides = (
            (s - 1 if cx > 0 else -1, dot_bit(cx, cy), "v"),  # left edge
            (s + 1 if cx < SQ_W - 1 else -1, dot_bit(cx + 1, cy), "v"),  # right edge
            (s - SQ_W if cy > 0 else -1, dot_bit(cx, cy), "h"),  # top edge
            (s + SQ_W if cy < SQ_H - 1 else -1, dot_bit(cx, cy + 1), "h"),  # bottom edge
        )
        table.append(sides)
    return tuple(table)


_SIDES = _square_sides()


@dataclass(frozen=True)
class Region:
    squares: frozenset  # square indexes
    size: int
    bbox: tuple[int, int, int, int]  # cx0, cy0, cx1, cy1 (inclusive squares)
    enclosed: bool
    rectangle: bool
    scorable: bool

    def square_coords(self) -> list[tuple[int, int]]:
        return [(s % SQ_W, s // SQ_W) for s in sorted(self.squares)]


@dataclass(frozen=True)
class Analysis:
    mask: int
    hlines: int
    vlines: int
    regions: tuple[Region, ...]  # ordered by their first square
    scorable: frozenset  # frozensets of squares of the scorable slices

    @property
    def largest(self) -> int:
        return max(r.size for r in self.regions)


def _interior_mask(cx0: int, cy0: int, cx1: int, cy1: int) -> int:
    """Dots strictly inside the rectangle of squares cx0..cx1 x cy0..cy1."""
    m = 0
    for y in range(cy0 + 1, cy1 + 1):
        for x in range(cx0 + 1, cx1 + 1):
            m |= dot_bit(x, y)
    return m


@lru_cache(maxsize=65536)
def analyse(mask: int) -> Analysis:
    """Lines, regions and scorable slices of a sheet (flood fill over the 108 squares)."""
    h = horizontal_lines(mask)
    v = vertical_lines(mask)
    seen = [False] * SQUARES
    regions = []
    for start in range(SQUARES):
        if seen[start]:
            continue
        seen[start] = True
        stack = [start]
        members = []
        enclosed = True
        while stack:
            s = stack.pop()
            members.append(s)
            for n, b, kind in _SIDES[s]:
                wall = (h if kind == "h" else v) & b
                if n < 0:
                    if not wall:
                        enclosed = False
                elif not wall and not seen[n]:
                    seen[n] = True
                    stack.append(n)
        xs = [s % SQ_W for s in members]
        ys = [s // SQ_W for s in members]
        bbox = (min(xs), min(ys), max(xs), max(ys))
        size = len(members)
        rectangle = (bbox[2] - bbox[0] + 1) * (bbox[3] - bbox[1] + 1) == size
        scorable = (
            enclosed and rectangle and size <= MAX_SLICE and not (mask & _interior_mask(*bbox))
        )
        regions.append(Region(frozenset(members), size, bbox, enclosed, rectangle, scorable))
    return Analysis(
        mask, h, v, tuple(regions), frozenset(r.squares for r in regions if r.scorable)
    )


# --- fast path: which slices did a marking create? -------------------------------------------
# A rectangle of w x h squares (1 x 1, or both sides >= 2, at most 15 squares) is a scorable
# slice exactly when every dot of its outline is marked and no dot strictly inside is: the
# outline's lines cut it off, and with no dot inside nothing divides it. (1 x k strips are left
# out: their outline is all their dots, whose cross-lines cut them into 1 x 1 squares.)
# Slices a marking creates have a newly marked dot on their outline, so `new_slices` only looks
# at the rectangles through the new dots. The property tests check it against `analyse`.

def _slice_placements():
    """(x0, y0, w, h) of every rectangle of squares on the sheet that can be a scorable slice."""
    for w in range(1, SQ_W + 1):
        for h in range(1, SQ_H + 1):
            if w * h > MAX_SLICE or (min(w, h) == 1 and w * h > 1):
                continue
            for y0 in range(SQ_H - h + 1):
                for x0 in range(SQ_W - w + 1):
                    yield x0, y0, w, h


def _outline(x0: int, y0: int, w: int, h: int) -> list[tuple[int, int]]:
    return [
        (x, y) for x in range(x0, x0 + w + 1) for y in range(y0, y0 + h + 1)
        if x in (x0, x0 + w) or y in (y0, y0 + h)
    ]


def _neighbours_in(x: int, y: int, mask: int) -> int:
    """The dots of `mask` next to dot (x, y) on the lattice."""
    return mask & mask_of(
        [(x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)) if on_lattice(x + dx, y + dy)]
    )


def _group_by_near(entries: list) -> tuple:
    groups: dict = {}
    for near, rect in entries:
        groups.setdefault(near, []).append(rect)
    return tuple((near, tuple(rects)) for near, rects in groups.items())


def _rectangles_by_dot() -> tuple:
    """Per dot: ((near, rects), ...) where rects are the (outline, interior, squares) of the
    candidate slices whose outline passes through the dot, grouped by `near`, the dot's two
    neighbours along that outline."""
    by_dot = [[] for _ in range(DOT_W * DOT_H)]
    for x0, y0, w, h in _slice_placements():
        outline = _outline(x0, y0, w, h)
        out_mask = mask_of(outline)
        squares = frozenset((y0 + j) * SQ_W + x0 + i for i in range(w) for j in range(h))
        rect = (out_mask, _interior_mask(x0, y0, x0 + w - 1, y0 + h - 1), squares)
        for x, y in outline:
            # the neighbours along the outline must be marked too: a cheap first test
            by_dot[y * DOT_W + x].append((_neighbours_in(x, y, out_mask), rect))
    return tuple(_group_by_near(entries) for entries in by_dot)


_RECTS_BY_DOT = _rectangles_by_dot()


def new_slices(before: int, after: int) -> list[frozenset]:
    """Scorable slices of `after` that were not scorable in `before` (before <= after)."""
    new = after & ~before
    found: dict = {}
    while new:
        low = new & -new
        new ^= low
        for near, rects in _RECTS_BY_DOT[low.bit_length() - 1]:
            if after & near != near:
                continue
            for outline, inner, squares in rects:
                if after & outline == outline and not after & inner:
                    found[squares] = None
    return list(found)


def game_can_end(mask: int) -> bool:
    """All 42 border dots marked and no region larger than 15 squares."""
    return (mask & BORDER) == BORDER and analyse(mask).largest <= MAX_SLICE


# --- patterns and placements -----------------------------------------------------------------

def normalise(dots: Iterable[tuple[int, int]]) -> frozenset:
    dots = list(dots)
    mx = min(x for x, _ in dots)
    my = min(y for _, y in dots)
    return frozenset((x - mx, y - my) for x, y in dots)


def rotate(dots: Iterable[tuple[int, int]], quarter_turns: int) -> frozenset:
    """Rotate clockwise (on screen, y down) by 90 degrees per quarter turn, then normalise."""
    pts = list(dots)
    for _ in range(quarter_turns % 4):
        pts = [(-y, x) for x, y in pts]
    return normalise(pts)


@lru_cache(maxsize=256)
def rotations(face: frozenset) -> tuple[tuple[int, frozenset], ...]:
    """(degrees, normalised shape) for each distinct rotation of a face, first one kept."""
    out, seen = [], set()
    for q in range(4):
        shape = rotate(face, q)
        if shape not in seen:
            seen.add(shape)
            out.append((q * 90, shape))
    return tuple(out)


@lru_cache(maxsize=256)
def _translations(face: frozenset) -> tuple[tuple[int, int, int, int], ...]:
    """Every (degrees, dx, dy, mask) that puts a rotation of the face on the lattice."""
    out = []
    for deg, shape in rotations(face):
        w = max(x for x, _ in shape) + 1
        h = max(y for _, y in shape) + 1
        base = mask_of(shape)
        for dy in range(DOT_H - h + 1):
            for dx in range(DOT_W - w + 1):
                out.append((deg, dx, dy, base << (dy * DOT_W + dx)))
    return tuple(out)


def matches_face(face: frozenset, dots: frozenset) -> bool:
    """Are these placed dots the face rotated (no mirror) and translated?"""
    if len(dots) != len(face):
        return False
    shape = normalise(dots)
    return any(shape == s for _, s in rotations(face))


def legal_placements(sheet, face) -> list[dict]:
    """Every legal placement of `face` on `sheet` (an int mask or an iterable of (x, y) dots).

    One entry per distinct set of dots added (placements that would add the same dots are
    the same move for the player). Each: {"rotation": degrees clockwise, "offset": [dx, dy],
    "dots": the whole pattern as placed, "new": the dots it would mark}. Empty means the seat
    has no legal placement for this face. The entries are shared: read them, do not change them.
    """
    mask = sheet if isinstance(sheet, int) else mask_of(sheet)
    return list(_placements(mask, frozenset((int(x), int(y)) for x, y in face)))


# Every phone of a table draws its sheet again after each entry, and for all but the writer the
# sheet and the die are as they were: the same placements, worked out once.
@lru_cache(maxsize=4096)
def _placements(mask: int, face: frozenset) -> tuple[dict, ...]:
    free = ALL_DOTS & ~mask
    out, seen = [], set()
    for deg, dx, dy, m in _translations(face):
        new = m & free
        if not new or new in seen:
            continue
        seen.add(new)
        out.append({"rotation": deg, "offset": [dx, dy], "dots": [list(d) for d in dots_of(m)],
                    "new": [list(d) for d in dots_of(new)]})
    return tuple(out)


def has_legal_placement(mask: int, face: frozenset) -> bool:
    free = ALL_DOTS & ~mask
    return any(m & free for _, _, _, m in _translations(face))
