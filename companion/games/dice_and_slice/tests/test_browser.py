"""Three phones play Dice and Slice: the first turns by tapping (roll, choose, tap a dot, rotate,
arrows, place, a bonus dot), the rest through the JSON API, until the engine ends the game and
every phone shows the engine's final scores. Rules cited as DS-n (rules.md)."""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from tests.browser_fixtures import join_as, settle
from playwright.sync_api import expect

from companion.games.dice_and_slice.rules import geometry as g

pytestmark = pytest.mark.browser
ARTIFACTS = Path(__file__).resolve().parents[4] / "test-artifacts"
LIVE = 5000  # ms: generous; bench/bench_live.py measures how fast changes really arrive


def api(base, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                 headers=headers, method="GET" if body is None else "POST")
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read() or b"null")


def tid(page, name):
    return page.locator(f'[data-testid="{name}"]')


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def big_enough(locator) -> bool:
    for _ in range(20):  # a live refresh may be swapping the sheet just now: measure again
        expect(locator).to_be_visible()
        box = locator.bounding_box(timeout=1000)
        if box:
            return box["width"] >= 44 and box["height"] >= 44
    raise AssertionError("could not measure the control")


def tap_dot(page, x, y):
    """Tap the sheet's picture where dot (x, y) is drawn (the viewBox starts half a cell before dot 0)."""
    sheet = tid(page, "tap-sheet")
    expect(sheet).to_be_visible()
    box = sheet.bounding_box()
    sheet.click(position={"x": (x * 10 + 5) / 130 * box["width"], "y": (y * 10 + 5) / 100 * box["height"]})


def play_rest_through_api(base, code, tokens):
    """Every later turn: roll 6/6, choose A, each seat takes the placement with the most new dots."""
    for _ in range(600):
        view = api(base, f"/api/tables/{code}")["view"]
        if view["finished"]:
            return view
        if view["phase"] == "roll":
            api(base, f"/api/tables/{code}/entries", {"kind": "roll", "faces": {"A": 6, "B": 6}}, tokens[view["active"]])
        elif view["phase"] == "choose":
            api(base, f"/api/tables/{code}/entries", {"kind": "choose", "die": "A"}, tokens[view["active"]])
        else:
            for seat in view["waiting_for"]:
                p = view["players"][seat]
                if p["status"] == "bonus":
                    api(base, f"/api/tables/{code}/entries", {"kind": "skip_bonus"}, tokens[seat])
                    continue
                face = [tuple(d) for d in view["rolled"][p["die"]]["dots"]]
                best = max(g.legal_placements([tuple(d) for d in p["dots"]], face), key=lambda o: len(o["new"]))
                api(base, f"/api/tables/{code}/entries", {"kind": "place", "dots": best["dots"]}, tokens[seat])
    raise AssertionError("the game did not end")


def take_the_seats(phone, join_url, first, names_and_bases):
    """A phone for each (name, server base): it opens the join link on that server and taps the name."""
    phones = []
    for name, base in names_and_bases:
        page = phone()
        join_as(page, join_url.replace(first, base), name)
        expect(page.locator("h1.player")).to_contain_text(name)
        phones.append(page)
    return phones


def expect_turn_on_every_phone(phones, turn):
    for p in phones:
        expect(tid(p, "turn")).to_contain_text(f"Turn {turn}", timeout=LIVE)


def expect_the_final_scores(page, totals):
    """The phone shows the game as over, each seat's final line ending in its total, and fits the screen."""
    expect(tid(page, "game-over")).to_be_visible(timeout=LIVE)
    for i, total in enumerate(totals):
        cell = tid(page, f"final-{i}")
        expect(cell).to_contain_text(str(total))
        assert cell.inner_text().strip().endswith(str(total))
    assert no_horizontal_scroll(page)


def expect_the_view_to_name_the_winners(view, final, totals, names):
    """The engine's winners are every seat with the top total (ties share); the table view names
    exactly them with that total and shows every seat's total."""
    winners = [names[w] for w in final["winners"]]
    assert winners and final["winners"] == [i for i, t in enumerate(totals) if t == max(totals)]
    expect(tid(view, "winners")).to_have_text(
        ", ".join(f"★ {name}" for name in winners) + f" with {max(totals)}", timeout=LIVE)
    for i, total in enumerate(totals):
        expect(tid(view, f"view-total-{i}")).to_have_text(str(total))


def test_three_phones_play_dice_and_slice_to_the_final_score(servers, phone):
    first, second = servers
    # the phones take the seats; the API client gets no seat tokens of its own
    table = api(first, "/api/tables", {"game": "dice_and_slice", "players": ["Ann", "Ben", "Cy"],
                                       "options": {"edition": "default", "side": "A"}, "seat_tokens": False})
    code = table["code"]
    join_url = table["join_url"]

    phones = take_the_seats(phone, join_url, first, (("Ann", first), ("Ben", second), ("Cy", first)))
    ann, ben, cy = phones
    view = phone(viewport={"width": 1024, "height": 768}, is_mobile=False)
    view.goto(f"{second}/t/{code}/view")

    # --- turn 1: Ann is the active player (DS-3) ---------------------------------------------
    expect(tid(ben, "turn")).to_contain_text("Ann is the active player")
    assert all(no_horizontal_scroll(p) for p in phones)
    face = ann.locator('[data-testid="face-A-6"] + span')
    assert big_enough(face)
    face.click()
    ann.locator('[data-testid="face-B-3"] + span').click()
    tid(ann, "enter-roll").click()
    expect(tid(ben, "turn")).to_contain_text("Ann rolled and is choosing", timeout=LIVE)
    assert big_enough(tid(ann, "choose-B"))
    tid(ann, "choose-B").click()
    # DS-4: Ann draws die B; Ben and Cy are told to use die A
    expect(tid(ann, "my-die")).to_have_text("die B")
    expect(tid(ben, "my-die")).to_have_text("die A", timeout=LIVE)
    expect(tid(cy, "my-die")).to_have_text("die A", timeout=LIVE)

    # Ann taps dot (2,0): her 2 x 2 block closes square (2,0), which carries a mushroom (DS-10, DS-11)
    tap_dot(ann, 2, 0)
    expect(tid(ann, "verdict")).to_contain_text("closes a 1-square slice")
    for control in ("move-up", "move-left", "move-down", "move-right", "rotate", "place"):
        assert big_enough(tid(ann, control)), control
    tid(ann, "place").click()
    expect(tid(ann, "place-bonus")).to_be_visible()
    expect(ann.locator("#sheet")).to_contain_text("Crosses off")
    tap_dot(ann, 10, 9)
    expect(tid(ann, "verdict")).to_contain_text("on the bottom edge, 11th dot from the left")
    tid(ann, "move-left").click()
    expect(tid(ann, "verdict")).to_contain_text("on the bottom edge, 10th dot from the left")
    tid(ann, "place-bonus").click()
    expect(ann.locator(".ds-top.used")).to_have_count(1)  # the mushroom is crossed off
    expect(tid(ann, "progress-0")).to_have_attribute("data-status", "done")
    expect(tid(ann, "my-total")).to_have_text("1")  # one 1-square slice

    # Ben: die A face 6 (a plus), moved by the arrow pad and turned, then placed
    expect(tid(ben, "ghost")).to_be_visible()
    settle(ben, second, code)
    was = [ben.locator(f'#ds-nav input[name="{k}"]').input_value() for k in ("dx", "dy")]
    tap_dot(ben, 1, 1)
    # the ghost has moved (its place is the pad's state) before the next step is tapped: the verdict
    # alone could be the one drawn before the tap
    ben.wait_for_function("""was => { const nav = document.getElementById('ds-nav');
        return nav && (nav.elements.dx.value !== was[0] || nav.elements.dy.value !== was[1]); }""", arg=was)
    expect(tid(ben, "verdict")).to_contain_text("Place here marks 5 new dots")
    tid(ben, "move-up").click()  # one step past the edge: DS-5 refuses it, with the reason
    expect(tid(ben, "verdict")).to_contain_text("Off the sheet")
    expect(tid(ben, "place")).to_be_disabled()
    tid(ben, "move-down").click()
    expect(tid(ben, "verdict")).to_contain_text("Place here marks")  # as a player would, look before turning it
    tid(ben, "rotate").click()
    expect(tid(ben, "verdict")).to_contain_text("Turned a quarter turn clockwise")
    tid(ben, "place").click()
    expect(tid(ben, "progress-1")).to_have_attribute("data-status", "done")
    # Cy keeps the suggested spot and confirms with the keyboard
    settle(cy, first, code)
    tid(cy, "place").focus()
    cy.keyboard.press("Enter")
    # DS-13: everyone is done, the turn closes by itself and Ben is announced on every phone
    expect_turn_on_every_phone(phones, 2)
    expect(tid(ann, "turn")).to_contain_text("Ben is the active player")
    expect(tid(view, "view-turn")).to_contain_text("Ben is the active player", timeout=LIVE)
    expect(tid(view, "view-total-0")).to_have_text("1")

    # --- turn 2: Ben rolls and chooses by tapping; the others place where suggested -----------
    settle(ben, second, code)
    ben.locator('[data-testid="face-A-2"] + span').click()
    ben.locator('[data-testid="face-B-1"] + span').click()
    tid(ben, "enter-roll").click()
    expect(tid(ben, "choose-A")).to_be_visible()
    tid(ben, "choose-A").click()
    for p, base in zip(phones, (first, second, first)):
        expect(tid(p, "place")).to_be_enabled(timeout=LIVE)
        settle(p, base, code)
        tid(p, "place").click()
        expect(tid(p, "place")).to_have_count(0)
    expect_turn_on_every_phone(phones, 3)
    assert all(no_horizontal_scroll(p) for p in phones)

    # --- the rest of the game through the JSON API with the phones' own seat tokens ------------
    tokens = [next(c["value"] for c in p.context.cookies() if c["name"] == f"seat_{code}") for p in phones]
    final = play_rest_through_api(first, code, tokens)
    assert final["finished"]  # DS-14: the engine ended the game
    totals = [p["total"] for p in final["players"]]
    for p in phones:
        expect_the_final_scores(p, totals)
    # DS-15: the table view names exactly the winners (ties share) with the winning total
    expect_the_view_to_name_the_winners(view, final, totals, ["Ann", "Ben", "Cy"])
    # the topping-bonus strip shows how each bonus ended, never "open" (DS-12)
    for b in final["topping_bonuses"]:
        state = tid(ann, f"bonus-{b['bonus']}").locator(".ds-bonus-state")
        expect(state).not_to_have_text("open")
        if b["status"] == "open":
            expect(state).to_have_text("nobody made it")
    ARTIFACTS.mkdir(exist_ok=True)
    ann.screenshot(path=str(ARTIFACTS / "dice_and_slice-phone-final.png"), full_page=True)
