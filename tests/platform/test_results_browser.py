"""On a 360 x 640 phone: the Pizza Theory what-if after a reveal, a player's record page and the
result card (issue 13 items 3, 4, 6), against real servers and Chromium."""
from __future__ import annotations

import json
import urllib.request

import pytest
from playwright.sync_api import expect

from companion.games.pizza_theory.rules import apply, legal_spaces, new_state, view
from tests.browser_fixtures import fill_players, join_as, start_dicez_table, table_code
from tests.platform.test_records import BAD, GOOD, GOOD_TOTAL

pytestmark = pytest.mark.browser


def api_post(base: str, path: str, token: str, body: dict) -> dict:
    req = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read())


def seat_token(page, code: str) -> str:
    return next(c["value"] for c in page.context.cookies() if c["name"] == f"seat_{code}")


def fits_the_screen(page) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")


def watch_csp(page) -> list:
    blocked = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security Policy" in m.text else None)
    return blocked


def test_after_a_reveal_each_phone_shows_its_what_if_and_the_table_the_best_cuts(servers, phone):
    base = servers[0]
    host = phone()
    host.goto(base + "/")
    host.check('input[name="game"][value="pizza_theory"]')
    fill_players(host, ["Ann", "Ben", "Cy"])
    host.click("text=Start the table")
    join_url = host.locator(".join-url").get_attribute("href")
    code = table_code(join_url)
    phones = []
    for name in ("Ann", "Ben", "Cy"):
        p = phone()
        join_as(p, join_url, name)
        phones.append(p)
    blocked = watch_csp(phones[0])
    tokens = [seat_token(p, code) for p in phones]

    state = new_state(3, {})
    entries = f"/api/tables/{code}/entries"
    while state.phase == "add":
        seat = state.order[state.turn]
        space = sorted(legal_spaces(state, seat))[0]
        api_post(base, entries, tokens[seat], {"kind": "place", "space": list(space)})
        state = apply(state, seat, {"kind": "place", "space": list(space)})
    for seat, line in enumerate((2, 5, 4)):
        api_post(base, entries, tokens[seat], {"kind": "cut", "line": line})
        state = apply(state, seat, {"kind": "cut", "line": line})
    expected = view(state, None)["last_resolution"]["what_if"]

    for seat, p in enumerate(phones):
        p.reload()
        if seat == state.order[0]:  # their turn: the board comes first, the reveal folded under it
            reveal = p.locator('#sheet details[data-testid="reveal"]')
            assert reveal.get_attribute("open") is None
            reveal.locator("> summary").click()
        mine = expected[seat]
        table = p.locator('[data-testid="what-if"]')
        expect(table).to_be_visible()
        for n in range(1, 7):
            expect(p.locator(f'[data-testid="what-if-{n}"]')).to_contain_text(str(mine["by_line"][str(n)]))
        expect(p.locator('[data-testid="what-if-chosen"]')).to_have_text(f"[{mine['by_line'][str(mine['line_chosen'])]}]")
        verdict = p.locator('[data-testid="what-if-verdict"]')
        if mine["line_chosen"] in mine["best_lines"]:
            expect(verdict).to_contain_text("as good as any")
        else:
            expect(verdict).to_contain_text(f"line {' or '.join(map(str, mine['best_lines']))} with {mine['best_on_board']}")
        assert fits_the_screen(p)
    screen = phone()
    screen.goto(f"{base}/t/{code}/view")
    expect(screen.locator('[data-testid="table-reveal"]')).to_have_attribute("open", "")  # fresh: open
    for w, colour in zip(expected, ("red", "white", "green")):
        row = screen.locator(f'[data-testid="best-cut-{colour}"]')
        expect(row).to_contain_text(f"best cut: line {' or '.join(map(str, w['best_lines']))} ({w['best_on_board']})")
        expect(row).to_contain_text(f"chose {w['line_chosen']}")
    assert fits_the_screen(screen)
    assert blocked == []


def test_a_finished_game_leads_to_the_card_and_the_players_record(servers, phone):
    base = servers[1]
    host = phone()
    join_url = start_dicez_table(host, base, ["Ann", "Ben"])
    code = table_code(join_url)
    ann, ben = phone(), phone()
    join_as(ann, join_url, "Ann")
    join_as(ben, join_url, "Ben")
    blocked = watch_csp(ann)
    tokens = [seat_token(ann, code), seat_token(ben, code)]
    for turn in range(13):
        for seat, plan in enumerate((GOOD, BAD)):
            dice, box = plan[turn]
            api_post(base, f"/api/tables/{code}/entries", tokens[seat], {"kind": "score", "dice": dice, "category": box})

    # Ann's phone follows live to the end: the links arrive with the final sheet
    finale = ann.locator('[data-testid="finale"]')
    expect(finale).to_be_visible(timeout=8000)
    assert fits_the_screen(ann)
    href = ann.locator('[data-testid="bgstats"]').get_attribute("href")
    assert href.startswith("https://app.bgstatsapp.com/createPlay.html?data=")

    ann.locator('[data-testid="card-png"]').click()
    ann.wait_for_load_state()
    size = ann.evaluate("() => { const i = document.querySelector('img'); return [i.naturalWidth, i.naturalHeight]; }")
    assert size == [800, 190 + 2 * 72 + 60]
    ann.go_back()
    ann.locator('[data-testid="card-svg"]').click()
    expect(ann.locator("svg text", has_text=str(GOOD_TOTAL))).to_have_count(1)
    ann.go_back()

    ann.locator('[data-testid="record-link"]', has_text="Ann").click()
    expect(ann.locator('[data-testid="player-name"]')).to_have_text("Ann")
    expect(ann.locator('[data-testid="record-dicez"]')).to_contain_text(str(GOOD_TOTAL))
    chart = ann.locator('[data-testid="chart-dicez-2"] svg')  # the box averages, drawn on the server
    expect(chart).to_be_visible()
    assert chart.locator("rect").count() == 13
    box = chart.bounding_box()
    assert box["width"] <= 360 and box["height"] > 100
    assert fits_the_screen(ann)
    assert blocked == []
