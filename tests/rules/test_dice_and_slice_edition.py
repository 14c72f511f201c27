"""Dice and Slice editions as data (DS-2): validation messages and the default edition's design."""
import json

import pytest

from companion.rules import RuleError
from companion.rules.dice_and_slice import default_edition, load_edition
from companion.rules.dice_and_slice.edition import DEFAULT_PATH, default_edition_data


def broken(change):
    d = default_edition_data()
    change(d)
    return d


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["dice"]["A"][2].append([3, 1]), "die A face 3: dot (3,1) is outside the 3 × 3 grid"),
        (lambda d: d["dice"]["B"].pop(), "die B must have exactly 6 faces"),
        (lambda d: d["dice"]["B"].__setitem__(0, []), "die B face 1 must be a non-empty list"),
        (lambda d: d["dice"]["A"][0].append([1, 1]), "die A face 1: dot (1,1) is listed twice"),
        (lambda d: d["dice"]["A"][0].__setitem__(0, [1, True]), "is not an [x, y] pair"),
        (lambda d: d["dice"].pop("B"), "exactly die 'A' and die 'B'"),
        (lambda d: d["sides"]["B"]["rows"].pop(), "side B: rows must be a list of 9 strings"),
        (lambda d: d["sides"]["A"]["rows"].__setitem__(2, "." * 11), "side A: row 2 must be a string of 12"),
        (lambda d: d["sides"]["A"]["rows"].__setitem__(0, "X" + "." * 11), "square (0,0) has 'X'"),
        (lambda d: d["topping_bonuses"].append({"toppings": ["anchovy"], "points": 3}), "topping bonus 5: topping 'anchovy'"),
        (lambda d: d["topping_bonuses"].append({"toppings": ["olive", "mushroom"], "points": 3}), "repeats"),
        (lambda d: d["topping_bonuses"][0].__setitem__("points", -1), "topping bonus 1: points"),
        (lambda d: d["slice_points"].pop(), "'slice_points' must list 15"),
        (lambda d: d.__setitem__("label", ""), "'label'"),
        (lambda d: d.__setitem__("colour", "red"), "unknown key(s) colour"),
        (lambda d: d.pop("note"), "missing key(s) note"),
    ],
)
def test_ds2_bad_edition_refused_naming_the_problem(change, message):
    with pytest.raises(RuleError) as e:
        load_edition(broken(change))
    assert message in e.value.reason


def test_ds2_edition_must_be_an_object():
    with pytest.raises(RuleError, match="JSON object"):
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

    root = Path(__file__).resolve().parents[2]
    rules = set(re.findall(r"\*\*(DS-\d+) ", (root / "seeds" / "dice-and-slice.md").read_text()))
    assert rules == {f"DS-{n}" for n in range(1, len(rules) + 1)}
    cited = set()
    for f in Path(__file__).parent.glob("test_dice_and_slice*.py"):
        text = f.read_text()
        cited |= {f"DS-{n}" for n in re.findall(r"(?:DS-|ds)(\d+)", text)}
    assert rules <= cited, f"rules without a test: {sorted(rules - cited)}"
