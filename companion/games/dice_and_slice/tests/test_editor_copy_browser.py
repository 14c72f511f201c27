"""A new owner copies their box into the companion on a 360 x 640 phone (DS-2), starting from a
blank pad (its dice an ordinary die's pips): taps the shape each die face shows, names five toppings
and paints each on sheet side A as it is named (each side shown whole, with smaller squares than
the halves a phone shows at first), paints side B, taps the bonus combinations together,
and saves. Every tap is counted (typing into a field counts as the one tap that focuses it; the
fields typed are also counted apart): the whole copy must take at most 60 taps, filled top to bottom
without the page ever scrolling back up. The export then holds exactly the box that was copied (a
face may be stored turned or slid: DS-5 draws it either way)."""
from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from companion.games.dice_and_slice.rules.geometry import matches_face
from companion.games.dice_and_slice.tests.test_browser import ARTIFACTS, no_horizontal_scroll, tid

pytestmark = pytest.mark.browser
MAX_TAPS = 60  # issue 34 item 9

BOX_DICE = {
    "A": [[[1, 1]], [[0, 0], [2, 2]], [[0, 0], [1, 1], [2, 2]], [[0, 0], [2, 0], [0, 2], [2, 2]],
          [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]], [[0, 0], [1, 0], [2, 0]]],
    "B": [[[0, 0], [1, 0]], [[1, 0], [1, 1], [1, 2]], [[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 0], [0, 1], [1, 1]],
          [[0, 1], [1, 0], [1, 1], [1, 2], [2, 1]], [[0, 0], [2, 1]]],
}
BOX_TOPPINGS = ["mushroom", "olive", "pepper", "basil", "pineapple"]
BOX_SIDES = {  # (square x, y) -> topping, as printed on the pad
    "A": {(2, 0): "mushroom", (8, 0): "olive", (6, 1): "pepper", (1, 2): "olive", (9, 2): "basil",
          (4, 3): "pineapple", (8, 4): "mushroom", (11, 4): "pepper", (2, 5): "pepper", (6, 6): "olive",
          (1, 7): "basil", (9, 7): "pepper", (4, 8): "mushroom", (11, 8): "pineapple"},
    "B": {(5, 0): "olive", (1, 1): "pepper", (9, 1): "mushroom", (6, 2): "basil", (3, 3): "mushroom",
          (11, 3): "olive", (7, 4): "pepper", (0, 5): "olive", (4, 5): "basil", (9, 6): "pineapple",
          (2, 7): "pineapple", (8, 7): "pepper", (6, 8): "olive"},
}
BOX_BONUSES = [(["mushroom", "olive"], 5), (["pepper", "pepper"], 6), (["basil", "pineapple"], 4),
               (["mushroom", "olive", "pepper"], 9)]


FACE_NOW = """face => [...face.querySelectorAll('.ds-face-dots input:checked')]
    .map(box => box.name.match(/_(\\d)_(\\d)$/).slice(1).map(Number))"""


def _same_shape(a, b) -> bool:
    """The same face as far as drawing goes: turned and slid (DS-5), never flipped."""
    if not a or not b:
        return not a and not b
    return matches_face(frozenset(map(tuple, a)), frozenset(map(tuple, b)))


class Hand:
    """The owner's hand on the phone: every tap is counted, typing into a field as the one tap that
    focuses it (the fields typed are counted apart too); the page's scroll position is noted after
    every tap, and the owner's own swipes only ever go down."""

    def __init__(self, page):
        self.page, self.taps, self.fields, self.scrolls = page, 0, 0, [0]

    def _after(self):
        self.taps += 1
        self.scrolls.append(self.page.evaluate("window.scrollY"))

    def tap(self, testid=None, locator=None):
        (locator or tid(self.page, testid)).click()
        self._after()

    def type(self, testid, text):
        tid(self.page, testid).fill(text)
        self.fields += 1
        self._after()

    def swipe_to(self, locator):
        """Scroll down until `locator`'s top is at the top of the screen (a swipe, not a tap)."""
        locator.evaluate("el => window.scrollTo(0, Math.max(window.scrollY, el.getBoundingClientRect().top + window.scrollY))")
        self.scrolls.append(self.page.evaluate("window.scrollY"))

    def draw_face(self, die, n, wanted):
        """Leave a face that already shows the shape; else tap its shape; else tick its dots."""
        face = tid(self.page, f"face{die}-{n}")
        if _same_shape(face.evaluate(FACE_NOW), wanted):
            return
        for shape in face.locator(".ds-shape").all():
            dots = [[int(c) for c in xy] for xy in shape.get_attribute("data-dots").split()]
            if _same_shape(dots, wanted):
                self.tap(locator=shape)
                return
        self.tap(locator=face.get_by_role("button", name="Dot by dot"))
        now = {tuple(d) for d in face.evaluate(FACE_NOW)}
        for x, y in sorted(now ^ {tuple(d) for d in wanted}):
            self.tap(f"die{die}-{n}-{x}-{y}")


def paint(hand, side, topping, brushes=None):
    """Tap every square of `topping` on `side` (choosing it among the brushes first if asked)."""
    if brushes is not None:
        hand.tap(locator=brushes.locator(".ds-brush", has_text=topping))
    for (x, y), kind in BOX_SIDES[side].items():
        if kind == topping:
            hand.tap(f"sq{side}-{x}-{y}")


def copy_the_box(hand: Hand, page) -> None:
    hand.type("edition-name", "Our box")  # the label is left empty: the name stands for it
    hand.tap("whole-sheet")  # each side whole (smaller squares): the toppings and side A will fill the screen
    for die, faces in BOX_DICE.items():
        for n, face in enumerate(faces, 1):
            hand.draw_face(die, n, face)
    hand.swipe_to(page.locator(".ds-tops-edit"))
    for j, name in enumerate(BOX_TOPPINGS):  # a topping just named is the one a tap paints
        hand.type(f"top-name-{j}", name)
        paint(hand, "A", name)
    brushes = tid(page, "brushes")
    hand.swipe_to(brushes)
    paint(hand, "B", BOX_TOPPINGS[-1])  # still the brush in hand
    for topping in BOX_TOPPINGS[:-1]:
        paint(hand, "B", topping, brushes)
    ARTIFACTS.mkdir(exist_ok=True)  # the phone's screen as side B is finished
    page.screenshot(path=str(ARTIFACTS / "dice_and_slice-editor-copying.png"))
    for i, (tops, points) in enumerate(BOX_BONUSES):
        row = tid(page, f"bonus-row-{i}")
        for t in tops:  # a tap on a topping's name counts one more of it
            hand.tap(locator=row.locator(".ds-count-name", has_text=t))
        hand.type(f"bonus-{i}-points", str(points))
    hand.tap("save-edition")


def test_a_new_owner_copies_their_box_in_few_taps(servers, phone):
    base = servers[0]
    page = phone()
    page.goto(base + "/dice-and-slice/editions")
    hand = Hand(page)
    hand.tap("new-blank")
    expect(tid(page, "edition-name")).to_be_visible()
    assert no_horizontal_scroll(page)  # the sheet shows one half at a time on a phone
    copy_the_box(hand, page)
    expect(tid(page, "saved")).to_be_visible()
    print(f"copied the box in {hand.taps} taps, {hand.fields} of them into fields typed")
    assert hand.taps <= MAX_TAPS, hand.taps
    scrolls = hand.scrolls[:-1]  # the last one is the saved page's
    assert all(a <= b for a, b in zip(scrolls, scrolls[1:])), f"the page scrolled back up: {scrolls}"

    exported = json.loads(page.request.get(base + "/dice-and-slice/editions/export/Our box").body())["edition"]
    for die, faces in BOX_DICE.items():
        assert len(exported["dice"][die]) == 6
        for n, (stored, wanted) in enumerate(zip(exported["dice"][die], faces), 1):
            assert _same_shape(stored, wanted), (die, n, stored, wanted)
    assert exported["label"] == "Our box"
    for side, squares in BOX_SIDES.items():
        legend, rows = exported["sides"][side]["legend"], exported["sides"][side]["rows"]
        printed = {(x, y): legend[ch] for y, row in enumerate(rows) for x, ch in enumerate(row) if ch != "."}
        assert printed == squares
    assert sorted((sorted(b["toppings"]), b["points"]) for b in exported["topping_bonuses"]) == \
        sorted((sorted(t), p) for t, p in BOX_BONUSES)
    assert exported["slice_points"][14] == 25  # slice points keep their sensible default
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "dice_and_slice-editor.png"), full_page=True)
    # the saved box is shared as a link with a QR code, ready for another companion
    tid(page, "share-edition").click()
    expect(tid(page, "share-qr").locator("img")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "dice_and_slice-share.png"), full_page=True)


def test_a_tap_on_a_painted_square_clears_it_and_the_eraser_clears_any(servers, phone):
    page = phone()
    page.goto(servers[0] + "/dice-and-slice/editions/new")  # from the default: mushroom on side A (2,0)
    square = tid(page, "sqA-2-0")
    expect(square).to_have_value("M")
    brushes = tid(page, "brushes")
    brushes.locator(".ds-brush", has_text="mushroom").click()
    square.click()
    expect(square).to_have_value("")
    square.click()
    expect(square).to_have_value("M")
    brushes.locator(".ds-brush", has_text="Eraser").click()
    tid(page, "halfA-right").click()  # square 9 is on the sheet's right half
    tid(page, "sqA-8-0").click()
    expect(tid(page, "sqA-8-0")).to_have_value("")
    # a count cycles 1, 2, 3 and back to none
    name = tid(page, "bonus-row-0").locator(".ds-count-name", has_text="pepper")
    counts = []
    for _ in range(4):
        name.click()
        counts.append(tid(page, "bonus-row-0").locator('input[name="bonus0_t2"]').input_value())
    assert counts == ["1", "2", "3", ""]


def test_a_shape_tap_draws_a_face_and_an_odd_face_is_ticked_dot_by_dot(servers, phone):
    base = servers[0]
    page = phone()
    page.goto(base + "/dice-and-slice/editions/new?from=blank")
    tid(page, "edition-name").fill("Odd faces")
    face = tid(page, "faceB-3")  # an ordinary die's three: corner to corner
    line = face.get_by_role("button", name="three dots in a line")
    expect(face.get_by_role("button", name="three dots corner to corner")).to_have_attribute("aria-pressed", "true")
    line.click()
    expect(line).to_have_attribute("aria-pressed", "true")
    assert sorted(face.evaluate(FACE_NOW)) == [[0, 0], [1, 0], [2, 0]]
    odd = tid(page, "faceB-6")  # no shape button draws this one: a bent line of three and a dot
    expect(tid(page, "dieB-6-0-0")).to_be_hidden()  # a face a shape draws hides its dots
    odd.get_by_role("button", name="Dot by dot").click()
    odd.get_by_role("button", name="one dot").click()
    for x, y in [(1, 1), (0, 0), (1, 0), (2, 1), (2, 2)]:
        tid(page, f"dieB-6-{x}-{y}").click()
    expect(odd.locator(".ds-shape[aria-pressed=true]")).to_have_count(0)
    odd.get_by_role("button", name="Dot by dot").click()
    expect(tid(page, "dieB-6-0-0")).to_be_visible()  # an odd face keeps its dots on show
    tid(page, "top-name-0").fill("olive")
    tid(page, "sqA-0-0").click()  # the topping just named paints
    expect(tid(page, "sqA-0-0")).to_have_value("O")
    tid(page, "save-edition").click()
    expect(tid(page, "saved")).to_be_visible()
    exported = json.loads(page.request.get(base + "/dice-and-slice/editions/export/Odd faces").body())["edition"]
    assert sorted(map(tuple, exported["dice"]["B"][2])) == [(0, 0), (1, 0), (2, 0)]
    assert sorted(map(tuple, exported["dice"]["B"][5])) == [(0, 0), (1, 0), (2, 1), (2, 2)]
    assert exported["dice"]["A"][5] == [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [2, 2]]  # untouched: a six
