"""The edition editor's form, which mirrors the pad in the box (DS-2): each die face a 3 x 3 grid of
squares to tick (or one of FACE_SHAPES picked with a tap), each sheet side a 12 x 9 picture of squares that hold a topping's letter, the
topping bonuses as how many of each topping, and the points of the slice sizes that can score.

Every square is a form field, so the editor works as a plain POST without JavaScript (tick the dots,
type a topping's letter in a square); editor.js only makes a tap on a square paint the chosen
topping. One model sits between the form and an edition:

    {"label", "note", "dice": {die: [set of (x, y)] * 6},
     "toppings": [{"letter", "name"}, ...],                   the editor's topping rows
     "squares": {side: {(cx, cy): letter}},
     "bonuses": [{"counts": [per topping row], "points"}, ...], "points": [15 values]}
"""
from __future__ import annotations

from string import ascii_uppercase

from companion.platform.sdk import Text, RuleError

from .rules.edition import DIE_NAMES, SIDE_NAMES, default_edition_data, topping_word
from .rules.engine import SCORABLE_SIZES
from .rules.geometry import MAX_SLICE, SQ_H, SQ_W

TOPPING_ROWS = 8  # rows for toppings the editor shows (at least)
BONUS_ROWS = 20  # topping bonus rows the editor reads
SCORING_SIZES = tuple(SCORABLE_SIZES)  # DS-10: the only slice sizes that can ever score
# the colour each topping is drawn in, by its place among the edition's toppings
TOPPING_COLOURS = ["#8d5a3b", "#2e6b30", "#c0392b", "#1f6f8b", "#8a6400", "#6c3483", "#555555", "#a04000"]
MAX_COUNT = 3  # how many of one topping a bonus may ask for, in the editor

# A blank pad's dice start as an ordinary die (1 to 6 pips), which many custom dice mostly follow.
ORDINARY_FACES = [{(1, 1)}, {(0, 0), (2, 2)}, {(0, 0), (1, 1), (2, 2)}, {(0, 0), (2, 0), (0, 2), (2, 2)},
                  {(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)}, {(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)}]
# One tap on a shape draws it on a face. A face may be turned and slid when it is drawn (DS-5), so one
# picture stands for every turn and place of its shape; an odd face is ticked dot by dot instead.
FACE_SHAPES = [
    (Text("one dot"), {(1, 1)}),
    (Text("two dots side by side"), {(0, 0), (1, 0)}),
    (Text("two dots one space apart"), {(0, 0), (2, 0)}),
    (Text("two dots touching corner to corner"), {(0, 0), (1, 1)}),
    (Text("two dots in opposite corners"), {(0, 0), (2, 2)}),
    (Text("two dots, the lower one a step left and two down"), {(1, 0), (0, 2)}),
    (Text("two dots, the lower one a step right and two down"), {(0, 0), (1, 2)}),
    (Text("three dots in a line"), {(0, 0), (1, 0), (2, 0)}),
    (Text("three dots corner to corner"), {(0, 0), (1, 1), (2, 2)}),
    (Text("three dots in a corner"), {(0, 0), (0, 1), (1, 1)}),
    (Text("four dots in a square"), {(0, 0), (1, 0), (0, 1), (1, 1)}),
    (Text("four dots in the corners"), {(0, 0), (2, 0), (0, 2), (2, 2)}),
    (Text("five dots like a die's five"), {(0, 0), (2, 0), (1, 1), (0, 2), (2, 2)}),
    (Text("five dots in a cross"), {(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)}),
    (Text("six dots in two lines"), {(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)}),
]


def _fail(msg: str):
    raise RuleError("Edition problem: {msg}.", msg=msg)


def _padded(rows: list, size: int, blank) -> list:
    return rows + [blank() for _ in range(max(0, size - len(rows)))]


def _blank_bonus(rows: int) -> dict:
    return {"counts": [""] * rows, "points": ""}


# ---- an edition -> the model ---------------------------------------------------------------------
def _free_letter(name: str, used: set) -> str:
    for ch in name.upper() + ascii_uppercase:
        if ch.isalpha() and ch not in used:
            return ch
    return "?"


def _merged_toppings(data: dict) -> dict[str, str]:
    """name -> letter over both sides' legends (a letter used for two names gets a new one)."""
    letters: dict[str, str] = {}
    for side in SIDE_NAMES:
        for letter, name in data["sides"][side]["legend"].items():
            name = name.strip()
            if name not in letters:
                used = set(letters.values())
                letters[name] = letter.upper() if letter.upper() not in used else _free_letter(name, used)
    return letters


def model_from_edition(data: dict) -> dict:
    letters = _merged_toppings(data)
    names = list(letters)
    rows = max(TOPPING_ROWS, len(names) + 2)
    squares = {}
    for side in SIDE_NAMES:
        legend = data["sides"][side]["legend"]
        squares[side] = {(cx, cy): letters[legend[ch].strip()] for cy, row in enumerate(data["sides"][side]["rows"])
                         for cx, ch in enumerate(row) if ch != "."}
    bonuses = [{"counts": _padded([b["toppings"].count(n) or "" for n in names], rows, str), "points": b["points"]}
               for b in data["topping_bonuses"]]
    return {
        "label": topping_word(data["label"]), "note": topping_word(data["note"]),  # the default's, translated
        "dice": {d: [{(x, y) for x, y in face} for face in data["dice"][d]] for d in DIE_NAMES},
        "toppings": _padded([{"letter": letters[n], "name": topping_word(n)} for n in names], rows, lambda: {"letter": "", "name": ""}),
        "squares": squares,
        "bonuses": _padded(bonuses, len(bonuses) + 3, lambda: _blank_bonus(rows)),
        "points": list(data["slice_points"]),
    }


def blank_model() -> dict:
    """An empty pad to copy a box onto: ordinary dice, no toppings, no bonuses; the default's points."""
    return {"label": "", "note": "", "dice": {d: [set(face) for face in ORDINARY_FACES] for d in DIE_NAMES},
            "toppings": [{"letter": "", "name": ""} for _ in range(TOPPING_ROWS)],
            "squares": {s: {} for s in SIDE_NAMES},
            "bonuses": [_blank_bonus(TOPPING_ROWS) for _ in range(5)],
            "points": list(default_edition_data()["slice_points"])}


# ---- the posted form -> the model ------------------------------------------------------------------
def _text(form, key: str) -> str:
    return (form.get(key) or "").strip()


def _posted_toppings(form) -> list[dict]:
    rows = []
    while form.get(f"top{len(rows)}_name") is not None or form.get(f"top{len(rows)}_letter") is not None:
        j = len(rows)
        rows.append({"letter": _text(form, f"top{j}_letter")[:1].upper(), "name": " ".join(_text(form, f"top{j}_name").split())})
    return rows


def _posted_squares(form, side: str) -> dict:
    squares = {}
    for cy in range(SQ_H):
        for cx in range(SQ_W):
            mark = _text(form, f"sq{side}_{cx}_{cy}")[:1].upper()
            if mark and mark != ".":
                squares[(cx, cy)] = mark
    return squares


def _posted_bonuses(form, rows: int) -> list[dict]:
    out = []
    for i in range(BONUS_ROWS):
        counts = [_text(form, f"bonus{i}_t{j}") for j in range(rows)]
        points = form.get(f"bonus{i}_points")
        if points is not None or any(counts):
            out.append({"counts": counts, "points": (points or "").strip()})
    return out


def model_from_form(form) -> dict:
    toppings = _posted_toppings(form)
    return {
        "label": _text(form, "label"), "note": _text(form, "note"),
        "dice": {d: [{(x, y) for y in range(3) for x in range(3) if form.get(f"die{d}_{n}_{x}_{y}")}
                     for n in range(1, 7)] for d in DIE_NAMES},
        "toppings": toppings,
        "squares": {s: _posted_squares(form, s) for s in SIDE_NAMES},
        "bonuses": _posted_bonuses(form, len(toppings)),
        "points": [_text(form, f"points{n}") for n in range(1, MAX_SLICE + 1)],
    }


# ---- the model -> an edition (load_edition checks the rest) ----------------------------------------
def _legend(toppings: list[dict]) -> dict[str, str]:
    legend: dict[str, str] = {}
    named = [t for t in toppings if t["name"]]
    used = {t["letter"] for t in named if t["letter"]}
    for t in named:
        letter = t["letter"] or _free_letter(t["name"], used)
        used.add(letter)
        if letter in legend:
            _fail(Text("the toppings “{letter}” and “{t}” both use the letter {letter2}; give each its own letter", letter=legend[letter], t=t['name'], letter2=letter))
        if t["name"] in legend.values():
            _fail(Text("the topping “{t}” is listed twice", t=t['name']))
        legend[letter] = t["name"]
    return legend


def _rows(side: str, squares: dict, legend: dict) -> list[str]:
    for (cx, cy), mark in sorted(squares.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if mark not in legend:
            _fail(Text("sheet side {side}, row {number}, square {number2} holds the letter {mark}, but no topping in the list has that letter", side=side, number=cy + 1, number2=cx + 1, mark=mark))
    return ["".join(squares.get((cx, cy), ".") for cx in range(SQ_W)) for cy in range(SQ_H)]


def _whole(raw, problem: str) -> int:
    try:
        return int(str(raw).strip())
    except ValueError:
        raise RuleError("Edition problem: {problem}.", problem=problem) from None


def _bonus(i: int, bonus: dict, toppings: list[dict]) -> list[str] | None:
    tops = []
    for j, raw in enumerate(bonus["counts"]):
        count = _whole(raw or 0, Text("topping bonus {i}: how many of a topping must be a whole number", i=i))
        if count and (j >= len(toppings) or not toppings[j]["name"]):
            _fail(Text("topping bonus {i} counts topping row {number}, which has no name", i=i, number=j + 1))
        if not 0 <= count <= MAX_COUNT:
            _fail(Text("topping bonus {i}: ask for 0 to {max_count} of each topping", i=i, max_count=MAX_COUNT))
        tops += [toppings[j]["name"]] * count
    return tops


def _bonuses(model: dict) -> list[dict]:
    out = []
    for i, bonus in enumerate(model["bonuses"], 1):
        tops = _bonus(i, bonus, model["toppings"])
        if tops or str(bonus["points"]).strip():
            out.append({"toppings": tops, "points": _whole(bonus["points"], Text("topping bonus {i} needs its points as a whole number", i=i))})
    return out


def edition_from_model(model: dict) -> dict:
    legend = _legend(model["toppings"])
    return {
        "label": model["label"], "note": model["note"],
        "dice": {d: [sorted([x, y] for x, y in face) for face in model["dice"][d]] for d in DIE_NAMES},
        "sides": {s: {"legend": dict(legend), "rows": _rows(s, model["squares"][s], legend)} for s in SIDE_NAMES},
        "topping_bonuses": _bonuses(model),
        "slice_points": [_whole(p, Text("the points for a slice of {n} must be a whole number", n=n))
                         for n, p in enumerate(model["points"], 1)],
    }
