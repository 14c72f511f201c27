"""Dice and Slice editions: die faces, sheet sides, topping bonuses, slice points, as data.

An edition is a JSON object (see companion/games/dice_and_slice/rules/default_edition.json):

    {"label": str, "note": str,
     "dice": {"A": [face, x6], "B": [face, x6]},        face = [[x, y], ...] on the 3 x 3 grid
     "sides": {"A": side, "B": side},                    side = {"legend": {"M": "mushroom", ...},
                                                                 "rows": [9 strings of 12 chars]}
     "topping_bonuses": [{"toppings": ["olive", "mushroom"], "points": 5}, ...],
     "slice_points": [15 ints: points for a slice of 1, 2, ..., 15 squares]}

In a side's rows "." is a square without topping, any legend letter a square with that topping.
`load_edition` validates everything and raises RuleError naming the first problem.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from companion.platform.core.contract import Text, N_, RuleError
from .geometry import MAX_SLICE, SQ_H, SQ_W

DEFAULT_PATH = Path(__file__).resolve().parent / "default_edition.json"
DIE_NAMES = ("A", "B")
SIDE_NAMES = ("A", "B")
_KEYS = {"label", "note", "dice", "sides", "topping_bonuses", "slice_points"}


@dataclass(frozen=True)
class Bonus:
    toppings: tuple[str, ...]  # sorted multiset of kinds
    points: int


@dataclass(frozen=True)
class Edition:
    label: str
    note: str
    dice: tuple[tuple[frozenset, ...], tuple[frozenset, ...]]  # die A faces, die B faces
    sides: tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]  # (square, kind)
    bonuses: tuple[Bonus, ...]
    slice_points: tuple[int, ...]  # index size - 1
    data: dict  # the canonical JSON form, as stored with a table

    def face(self, die: str, number: int) -> frozenset:
        return self.dice[DIE_NAMES.index(die)][number - 1]

    def toppings(self, side: str) -> dict[int, str]:
        return dict(self.sides[SIDE_NAMES.index(side)])

    def points_for(self, size: int) -> int:
        return slice_points_for(self.slice_points, size)

    # lru_cache needs hashing; editions are compared by their canonical data
    def __hash__(self) -> int:
        return hash(json.dumps(self.data, sort_keys=True))


def slice_points_for(slice_points: tuple[int, ...], size: int) -> int:
    """What a slice of `size` squares scores under an edition's `slice_points`."""
    return slice_points[size - 1] if 1 <= size <= MAX_SLICE else 0


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _fail(msg: str):
    raise RuleError("Edition problem: {msg}.", msg=msg)


# the parts of an edition in a player's words
_PARTS = {"label": "label", "note": "note", "dice": "dice", "sides": Text("sheet sides"),
          "topping_bonuses": Text("topping bonuses"), "slice_points": Text("slice points")}


def _quoted(text) -> str:
    return f"“{str(text)[:40]}”"


def _face(die: str, n: int, raw) -> frozenset:
    where = Text("die {die} face {face}", die=die, face=n)
    if not isinstance(raw, list) or not raw:
        _fail(Text("{where} has no dots; every face needs at least one", where=where))
    dots = set()
    for d in raw:
        if not (isinstance(d, list) and len(d) == 2 and all(_is_int(c) for c in d)):
            _fail(Text("{where} has a dot that is not a place on the face (a column and a row, each 1 to 3)", where=where))
        x, y = d
        if not (0 <= x <= 2 and 0 <= y <= 2):
            _fail(Text("{where} has a dot outside the face's 3 × 3 grid of dots", where=where))
        if (x, y) in dots:
            _fail(Text("{where} has the dot in row {number}, column {number2} twice", where=where, number=y + 1, number2=x + 1))
        dots.add((x, y))
    return frozenset(dots)


def _check_legend(where: str, legend) -> None:
    if not isinstance(legend, dict):
        _fail(Text("{where} must give each topping letter its topping's name", where=where))
    for k, v in legend.items():
        if len(k) != 1 or k == "." or k.isspace():
            _fail(Text("{where}: a topping's letter must be one letter (a dot marks an empty square)", where=where))
        if not isinstance(v, str) or not v.strip():
            _fail(Text("{where}: the letter {k} needs its topping's name", where=where, k=_quoted(k)))


def _row_toppings(where: str, cy: int, row, legend: dict) -> list[tuple[int, str]]:
    if not isinstance(row, str) or len(row) != SQ_W:
        _fail(Text("{where}: row {number} must have {sq_w} squares", where=where, number=cy + 1, sq_w=SQ_W))
    out = []
    for cx, ch in enumerate(row):
        if ch == ".":
            continue
        if ch not in legend:
            _fail(Text("{where}, row {number}, square {number2} holds the letter {ch}, which names no topping", where=where, number=cy + 1, number2=cx + 1, ch=_quoted(ch)))
        kind = legend[ch]  # kept as it is when already trimmed: the default edition's words are Texts
        out.append((cy * SQ_W + cx, kind if kind == kind.strip() else kind.strip()))
    return out


def _side(name: str, raw) -> tuple[tuple[int, str], ...]:
    where = Text("side {side}", side=name)
    if not isinstance(raw, dict) or set(raw) != {"legend", "rows"}:
        _fail(Text("{where} must give its topping letters and its rows of squares, nothing else", where=where))
    legend, rows = raw["legend"], raw["rows"]
    _check_legend(where, legend)
    if not isinstance(rows, list) or len(rows) != SQ_H:
        _fail(Text("{where} must have {sq_h} rows of squares", where=where, sq_h=SQ_H))
    out = []
    for cy, row in enumerate(rows):
        out.extend(_row_toppings(where, cy, row, legend))
    return tuple(out)


def _texts(value):
    """Every text in an edition (keys too), however deep."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _texts(k)
            yield from _texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)


def _check_unicode(data) -> None:
    # a lone surrogate can be parsed from JSON but never sent back out as UTF-8: every page
    # showing the edition would fail
    for text in _texts(data):
        if any("\ud800" <= c <= "\udfff" for c in text) or "\x00" in text:
            shown = text.encode("utf-8", "backslashreplace").decode()[:40]
            _fail(Text('the text "{shown}" cannot be stored (it holds a lone surrogate or a NUL character)', shown=shown))


def _check_keys(data) -> None:
    if not isinstance(data, dict):
        _fail(Text("this is not an edition (an edition file holds one edition's dice, sheet sides, bonuses and points)"))
    unknown = set(data) - _KEYS
    if unknown:
        _fail(Text("an edition has no part called {list}", list=', '.join(_quoted(k) for k in sorted(map(str, unknown)))))
    missing = _KEYS - set(data)
    if missing:
        _fail(Text("the edition lacks its {list}", list=', '.join(_PARTS[k] for k in sorted(missing))))


def _check_texts(label, note) -> None:
    if not isinstance(label, str) or not label.strip():
        _fail(Text("the edition needs a label, the words that tell it apart"))
    if not isinstance(note, str):
        _fail(Text("the note must be text (it may be empty)"))


def _dice(raw) -> tuple[tuple[frozenset, ...], tuple[frozenset, ...]]:
    if not isinstance(raw, dict) or set(raw) != set(DIE_NAMES):
        _fail(Text("an edition has two dice, A and B, and no other"))
    dice = []
    for die in DIE_NAMES:
        faces = raw[die]
        if not isinstance(faces, list) or len(faces) != 6:
            _fail(Text("die {die} must have exactly 6 faces", die=die))
        dice.append(tuple(_face(die, i + 1, f) for i, f in enumerate(faces)))
    return dice[0], dice[1]


def _sides(raw) -> tuple[tuple[tuple[int, str], ...], ...]:
    if not isinstance(raw, dict) or set(raw) != set(SIDE_NAMES):
        _fail(Text("an edition has two sheet sides, A and B, and no other"))
    return tuple(_side(s, raw[s]) for s in SIDE_NAMES)


def _bonus(i: int, raw, kinds: set[str]) -> Bonus:
    where = Text("topping bonus {i}", i=i)
    if not isinstance(raw, dict) or set(raw) != {"toppings", "points"}:
        _fail(Text("{where} must give its toppings and its points, nothing else", where=where))
    tops, pts = raw["toppings"], raw["points"]
    if not isinstance(tops, list) or not tops or not all(isinstance(t, str) for t in tops):
        _fail(Text("{where} must name at least one topping", where=where))
    for t in tops:
        if t not in kinds:
            _fail(Text("{where} asks for {t}, which is on neither sheet side", where=where, t=_quoted(t)))
    if not _is_int(pts) or pts < 0:
        _fail(Text("{where}: its points must be a whole number of at least 0", where=where))
    return Bonus(tuple(sorted(tops)), pts)


def _bonuses(raw, kinds: set[str]) -> tuple[Bonus, ...]:
    """The topping bonuses; `kinds` are the toppings found on the sheet sides."""
    if not isinstance(raw, list):
        _fail(Text("the topping bonuses must be a list of bonuses"))
    bonuses, seen = [], set()
    for i, b in enumerate(raw, 1):
        bonus = _bonus(i, b, kinds)
        if bonus.toppings in seen:
            _fail(Text("topping bonus {i} repeats an earlier bonus's toppings", i=i))
        seen.add(bonus.toppings)
        bonuses.append(bonus)
    return tuple(bonuses)


def _slice_points(sp) -> tuple[int, ...]:
    if not isinstance(sp, list) or len(sp) != MAX_SLICE or not all(_is_int(p) and p >= 0 for p in sp):
        _fail(Text("the slice points must be {max_slice} whole numbers of at least 0 (for slices of 1 to {max_slice} squares)", max_slice=MAX_SLICE))
    return tuple(sp)


def load_edition(data) -> Edition:
    """Validate an edition (dict) and build it; RuleError names the first problem found."""
    _check_keys(data)
    data = _readable(data)
    _check_unicode(data)
    _check_texts(data["label"], data["note"])
    dice = _dice(data["dice"])
    sides = _sides(data["sides"])
    bonuses = _bonuses(data["topping_bonuses"], {k for side in sides for _, k in side})
    slice_points = _slice_points(data["slice_points"])
    canonical = json.loads(json.dumps(data))  # a private deep copy
    return Edition(data["label"], data["note"], dice, sides, bonuses, slice_points, canonical)


# the default edition's words, read in each player's language (an edition a player made keeps theirs)
DEFAULT_WORDS = (N_("mushroom"), N_("olive"), N_("pepper"), N_("basil"), N_("pineapple"),
                 N_("Companion default edition (the project's own design, not the publisher's)"),
                 N_("The die faces, topping layouts, topping bonuses and slice points of the published game could "
                    "not be found. Everything here was designed by the companion project so the app is playable. "
                    "If your copy differs, edit this data (or paste your own edition into the table options) to "
                    "match it."))


def topping_word(kind: str) -> str:
    """A topping's name as players read it: the default edition's words translated, others as typed."""
    kind = kind.strip()
    return Text(kind) if kind in DEFAULT_WORDS else kind


def _readable(value):
    """The default edition's words as Texts, translated wherever they are shown."""
    if isinstance(value, str) and value in DEFAULT_WORDS:
        return Text(value)
    if isinstance(value, dict):
        return {key: _readable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_readable(item) for item in value]
    return value


@lru_cache(maxsize=1)
def default_edition() -> Edition:
    with open(DEFAULT_PATH, encoding="utf-8") as f:
        return load_edition(_readable(json.load(f)))


def default_edition_data() -> dict:
    return json.loads(json.dumps(default_edition().data))
