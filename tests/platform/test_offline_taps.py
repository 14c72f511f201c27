"""Taps survive a dropped connection (issue 10, item 8): a phone without Wi-Fi keeps its taps in
order on the device, says how many wait, sends them once the connection is back and shows why the
rules refused any of them. Real servers, real Chromium in Playwright's offline mode."""
from __future__ import annotations

import json
import os
import urllib.request
from urllib.parse import parse_qs

import pytest
from playwright.sync_api import expect

from tests.a11y import describe, screenshot, violations
from tests.browser_fixtures import (ROOT, fill_players, free_ports, join_as, start_dicez_table, start_server, table_code,
                                   tap_dice)

pytestmark = pytest.mark.browser

WAITING = '[data-testid="taps-waiting"]'


def entries(base: str, code: str) -> list[dict]:
    with urllib.request.urlopen(f"{base}/api/tables/{code}/entries") as resp:
        return json.loads(resp.read())["entries"]


def dicez_seat(phone, base: str, name: str = "Ann"):
    """A one-seat DiceZ table; returns (the player's page on their sheet, the table code)."""
    join = start_dicez_table(phone(), base, [name])
    page = phone()
    join_as(page, join, name)
    expect(page.locator("h1.player")).to_contain_text(name)
    settled(page)
    return page, table_code(join)


def settled(page) -> None:
    """Wait until the sheet's live stream is open and no request is under way: a player puts the
    phone down on a sheet that has finished loading, not in the middle of its first refresh."""
    expect(page.locator("#live")).to_have_attribute("data-live", "open")
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    copy_kept(page)


COPY_KEPT = """async () => navigator.serviceWorker.controller !== null
  && Boolean(await caches.match(location.pathname))"""


def copy_kept(page) -> None:
    """Wait until the phone keeps a copy of the sheet to open without a connection (static/app.js and
    static/sw.js do that a moment after the sheet has loaded; on a busy machine installing the worker
    can take many seconds, so the wait is generous)."""
    for _ in range(300):
        if page.evaluate(COPY_KEPT):
            return
        page.wait_for_timeout(100)
    raise AssertionError("the phone kept no copy of the sheet")


def go_offline(page) -> None:
    """The phone loses its connection, and the page has heard so before the player's next tap (the
    browser tells a page it is offline a moment after the network goes: a tap in that moment is a
    tap made online)."""
    page.context.set_offline(True)
    page.wait_for_function("() => !navigator.onLine")


def score_offline(page, dice, box) -> None:
    """Tap the dice and a box while the phone has no connection (so no preview score is shown)."""
    tap_dice(page, dice)
    page.locator(f'[data-testid="score-{box}"]').click()


def scored(base: str, code: str) -> list[tuple[str, list[int]]]:
    return [(e["category"], e["dice"]) for e in entries(base, code) if e["kind"] == "score"]


def tap_faces(page, dice) -> None:
    """Tap each die's face in turn, as a player does at the start of a turn (no clearing first)."""
    for value in dice:
        page.locator(f'[data-testid="face-{value}"]').click()


def shown_dice(page) -> list[str]:
    return [page.locator(f'[data-testid="die-{i}"] small').all_inner_texts() for i in range(5)]


def snap(page, name: str) -> None:
    """The screen as test-artifacts/<name>.png, once axe-core finds nothing serious on it."""
    found = violations(page)
    assert not found, describe(found)
    screenshot(page, name)


def test_dicez_taps_made_offline_wait_on_the_phone_and_reach_the_server_once_in_order(servers, phone):
    base = servers[0]
    ann, code = dicez_seat(phone, base)
    go_offline(ann)
    expect(ann.locator('[data-testid="offline"]')).to_contain_text("No connection")
    tap_faces(ann, [1, 1, 1, 2, 3])
    ann.locator('[data-testid="score-ones"]').click()
    expect(ann.locator(WAITING)).to_have_text("1 tap waiting for the connection")
    # kept as an entry is: the box marked as kept (and not open to a second tap), the dice cleared
    expect(ann.locator('[data-testid="kept-ones"]')).to_be_disabled()
    assert shown_dice(ann) == [[]] * 5
    # the preview needs the server: the phone says so instead of showing nothing
    expect(ann.locator('[data-testid="preview-offline"]')).to_contain_text("preview is unavailable")
    tap_faces(ann, [2, 2, 5, 5, 5])  # the next turn, tapped straight in
    assert shown_dice(ann) == [["2"], ["2"], ["5"], ["5"], ["5"]]
    expect(ann.locator('[data-testid="score-fives"]')).to_have_text("–")  # no score the rules did not give
    snap(ann, "offline-dicez-second-turn")
    ann.locator('[data-testid="score-fives"]').click()
    expect(ann.locator(WAITING)).to_have_text("2 taps waiting for the connection")
    assert entries(base, code) == []  # nothing reached the server
    # A reload without a connection opens the sheet the phone last saw, with the taps it keeps.
    ann.reload()
    expect(ann.locator("h1.player")).to_contain_text("Ann")
    expect(ann.locator('[data-testid="offline"]')).to_contain_text("this is the sheet as this phone last saw it")
    expect(ann.locator(WAITING)).to_have_text("2 taps waiting for the connection")
    expect(ann.locator('[data-testid="kept-ones"]')).to_be_visible()
    expect(ann.locator('[data-testid="kept-fives"]')).to_be_visible()
    snap(ann, "offline-dicez-reloaded")
    ann.context.set_offline(False)
    expect(ann.locator('[data-testid="box-fives"]')).to_have_text("15")
    expect(ann.locator('[data-testid="box-ones"]')).to_have_text("3")
    expect(ann.locator(WAITING)).to_have_count(0)
    expect(ann.locator('[data-testid="offline"]')).to_have_count(0)
    expect(ann.locator('[data-testid="my-total"]')).to_have_text("18")
    assert scored(base, code) == [("ones", [1, 1, 1, 2, 3]), ("fives", [2, 2, 5, 5, 5])]


def test_free_play_dicez_offline_turns_carry_the_dice_tapped_for_them(servers, phone):
    """The tester's table: free play, Bob taps 6-6-6-6-6 and DiceZ offline, then a straight."""
    base = servers[1]
    join = start_dicez_table(phone(), base, ["Ann", "Bob"], turn_order=False)
    bob = phone()
    join_as(bob, join, "Bob")
    settled(bob)
    go_offline(bob)
    for dice, box in (([6, 6, 6, 6, 6], "dicez"), ([1, 2, 3, 4, 5], "large_straight"), ([3, 3, 4, 4, 4], "full_house")):
        tap_faces(bob, dice)
        bob.locator(f'[data-testid="score-{box}"]').click()
        expect(bob.locator(f'[data-testid="kept-{box}"]')).to_be_visible()
    bob.context.set_offline(False)
    expect(bob.locator(WAITING)).to_have_count(0)
    expect(bob.locator('[data-testid="box-dicez"]')).to_have_text("50")
    assert scored(base, table_code(join)) == [("dicez", [6, 6, 6, 6, 6]), ("large_straight", [1, 2, 3, 4, 5]),
                                              ("full_house", [3, 3, 4, 4, 4])]


def start_score_pad(host, base: str, names) -> str:
    """An open-ended Score pad (any number of rounds); returns the join URL."""
    host.goto(base + "/")
    host.check('input[name="game"][value="score_pad"]')
    fill_players(host, names)
    host.click("text=Start the table")
    return host.locator(".join-url").get_attribute("href")


def test_score_pad_taps_wait_while_offline_and_go_out_when_the_connection_returns(servers, phone):
    base = servers[1]
    join = start_score_pad(phone(), base, ["Cleo"])
    code = table_code(join)
    cleo = phone()
    join_as(cleo, join, "Cleo")
    expect(cleo.locator("h1.player")).to_contain_text("Cleo")
    settled(cleo)
    go_offline(cleo)
    for points in (12, -5):
        cleo.locator('[data-testid="points"]').fill(str(points))
        cleo.locator('[data-testid="enter-score"]').click()
    expect(cleo.locator(WAITING)).to_have_text("2 taps waiting for the connection")
    assert entries(base, code) == []
    # while offline the live stream is closed, not retried every second or two (its retry delay),
    # and the slow poll asks nothing either
    expect(cleo.locator("#live")).to_have_attribute("data-live", "offline")
    tries = []
    cleo.on("request", lambda request: tries.append(request.url) if "/live" in request.url or "/poll" in request.url
            else None)
    cleo.wait_for_timeout(4000)  # longer than the longest retry delay the stream names (3 s)
    assert tries == []
    cleo.context.set_offline(False)  # the page stays open: the `online` event sends them
    expect(cleo.locator(WAITING)).to_have_count(0)
    expect(cleo.locator('[data-testid="my-total"]')).to_have_text("7")
    expect(cleo.locator('[data-testid="cell-2-0"]')).to_have_text("-5")
    assert [e["points"] for e in entries(base, code)] == [12, -5]


def score_offline_turns(page, turns) -> None:
    for dice, box in turns:
        tap_faces(page, dice)
        page.locator(f'[data-testid="score-{box}"]').click()
        expect(page.locator(f'[data-testid="kept-{box}"]')).to_be_visible()


def test_an_undo_tapped_offline_shows_as_kept_and_takes_back_the_entry_kept_before_it(servers, phone):
    base = servers[1]
    ann, code = dicez_seat(phone, base)
    tap_faces(ann, [6, 6, 5, 5, 1])
    ann.locator('[data-testid="score-chance"]').click()
    expect(ann.locator('[data-testid="box-chance"]')).to_have_text("23")
    go_offline(ann)
    score_offline_turns(ann, [([1, 1, 2, 3, 4], "ones")])
    ann.locator('[data-testid="undo"]').click()
    expect(ann.locator('[data-testid="undo"]')).to_have_text("Undo kept: sent once the connection is back")
    expect(ann.locator('[data-testid="undo"]')).to_be_disabled()
    expect(ann.locator(WAITING)).to_have_text("2 taps waiting for the connection")
    ann.context.set_offline(False)
    expect(ann.locator(WAITING)).to_have_count(0)
    expect(ann.locator('[data-testid="score-ones"]')).to_be_enabled()  # open again
    expect(ann.locator('[data-testid="my-total"]')).to_have_text("23")
    assert [e["kind"] for e in entries(base, code)] == ["score", "score", "undo"]
    assert scored(base, code) == [("chance", [6, 6, 5, 5, 1]), ("ones", [1, 1, 2, 3, 4])]


def test_a_queued_tap_the_rules_refuse_says_why_and_holds_back_the_taps_after_it(servers, phone):
    base = servers[0]
    join = start_dicez_table(phone(), base, ["Ann", "Bob"])  # turns in seat order
    code = table_code(join)
    ann, bob = phone(), phone()
    join_as(ann, join, "Ann")
    join_as(bob, join, "Bob")
    settled(ann)
    go_offline(ann)
    # the phone cannot know that Bob's turn comes between Ann's: the second and third wait on it
    score_offline_turns(ann, [([1, 1, 1, 2, 3], "ones"), ([2, 2, 2, 3, 4], "twos"), ([3, 3, 3, 3, 1], "threes")])
    expect(ann.locator(WAITING)).to_have_text("3 taps waiting for the connection")
    ann.context.set_offline(False)
    # the first goes in; the second is refused and says why; the one after it waits for the player to choose
    expect(ann.locator('[data-testid="tap-refused"]')).to_have_text(
        "Not saved when it was sent: It is Bob's turn: turns go in seat order, so wait for Bob.")
    expect(ann.locator('[data-testid="taps-held"]')).to_have_text("1 tap after it is held back.")
    expect(ann.locator('[data-testid="kept-threes"]')).to_be_visible()  # the held tap is still shown as kept
    expect(ann.locator('[data-testid="box-ones"]')).to_have_text("3")
    expect(ann.locator('[data-testid="error"]')).to_contain_text("It is Bob's turn")  # on the sheet too
    assert scored(base, code) == [("ones", [1, 1, 1, 2, 3])]
    snap(ann, "offline-dicez-held-back")
    tap_dice(bob, [4, 4, 4, 1, 2])
    bob.locator('[data-testid="score-fours"]').click()
    expect(bob.locator('[data-testid="box-fours"]')).to_have_text("12")
    ann.locator('[data-testid="taps-send"]').click()  # send it: Ann's threes, now in her turn
    expect(ann.locator('[data-testid="box-threes"]')).to_have_text("12")
    expect(ann.locator('[data-testid="tap-queue"] p')).to_have_count(0)
    assert scored(base, code) == [("ones", [1, 1, 1, 2, 3]), ("fours", [4, 4, 4, 1, 2]), ("threes", [3, 3, 3, 3, 1])]
    # again, and this time the held tap is dropped: the sheet no longer shows it as kept
    go_offline(ann)
    score_offline_turns(ann, [([4, 4, 1, 2, 3], "fours"), ([5, 5, 5, 1, 2], "fives")])
    ann.context.set_offline(False)
    expect(ann.locator('[data-testid="taps-held"]')).to_have_text("1 tap after it is held back.")
    ann.locator('[data-testid="taps-drop"]').click()
    expect(ann.locator('[data-testid="tap-queue"] p')).to_have_count(0)
    expect(ann.locator('[data-testid="score-fives"]')).to_be_enabled()
    expect(ann.locator('[data-testid="kept-fives"]')).to_have_count(0)
    ann.reload()  # nothing is left on the phone to send
    expect(ann.locator('[data-testid="my-total"]')).to_have_text("15")
    expect(ann.locator('[data-testid="tap-queue"] p')).to_have_count(0)
    assert len(scored(base, code)) == 3


def test_a_tap_whose_answer_was_lost_is_sent_again_and_counts_once(servers, phone):
    base = servers[1]
    ann, code = dicez_seat(phone, base)
    delivered = []

    def deliver_then_drop_the_answer(route):
        if delivered:
            route.continue_()
            return
        route.fetch()  # the server gets the tap and answers ...
        delivered.append(route.request.post_data)
        route.abort("connectionreset")  # ... but the answer never reaches the phone

    posted = []

    def sent_twice(request) -> bool:
        if request.method == "POST" and request.url.endswith("/entries"):
            posted.append(parse_qs(request.post_data))
        return len(posted) == 2

    ann.route("**/entries", deliver_then_drop_the_answer)
    tap_dice(ann, [6, 6, 6, 6, 6])
    expect(ann.locator('[data-testid="score-dicez"]')).to_have_text("50")
    with ann.expect_request(sent_twice, timeout=20_000):  # the phone sends it again by itself
        ann.locator('[data-testid="score-dicez"]').click()
    expect(ann.locator(WAITING)).to_have_count(0)
    assert len(delivered) == 1
    assert posted[0]["key"] == posted[1]["key"] and posted[0]["category"] == posted[1]["category"] == ["dicez"]
    assert scored(base, code) == [("dicez", [6, 6, 6, 6, 6])]  # once
    expect(ann.locator('[data-testid="box-dicez"]')).to_have_text("50")
    expect(ann.locator('[data-testid="my-total"]')).to_have_text("50")


def test_a_sheet_whose_server_is_gone_opens_as_last_seen_and_gives_way_once_it_is_back(tmp_path, phone):
    """The phone still has Wi-Fi but the server does not answer (it was stopped): a reload opens the
    copy, says so, keeps a tap, does not reload over and over, and is the sheet itself again once the
    server is back, with the tap sent once."""
    port = free_ports(1)[0]
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'companion.sqlite'}",
           "SECRET_KEY": "browser-test-secret", "PYTHONPATH": str(ROOT)}
    server = start_server(port, env, tmp_path / "server.log")
    try:
        ann, code = dicez_seat(phone, base)
        server.terminate()
        server.wait(timeout=10)
        loads = []
        ann.on("load", lambda page: loads.append(page.url))
        ann.reload()
        expect(ann.locator('[data-testid="offline"]')).to_contain_text("this is the sheet as this phone last saw it")
        assert ann.evaluate("navigator.onLine")  # the phone itself believes it is online
        tap_faces(ann, [4, 4, 4, 4, 2])
        ann.locator('[data-testid="score-fours"]').click()  # unanswered: kept
        expect(ann.locator('[data-testid="kept-fours"]')).to_be_visible()
        ann.wait_for_timeout(4000)  # longer than the 3 s between its tries: the copy stays put meanwhile
        assert len(loads) == 1
        server = start_server(port, env, tmp_path / "server.log")
        expect(ann.locator('[data-testid="offline"]')).to_have_count(0)
        expect(ann.locator('[data-testid="box-fours"]')).to_have_text("16")
        expect(ann.locator(WAITING)).to_have_count(0)
        assert scored(base, code) == [("fours", [4, 4, 4, 4, 2])]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_rolls_recorded_offline_are_listed_as_kept_and_reach_the_server_as_tapped(servers, phone):
    """Roll by roll: each roll kept offline joins the rolls on the sheet, the dice stay for the next roll
    (as online), and the server's log holds every roll and the score as they were tapped."""
    base = servers[0]
    body = json.dumps({"game": "dicez", "players": ["Ann"], "options": {"roll_by_roll": True}}).encode()
    request = urllib.request.Request(base + "/api/tables", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as resp:
        table = json.loads(resp.read())
    ann = phone()
    ann.context.add_cookies([{"name": f"seat_{table['code']}", "value": table["seats"][0]["token"], "url": base}])
    ann.goto(f"{base}/t/{table['code']}/s/0")
    settled(ann)
    go_offline(ann)
    tap_faces(ann, [1, 2, 3, 4, 6])
    ann.locator('[data-testid="record-roll"]').click()
    expect(ann.locator('[data-testid="rolls"]')).to_have_text("Roll 1 of 3 recorded, the last kept on this phone. 1 2 3 4 6")
    assert shown_dice(ann) == [["1"], ["2"], ["3"], ["4"], ["6"]]
    for i in range(4):  # hold four dice, roll the last again: a 5
        ann.locator(f'[data-testid="hold-{i}"]').locator("xpath=..").click()
    ann.locator('[data-testid="die-4"]').click()
    tap_faces(ann, [5])
    ann.locator('[data-testid="record-roll"]').click()
    expect(ann.locator('[data-testid="rolls"]')).to_contain_text("Roll 2 of 3 recorded")
    expect(ann.locator('[data-testid="hold-0"]')).not_to_be_checked()  # the next roll's holds start afresh
    ann.locator('[data-testid="score-large_straight"]').click()
    expect(ann.locator('[data-testid="kept-large_straight"]')).to_be_visible()
    assert shown_dice(ann) == [[]] * 5
    expect(ann.locator(WAITING)).to_have_text("3 taps waiting for the connection")
    ann.context.set_offline(False)
    expect(ann.locator(WAITING)).to_have_count(0)
    expect(ann.locator('[data-testid="box-large_straight"]')).to_have_text("40")
    assert [(e["kind"], e.get("dice"), e.get("held")) for e in entries(base, table["code"])] == [
        ("roll", [1, 2, 3, 4, 6], []), ("roll", [1, 2, 3, 4, 5], [0, 1, 2, 3]), ("score", [1, 2, 3, 4, 5], None)]
