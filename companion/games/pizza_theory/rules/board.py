"""Pizza Theory board: geometry loaded from JSON data, validated, and precomputed.

Conventions (see companion/games/pizza_theory/rules/board.json):
- A space is a cube coordinate (x, y, z) with x + y + z = 0. Spaces are indexed in the order the
  data lists them; bit i of a mask is space i.
- A cut line of family f (0 = x, 1 = y, 2 = z) with value k runs between the spaces whose f-coordinate
  is k and those whose f-coordinate is k + 1. It never passes through a space.
- Three corners, listed clockwise as seen from above, carry the turn-order labels 1st/2nd/3rd. The seat
  at a corner cuts with that corner's family; `numbering[n - 1]` is the k of line n as read left to
  right from that corner.
- A cut (one line per family) is identified by `cut_id = i0 * 36 + i1 * 6 + i2` where i_f is the index
  of the line's k in the family's sorted line list. Slice partitions for all cuts are precomputed.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from companion.platform.core.contract import Text

AXES = ("x", "y", "z")
LABELS = (Text("1st"), Text("2nd"), Text("3rd"))
DEFAULT_PATH = Path(__file__).resolve().parent / "board.json"


class BoardError(ValueError):
    """The board data is unusable; the message names the problem."""


Space = tuple[int, int, int]


@dataclass(frozen=True, eq=False)
class Corner:
    label: str
    corner: Space
    family: int
    numbering: tuple[int, ...]  # numbering[n - 1] = k of line n seen from this corner
    x_spaces: tuple[int, int]  # space indices


@dataclass(frozen=True, eq=False)
class Board:
    name: str
    spaces: tuple[Space, ...]
    index: dict  # Space -> index
    neighbour_mask: tuple[int, ...]  # per space: mask of its neighbours
    lines: tuple[tuple[int, ...], ...]  # per family: sorted k values
    corners: tuple[Corner, ...]
    full_mask: int
    # per family, per k: mask of the spaces touching that line (the rows on either side)
    touch_mask: tuple[dict, ...]
    # per cut_id: tuple of non-empty slice masks, ordered by their lowest space index
    cut_slices: tuple[tuple[int, ...], ...]

    def cut_id(self, ks: tuple[int, int, int]) -> int:
        i0, i1, i2 = (self.lines[f].index(ks[f]) for f in range(3))
        return i0 * 36 + i1 * 6 + i2

    def cut_ks(self, cut_id: int) -> tuple[int, int, int]:
        return (self.lines[0][cut_id // 36], self.lines[1][cut_id // 6 % 6], self.lines[2][cut_id % 6])

    def spaces_of(self, mask: int) -> list[Space]:
        return [self.spaces[i] for i in range(len(self.spaces)) if mask >> i & 1]


def planar(c) -> tuple[float, float]:
    """Cube coordinates -> plane (y axis up), unit distance between neighbours."""
    x, y, z = c
    return ((x - y) / 2, -z * math.sqrt(3) / 2)


def left_to_right(corner: Space, family: int, ks) -> list[int]:
    """The family's k values ordered left to right for someone at `corner` facing the centre."""
    cx, cy = planar(corner)
    rx, ry = -cy, cx  # right-hand side of the facing direction (-cx, -cy)

    def along(k):
        v = k + 0.5
        p = [-v / 2] * 3
        p[family] = v
        px, py = planar(p)
        return px * rx + py * ry

    return sorted(ks, key=along)


def _space(value, where: str) -> Space:
    if (not isinstance(value, (list, tuple)) or len(value) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise BoardError(f"{where}: expected three integers [x, y, z], got {value!r}")
    if sum(value) != 0:
        raise BoardError(f"{where}: {list(value)} is not a cube coordinate (x + y + z must be 0)")
    return tuple(value)


def _require_keys(data) -> None:
    if not isinstance(data, dict):
        raise BoardError("board data must be a JSON object")
    for key in ("spaces", "neighbour_offsets", "families", "corners"):
        if key not in data:
            raise BoardError(f"board data lacks {key!r}")


def _spaces(raw) -> tuple[tuple[Space, ...], dict]:
    """The listed spaces and their index (space -> position in the list)."""
    if not isinstance(raw, list) or len(raw) < 7:
        raise BoardError("spaces: expected a list of at least 7 spaces")
    spaces = tuple(_space(s, f"spaces[{i}]") for i, s in enumerate(raw))
    index = {}
    for i, s in enumerate(spaces):
        if s in index:
            raise BoardError(f"spaces: {list(s)} is listed twice")
        index[s] = i
    return spaces, index


def _offsets(raw) -> list[Space]:
    if not isinstance(raw, list) or len(raw) != 6:
        raise BoardError("neighbour_offsets: expected six offsets")
    offsets = [_space(o, f"neighbour_offsets[{i}]") for i, o in enumerate(raw)]
    if len(set(offsets)) != 6 or (0, 0, 0) in offsets:
        raise BoardError("neighbour_offsets: the six offsets must be distinct and non-zero")
    for o in offsets:
        if tuple(-v for v in o) not in offsets:
            raise BoardError(f"neighbour_offsets: {list(o)} has no opposite; adjacency must be symmetric")
    return offsets


def _neighbour_masks(spaces, index: dict, offsets) -> list[int]:
    masks = []
    for s in spaces:
        m = 0
        for o in offsets:
            j = index.get((s[0] + o[0], s[1] + o[1], s[2] + o[2]))
            if j is not None:
                m |= 1 << j
        masks.append(m)
    return masks


def _check_connected(nmask: list[int]) -> None:
    seen, todo = {0}, [0]
    while todo:
        i = todo.pop()
        for j in range(len(nmask)):
            if nmask[i] >> j & 1 and j not in seen:
                seen.add(j)
                todo.append(j)
    if len(seen) != len(nmask):
        raise BoardError("spaces: the board is not connected under neighbour_offsets")


def _family_axis(i: int, fam, lines: list) -> tuple[str, int]:
    axis = fam.get("axis") if isinstance(fam, dict) else None
    if axis not in AXES:
        raise BoardError(f"families[{i}]: axis must be one of x, y, z")
    f = AXES.index(axis)
    if lines[f] is not None:
        raise BoardError(f"families: axis {axis} appears twice")
    return axis, f


def _family_lines(i: int, axis: str, f: int, ks, spaces) -> tuple[int, ...]:
    if (not isinstance(ks, list) or len(ks) != 6
            or not all(isinstance(k, int) and not isinstance(k, bool) for k in ks) or len(set(ks)) != 6):
        raise BoardError(f"families[{i}] ({axis}): expected six distinct integer lines")
    for k in ks:
        below = sum(1 for s in spaces if s[f] <= k)
        if below == 0 or below == len(spaces):
            raise BoardError(f"families[{i}] ({axis}): line {k} (between {axis}={k} and {k + 1}) "
                             "misses the board")
    return tuple(sorted(ks))


def _lines(fams, spaces) -> list[tuple[int, ...]]:
    """Per family (indexed by axis, whatever order the data lists them in): its sorted k values."""
    if not isinstance(fams, list) or len(fams) != 3:
        raise BoardError("families: expected three cut families")
    lines: list = [None, None, None]
    for i, fam in enumerate(fams):
        axis, f = _family_axis(i, fam, lines)
        lines[f] = _family_lines(i, axis, f, fam.get("lines"), spaces)
    return lines


def _corner_position(where: str, c, i: int, index: dict) -> Space:
    if not isinstance(c, dict):
        raise BoardError(f"{where}: expected an object")
    if c.get("label") != LABELS[i]:
        raise BoardError(f"{where}: label must be {LABELS[i]!r} (corners are listed clockwise from 1st)")
    pos = _space(c.get("corner"), f"{where}.corner")
    if pos not in index:
        raise BoardError(f"{where}: corner {list(pos)} is not a board space")
    return pos


def _corner_family(where: str, f, pos: Space, lines, corners) -> int:
    if f not in (0, 1, 2) or isinstance(f, bool):
        raise BoardError(f"{where}: family must be 0, 1 or 2")
    if any(o.family == f for o in corners):
        raise BoardError(f"{where}: family {f} already belongs to another corner")
    if not lines[f][0] < pos[f] <= lines[f][-1]:
        raise BoardError(f"{where}: the {AXES[f]} lines do not run away from corner {list(pos)}")
    return f


def _corner_numbering(where: str, num, pos: Space, f: int, ks: tuple[int, ...]) -> tuple[int, ...]:
    if (not isinstance(num, list) or not all(isinstance(k, int) for k in num)
            or sorted(num) != list(ks)):
        raise BoardError(f"{where}: numbering must list each {AXES[f]} line once")
    expect = left_to_right(pos, f, ks)
    if num != expect:
        raise BoardError(f"{where}: numbering {num} does not run left to right as seen from the corner "
                         f"(expected {expect})")
    return tuple(num)


def _corner_x_spaces(where: str, xs, i: int, index: dict, used_x: dict) -> tuple[int, ...]:
    """Indices of the corner's two X spaces; records them in `used_x` (space index -> corner)."""
    if not isinstance(xs, list) or len(xs) != 2:
        raise BoardError(f"{where}: expected two x_spaces")
    xi = []
    for j, s in enumerate(xs):
        s = _space(s, f"{where}.x_spaces[{j}]")
        if s not in index:
            raise BoardError(f"{where}: X space {list(s)} is not a board space")
        if index[s] in used_x:
            raise BoardError(f"{where}: X space {list(s)} is used twice")
        used_x[index[s]] = i
        xi.append(index[s])
    return tuple(xi)


def _corners(cs, index: dict, lines) -> list[Corner]:
    if not isinstance(cs, list) or len(cs) != 3:
        raise BoardError("corners: expected three seat corners")
    corners: list[Corner] = []
    used_x: dict = {}
    for i, c in enumerate(cs):
        where = f"corners[{i}]"
        pos = _corner_position(where, c, i, index)
        f = _corner_family(where, c.get("family"), pos, lines, corners)
        num = _corner_numbering(where, c.get("numbering"), pos, f, lines[f])
        xi = _corner_x_spaces(where, c.get("x_spaces"), i, index, used_x)
        corners.append(Corner(LABELS[i], pos, f, num, xi))
    return corners


def _touch_masks(spaces, lines) -> list[dict]:
    touch = []
    for f in range(3):
        touch.append({k: sum(1 << i for i, s in enumerate(spaces) if s[f] in (k, k + 1)) for k in lines[f]})
    return touch


def _cut_slices(spaces, lines) -> list[tuple[int, ...]]:
    """Per cut_id, the slice masks of that cut, ordered by their lowest space index."""
    cut_slices = []
    for k0 in lines[0]:
        for k1 in lines[1]:
            for k2 in lines[2]:
                groups: dict = {}
                for i, s in enumerate(spaces):
                    sig = (s[0] > k0) | (s[1] > k1) << 1 | (s[2] > k2) << 2
                    groups[sig] = groups.get(sig, 0) | 1 << i
                cut_slices.append(tuple(sorted(groups.values(), key=lambda m: m & -m)))
    return cut_slices


def validate(data: dict) -> Board:
    """Check board data and build the precomputed Board; raise BoardError naming the problem."""
    _require_keys(data)
    spaces, index = _spaces(data["spaces"])
    nmask = _neighbour_masks(spaces, index, _offsets(data["neighbour_offsets"]))
    _check_connected(nmask)
    lines = _lines(data["families"], spaces)
    corners = _corners(data["corners"], index, lines)
    return Board(
        name=str(data.get("name", "board")),
        spaces=spaces,
        index=index,
        neighbour_mask=tuple(nmask),
        lines=tuple(lines),
        corners=tuple(corners),
        full_mask=(1 << len(spaces)) - 1,
        touch_mask=tuple(_touch_masks(spaces, lines)),
        cut_slices=tuple(_cut_slices(spaces, lines)),
    )


def load_board(path: str | Path = DEFAULT_PATH) -> Board:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except json.JSONDecodeError as exc:
        raise BoardError(f"{path}: not valid JSON ({exc})") from None
    return validate(data)
