"""Dice and Slice editions as data (DS-2): validation messages and the default edition's design."""
import json
import re

import pytest

from companion.platform.core.registry import RuleError
from companion.games.dice_and_slice.rules import default_edition, load_edition
from companion.games.dice_and_slice.rules import geometry as g
from companion.games.dice_and_slice.rules.edition import DEFAULT_PATH, default_edition_data


def broken(change):
    d = default_edition_data()
    change(d)
    return d


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["dice"]["A"][2].append([3, 1]), "die A face 3 has a dot outside the face's 3 × 3 grid"),
        (lambda d: d["dice"]["B"].pop(), "die B must have exactly 6 faces"),
        (lambda d: d["dice"]["B"].__setitem__(0, []), "die B face 1 has no dots"),
        (lambda d: d["dice"]["A"][0].append([1, 1]), "die A face 1 has the dot in row 2, column 2 twice"),
        (lambda d: d["dice"]["A"][0].__setitem__(0, [1, True]), "has a dot that is not a place on the face"),
        (lambda d: d["dice"].pop("B"), "two dice, A and B"),
        (lambda d: d["sides"]["B"]["rows"].pop(), "side B must have 9 rows of squares"),
        (lambda d: d["sides"]["A"]["rows"].__setitem__(2, "." * 11), "side A: row 3 must have 12 squares"),
        (lambda d: d["sides"]["A"]["rows"].__setitem__(0, "X" + "." * 11), "side A, row 1, square 1 holds the letter “X”, which names no topping"),
        (lambda d: d["topping_bonuses"].append({"toppings": ["anchovy"], "points": 3}), "topping bonus 5 asks for “anchovy”, which is on neither sheet side"),
        (lambda d: d["topping_bonuses"].append({"toppings": ["olive", "mushroom"], "points": 3}), "repeats"),
        (lambda d: d["topping_bonuses"][0].__setitem__("points", -1), "topping bonus 1: its points"),
        (lambda d: d["slice_points"].pop(), "the slice points must be 15 whole numbers"),
        (lambda d: d.__setitem__("label", ""), "needs a label"),
        (lambda d: d.__setitem__("colour", "red"), "an edition has no part called “colour”"),
        (lambda d: d.pop("note"), "the edition lacks its note"),
        (lambda d: d.__setitem__("note", None), "the note must be text"),
    ],
)
def test_ds2_bad_edition_refused_naming_the_problem(change, message):
    with pytest.raises(RuleError) as e:
        load_edition(broken(change))
    assert message in e.value.reason
    # in a player's words: no internal shapes such as "[x, y]", "(3,1)" or a key's 'name'
    assert not re.search(r"\[x, y\]|\(\d+,\d+\)|'\w+'|\blegend\b|\bkey", e.value.reason), e.value.reason


def test_ds2_an_edition_needs_a_label_but_its_note_may_be_empty():
    assert load_edition(broken(lambda d: d.__setitem__("note", ""))).note == ""
    with pytest.raises(RuleError, match="the edition needs a label"):
        load_edition(broken(lambda d: d.__setitem__("label", "  ")))


def test_ds2_edition_must_be_an_object():
    with pytest.raises(RuleError, match="this is not an edition"):
        load_edition(["not", "an", "edition"])


def test_ds2_default_edition_loads_and_is_labelled_the_projects_own():
    with open(DEFAULT_PATH, encoding="utf-8") as f:
        raw = json.load(f)
    ed = load_edition(raw)
    assert ed == default_edition()
    assert "project" in ed.label.lower() and "not the publisher" in ed.label
    assert "edit" in ed.note.lower()


def test_ds2_default_edition_follows_the_design_guidance():
    ed = default_edition()
    die_a, die_b = ed.dice
    assert set(die_a) != set(die_b)
    for face in die_a + die_b:
        assert 1 <= len(face) <= 5

    def adjacent(face):
        return any((x + 1, y) in face or (x, y + 1) in face for x, y in face)

    for die in ed.dice:  # each die mixes scattered patterns and patterns with adjacent dots
        assert any(adjacent(f) for f in die) and any(not adjacent(f) and len(f) > 1 for f in die)
    side_a, side_b = ed.toppings("A"), ed.toppings("B")
    assert 4 <= len(set(side_a.values())) <= 6
    assert side_a != side_b
    assert 3 <= len(ed.bonuses) <= 5
    for b in ed.bonuses:
        assert 2 <= len(b.toppings) <= 3 and 4 <= b.points <= 10
    assert list(ed.slice_points) == [n + max(0, n - 5) for n in range(1, 16)]


def test_every_numbered_rule_is_cited_by_a_test():
    import re
    from pathlib import Path

    rules_text = Path(__file__).resolve().parents[1] / "rules.md"
    rules = set(re.findall(r"\*\*(DS-\d+) ", rules_text.read_text()))
    assert rules == {f"DS-{n}" for n in range(1, len(rules) + 1)}
    cited = set()
    for f in Path(__file__).parent.glob("test_*.py"):
        text = f.read_text()
        cited |= {f"DS-{n}" for n in re.findall(r"(?:DS-|ds)(\d+)", text)}
    assert rules <= cited, f"rules without a test: {sorted(rules - cited)}"


def _outline(cx0, cy0, w, h):
    """Every dot on the outline of the w × h rectangle of squares whose top-left square is (cx0, cy0)."""
    return [(x, y) for x in range(cx0, cx0 + w + 1) for y in range(cy0, cy0 + h + 1)
            if x in (cx0, cx0 + w) or y in (cy0, cy0 + h)]


@pytest.mark.parametrize("side", ["A", "B"])
def test_ds12_every_default_topping_bonus_can_be_made_on_each_side(side):
    """DS-12 needs a scorable slice (DS-10: a rectangle of at most 15 squares, never a 1 × k strip
    with k ≥ 2) holding exactly a bonus's toppings. The default edition must offer one for every
    bonus on both sheet sides (the "pepper, pepper" bonus once could not be made anywhere)."""
    ed = default_edition()
    tops = ed.toppings(side)
    for b in ed.bonuses:
        found = None
        for w in range(1, g.SQ_W + 1):
            for h in range(1, g.SQ_H + 1):
                if w * h > g.MAX_SLICE or (min(w, h) == 1 and w * h > 1):
                    continue
                for cx0 in range(g.SQ_W - w + 1):
                    for cy0 in range(g.SQ_H - h + 1):
                        squares = {(cy0 + j) * g.SQ_W + cx0 + i for i in range(w) for j in range(h)}
                        if tuple(sorted(tops[s] for s in squares if s in tops)) == b.toppings:
                            found = (cx0, cy0, w, h, frozenset(squares))
                            break
                    if found:
                        break
                if found:
                    break
            if found:
                break
        assert found, f"side {side}: no slice can hold exactly {b.toppings}"
        cx0, cy0, w, h, squares = found
        # and the engine agrees: drawing just that outline makes it a scorable slice
        assert squares in g.analyse(g.mask_of(_outline(cx0, cy0, w, h))).scorable
