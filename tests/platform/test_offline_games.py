"""Issue 34, item 1: every game's offline path records exactly what the player tapped. Each game's
phone goes offline, enters two turns' taps (as many as the phone can take without the server's
answer), comes back, and the server's log equals what was tapped, entry for entry; each kept tap shows
on the sheet at once as kept. (DiceZ: tests/platform/test_offline_taps.py.) Real servers, real Chromium
in Playwright's offline mode, phone-sized; screenshots of the changed screens go to test-artifacts/."""
from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import fill_players, join_as, table_code
from tests.platform.test_offline_taps import WAITING, entries, go_offline, settled, snap

pytestmark = pytest.mark.browser


def tid(page, name):
    return page.locator(f'[data-testid="{name}"]')


def back_online(page) -> None:
    """The connection returns with the page open: the kept taps go out by themselves."""
    page.context.set_offline(False)
    expect(tid(page, "taps-waiting")).to_have_count(0)
    expect(tid(page, "offline")).to_have_count(0)


# ---- Score pad --------------------------------------------------------------------------------
def start_score_pad(host, base: str, names, rounds: int) -> str:
    host.goto(base + "/")
    host.check('input[name="game"][value="score_pad"]')
    fill_players(host, names)
    host.locator("summary", has_text="Score pad options").click()
    host.fill('input[name="score_pad_rounds"]', str(rounds))
    host.click("text=Start the table")
    return host.locator(".join-url").get_attribute("href")


def test_score_pad_offline_entries_show_as_kept_and_a_second_tap_on_enter_is_no_new_round(servers, phone):
    base = servers[0]
    join = start_score_pad(phone(), base, ["Cleo"], rounds=3)
    cleo = phone()
    join_as(cleo, join, "Cleo")
    settled(cleo)
    go_offline(cleo)
    points, enter = tid(cleo, "points"), tid(cleo, "enter-score")
    points.fill("17")
    enter.click()
    # kept, and the sheet says so at once: the round's cell shows it as kept, the entry moved on
    expect(tid(cleo, "cell-1-0")).to_have_text("17 (kept on this phone, not sent yet)")
    expect(tid(cleo, "cell-1-0")).to_have_attribute("data-kept", "yes")
    expect(cleo.locator("label[for=points]")).to_have_text("Round 2 of 3: your score")
    expect(points).to_have_value("")
    expect(tid(cleo, "kept")).to_have_text("Kept on this phone: 17 for round 1. It is sent once the connection is back.")
    # the tester's second tap on Enter (or the keyboard's Enter) is no new round with the same score
    expect(enter).to_be_disabled()
    points.press("Enter")
    expect(cleo.locator(WAITING)).to_have_text("1 tap waiting for the connection")
    snap(cleo, "offline-score-pad-kept")
    points.fill("9")
    enter.click()
    expect(tid(cleo, "cell-2-0")).to_contain_text("9")
    expect(cleo.locator(WAITING)).to_have_text("2 taps waiting for the connection")
    assert entries(base, table_code(join)) == []
    cleo.reload()  # without a connection: the sheet as last seen, with both kept
    expect(tid(cleo, "offline")).to_contain_text("last saw it")
    expect(tid(cleo, "cell-1-0")).to_have_attribute("data-kept", "yes")
    expect(tid(cleo, "cell-2-0")).to_have_attribute("data-kept", "yes")
    expect(cleo.locator("label[for=points]")).to_have_text("Round 3 of 3: your score")
    back_online(cleo)
    expect(tid(cleo, "my-total")).to_have_text("26")
    expect(tid(cleo, "cell-2-0")).not_to_have_attribute("data-kept", "yes")
    assert [(e["kind"], e["points"]) for e in entries(base, table_code(join))] == [("score", 17), ("score", 9)]


# ---- Dice and Slice ---------------------------------------------------------------------------
GHOST_DOTS = """() => { const svg = document.querySelector('#sheet svg.ds-sheet[data-tap]');
  const cell = Number(svg.dataset.cell) || 10;
  return Array.from(svg.querySelectorAll('[data-testid=ghost-new], [data-testid=ghost-overlap]'),
                    (c) => [Math.round(c.cx.baseVal.value / cell), Math.round(c.cy.baseVal.value / cell)]); }"""


def offline_step(page, tap, kept_text: str, shot: str | None = None) -> None:
    """One step of a turn tapped without a connection: kept, shown as kept, its controls at rest."""
    go_offline(page)
    tap()
    expect(tid(page, "kept")).to_contain_text(kept_text)
    expect(page.locator(WAITING)).to_have_text("1 tap waiting for the connection")
    if shot:
        snap(page, shot)
    back_online(page)


def dice_and_slice_turn(page, faces, try_a_move=False) -> list:
    """Roll, choose and place, each step tapped offline; returns the entries the taps stand for. With
    `try_a_move`, an arrow is tapped offline first: a move is drawn by the server, so the phone says it
    needs the connection, and nothing is kept."""
    def roll():
        for die, face in zip("AB", faces):
            page.locator(f'[data-testid="face-{die}-{face}"] + span').click()
        tid(page, "enter-roll").click()
        expect(tid(page, "enter-roll")).to_be_disabled()

    offline_step(page, roll, f"the roll, die A {faces[0]} and die B {faces[1]}", shot="offline-dice-and-slice-roll-kept")
    offline_step(page, lambda: tid(page, "choose-A").click(), "your choice of die A")
    expect(tid(page, "place")).to_be_enabled()
    if try_a_move:
        go_offline(page)
        tid(page, "move-left").click()
        expect(page.locator("#notice")).to_have_text(
            "No connection: this step needs the server. Tap again when the phone is back online.")
        expect(page.locator(WAITING)).to_have_count(0)
        back_online(page)
    dots = sorted(page.evaluate(GHOST_DOTS))
    offline_step(page, lambda: tid(page, "place").click(), "your pattern")
    tapped = [("roll", {"A": faces[0], "B": faces[1]}), ("choose", "A"), ("place", dots)]
    if tid(page, "skip-bonus").count():  # a topping's bonus dot: skipped, online
        tid(page, "skip-bonus").click()
        tapped.append(("skip_bonus", None))
    return tapped


def logged(entry):
    kind = entry["kind"]
    detail = {"roll": lambda: entry["faces"], "choose": lambda: entry["die"],
              "place": lambda: sorted(entry["dots"]), "skip_bonus": lambda: None}[kind]()
    return kind, detail


def test_dice_and_slice_offline_steps_reach_the_server_as_tapped(servers, phone):
    base = servers[1]
    host = phone()
    host.goto(base + "/")
    host.check('input[name="game"][value="dice_and_slice"]')
    fill_players(host, ["Ann"])
    host.click("text=Start the table")
    join = host.locator(".join-url").get_attribute("href")
    ann = phone()
    join_as(ann, join, "Ann")
    settled(ann)
    tapped = dice_and_slice_turn(ann, (6, 3), try_a_move=True)
    expect(tid(ann, "turn")).to_contain_text("Turn 2")
    tapped += dice_and_slice_turn(ann, (2, 5))
    expect(tid(ann, "turn")).to_contain_text("Turn 3")
    assert [logged(e) for e in entries(base, table_code(join))] == [
        (kind, [list(d) for d in detail] if kind == "place" else detail) for kind, detail in tapped]


# ---- Pizza Theory -----------------------------------------------------------------------------
def new_table(base: str, game: str, players, options) -> str:
    """A table made through the JSON API (no seat tokens: the phones take the seats); its join URL."""
    body = json.dumps({"game": game, "players": players, "options": options, "seat_tokens": False}).encode()
    req = urllib.request.Request(base + "/api/tables", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read())["join_url"]


def place_first_allowed(page) -> str:
    """Tap the first space the phone marks as allowed; returns its value ("x,y")."""
    expect(tid(page, "instruction")).to_contain_text("Your turn")
    space = page.locator("button.pt-space.legal").first
    value = space.get_attribute("value")
    space.click()
    return value


def test_pizza_theory_offline_topping_and_cut_reach_the_server_as_tapped(servers, phone):
    base = servers[0]
    join = new_table(base, "pizza_theory", ["Ann", "Ben", "Cy"], {"first_seat": 0})
    ann, ben, cy = phone(), phone(), phone()
    for page, name in ((ann, "Ann"), (ben, "Ben"), (cy, "Cy")):
        join_as(page, join, name)
    settled(ann)
    go_offline(ann)
    space = place_first_allowed(ann)  # Ann's topping, tapped offline: kept, and no second one taken
    expect(tid(ann, "kept")).to_have_text("Kept on this phone: your topping is sent once the connection is back.")
    expect(ann.locator(f'[data-testid="space-{space}"]')).to_have_class(re.compile(r"\bkept-mark\b"))
    expect(ann.locator("button.pt-space:enabled")).to_have_count(0)
    snap(ann, "offline-pizza-theory-topping-kept")
    back_online(ann)
    for page in (ben, cy):
        place_first_allowed(page)
    expect(tid(ann, "instruction")).to_contain_text("Choose your cut")
    settled(ann)
    go_offline(ann)  # her cut, and a change of mind, both offline
    tid(ann, "line-2").click()
    expect(tid(ann, "kept")).to_contain_text("your cut, line 2")
    tid(ann, "line-5").click()
    expect(tid(ann, "kept")).to_contain_text("your cut, line 5")
    expect(tid(ann, "line-5")).to_have_attribute("aria-pressed", "true")
    expect(ann.locator(WAITING)).to_have_text("2 taps waiting for the connection")
    back_online(ann)
    tid(ben, "line-1").click()
    expect(tid(ben, "line-1")).to_have_attribute("aria-pressed", "true")
    tid(cy, "line-3").click()  # the last choice reveals the round
    expect(tid(ann, "reveal")).to_be_visible()
    log = [e for e in entries(base, table_code(join)) if e["seat"] == 0]
    assert [(e["kind"], e.get("space"), e.get("line")) for e in log] == [
        ("place", [int(v) for v in space.split(",")], None), ("cut", None, 2), ("cut", None, 5)]


def test_score_pad_entry_kept_offline_at_a_shared_pad_waits_for_the_round_as_online(servers, phone):
    """With more than one player the next round opens only when everyone has entered this one (SP-5):
    a kept entry leaves nothing to type, as an online one does, and says what is kept."""
    base = servers[1]
    join = start_score_pad(phone(), base, ["Ann", "Ben"], rounds=2)
    ann, ben = phone(), phone()
    join_as(ann, join, "Ann")
    join_as(ben, join, "Ben")
    settled(ann)
    go_offline(ann)
    tid(ann, "points").fill("10")
    tid(ann, "enter-score").click()
    expect(tid(ann, "kept")).to_have_text("Kept on this phone: 10 for round 1. It is sent once the connection is back.")
    expect(tid(ann, "points")).to_be_hidden()
    expect(tid(ann, "cell-1-0")).to_contain_text("10")
    tid(ben, "points").fill("4")
    tid(ben, "enter-score").click()
    expect(tid(ben, "entered")).to_contain_text("You entered 4 for round 1")
    back_online(ann)
    expect(tid(ann, "points")).to_be_visible()  # round 2, drawn by the server
    expect(ann.locator("label[for=points]")).to_have_text("Round 2 of 2: your score")
    assert sorted((e["seat"], e["points"]) for e in entries(base, table_code(join))) == [(0, 10), (1, 4)]
