"""Score sheet in headless Chromium: a whole game on two phones with the table view following live
(SS-7, SS-10, SS-12), and the table view of 8 players by 15 rows on one TV screen and one tablet
screen, readable across the room (SS-12)."""
from __future__ import annotations

import json
import urllib.request

import pytest
from playwright.sync_api import expect

from tests.browser_fixtures import ROOT, fill_players, join_as, table_code

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "test-artifacts"
NAMES = ["Alexandra", "Benjamin", "Charlotte", "Dominic", "Eleanor", "Frederick", "Georgina", "Harrison"]


def _api(base: str, path: str, body=None, token=None):
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(base + path, data=data, headers=headers)) as resp:
        return json.loads(resp.read())


def start_score_sheet(host, base: str, names, sheet: str) -> str:
    """On the host's phone, start a Score sheet table on `sheet`; return the join URL it shows."""
    host.goto(base + "/")
    host.check('input[name="game"][value="score_sheet"]')
    fill_players(host, names)
    host.locator("details.options", has_text="Score sheet options").locator("summary").click()
    host.select_option('[data-testid="sheet-choice"]', sheet)
    host.click("text=Start the table")
    return host.locator(".join-url").get_attribute("href")


def fill_number(page, row: str, value: int) -> None:
    page.locator(f'[data-testid="input-{row}"]').fill(str(value))
    page.locator(f'[data-testid="fill-{row}"]').click()


def test_two_phones_fill_their_sheets_and_the_table_view_follows(servers, phone):  # SS-7 SS-10 SS-12
    first, second = servers
    host = phone()
    join_url = start_score_sheet(host, first, ["Ann", "Ben"], "sample")
    code = table_code(join_url)
    ann, ben = phone(), phone()
    join_as(ann, join_url, "Ann")
    join_as(ben, join_url.replace(first, second), "Ben")
    view = phone(viewport={"width": 1024, "height": 768}, is_mobile=False)
    view.goto(f"{second}/t/{code}/view")
    assert ann.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # Ann: the coins stepper up to 3, then a formula's two inputs, a yes, and a refused bonus
    for _ in range(3):
        ann.locator('[data-testid="row-coins"] .ss-step[data-step="1"]').click()
    expect(ann.locator('[data-testid="input-coins"]')).to_have_value("3")
    ann.locator('[data-testid="fill-coins"]').click()
    expect(ann.locator('[data-testid="points-coins"]')).to_have_text("3")
    ann.locator('[data-testid="input-pairs-a"]').fill("4")
    ann.locator('[data-testid="input-pairs-b"]').fill("2")
    ann.locator('[data-testid="fill-pairs"]').click()
    expect(ann.locator('[data-testid="points-pairs"]')).to_have_text("6")
    ann.locator('[data-testid="yes-first"]').click()
    expect(ann.locator('[data-testid="my-total"]')).to_have_text("14")
    fill_number(ann, "bonus", 60)
    expect(ann.locator('[data-testid="error"]')).to_contain_text("Bonus is between -10 and 50.")
    expect(ann.locator('[data-testid="my-total"]')).to_have_text("14")
    expect(view.locator('[data-testid="last-entry"]')).to_contain_text("Ann: First out yes \u2192 5", timeout=5000)
    expect(view.locator('[data-testid="cell-pairs-0"]')).to_have_text("6")

    # Ben types 3 and flips its sign with ± (a number pad without a minus), then fills it again with 20
    ben.locator('[data-testid="input-bonus"]').fill("3")
    ben.locator('[data-testid="neg-bonus"]').click()
    expect(ben.locator('[data-testid="input-bonus"]')).to_have_value("-3")
    ben.locator('[data-testid="fill-bonus"]').click()
    expect(ben.locator('[data-testid="my-total"]')).to_have_text("-3")
    fill_number(ben, "bonus", 20)
    expect(ben.locator('[data-testid="my-total"]')).to_have_text("20")
    expect(view.locator('[data-testid="total-1"]')).to_have_text("20", timeout=5000)
    ann.locator('[data-testid="end-open"]').click()
    ann.locator('[data-testid="end"]').click()
    expect(ann.locator('[data-testid="game-over"]')).to_have_text("Game over. Ben wins with 20.")
    expect(ben.locator('[data-testid="game-over"]')).to_have_text("Game over. Ben wins with 20.", timeout=5000)
    expect(ben.locator('[data-testid="empty-zero"]')).to_be_visible()
    expect(view.locator('[data-testid="winners"]')).to_have_text("Final. Ben wins with 20.", timeout=5000)
    expect(view.locator('[data-testid="empty-zero"]')).to_be_visible()


def _big_sheet() -> dict:
    """15 rows of every kind, as a long sheet of a heavy game has them."""
    kinds = [{"kind": "points", "min": -10, "max": 60}, {"kind": "count", "points_each": 2, "max": 20},
             {"kind": "table", "table": [-1, 1, 2, 3, 4], "max": 12}, {"kind": "check", "points": 5},
             {"kind": "formula", "expression": "t*t + c*c + g*g + 7*min(t, c, g)",
              "inputs": [{"name": "t", "min": 0, "max": 6}, {"name": "c", "min": 0, "max": 6},
                         {"name": "g", "min": 0, "max": 6}]}]
    rows = [{"id": f"r{n}", "label": f"Unfinished cities and pennants {n + 1}", **kinds[n % 5]} for n in range(15)]
    return {"name": "Long evening", "players": [1, 8], "wins": "highest", "tie_break": None, "rows": rows}


def _fill_for(row: dict, seat: int, n: int) -> dict:
    if row["kind"] == "formula":
        return {"kind": "fill", "row": row["id"], "inputs": {"t": 2, "c": 2, "g": 1}}
    value = {"points": 10 + seat + n, "count": seat + 1, "table": n % 6, "check": (seat + n) % 2}[row["kind"]]
    return {"kind": "fill", "row": row["id"], "value": value}


@pytest.mark.parametrize("size", [(1920, 1080), (1024, 768)])
def test_eight_players_by_fifteen_rows_fit_one_screen(servers, browser, size):  # SS-12
    base = servers[0]
    sheet = _big_sheet()
    table = _api(base, "/api/tables", {"game": "score_sheet", "players": NAMES, "options": {"sheet": sheet}})
    for n, row in enumerate(sheet["rows"][:-1]):
        for seat in range(8):
            _api(base, f"/api/tables/{table['code']}/entries", _fill_for(row, seat, n), table["seats"][seat]["token"])
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = ctx.new_page()
    page.goto(f"{base}/t/{table['code']}/view")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"score-sheet-8x15-{size[0]}x{size[1]}.png"))
    fit = page.evaluate("() => ({w: document.documentElement.scrollWidth, h: document.documentElement.scrollHeight})")
    assert fit["w"] <= size[0] and fit["h"] <= size[1], fit
    smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll('#board .tv-name, #board .tv-total')]
        .map(e => parseFloat(getComputedStyle(e).fontSize)))""")
    assert smallest >= (20 if size[0] == 1920 else 15)
    for name in NAMES:
        expect(page.locator("#board")).to_contain_text(name)
    expect(page.locator('[data-testid="rank-0"]')).to_be_visible()
    expect(page.locator('[data-testid="cell-r14-7"]')).to_be_visible()
    expect(page.locator('[data-testid="last-entry"]')).to_contain_text("Harrison: Unfinished cities and pennants 14")
    ctx.close()


def test_a_seven_row_sheet_is_made_on_a_phone_and_played(servers, phone):  # SS-2 SS-3 SS-14
    base = servers[0]
    page = phone()
    page.goto(f"{base}/score-sheet/designer")
    page.locator('[data-testid="sheet-name"]').fill("Harbour night")
    rows = [("Ships", "ships", "count", {"points_each": "3", "max": "10"}),
            ("Harbour", "harbour", "points", {"min": "-5", "max": "30"}),
            ("Lighthouse", "light", "check", {"points": "7"}),
            ("Nets", "nets", "table", {"table": "0, 1, 3, 6, 10", "max": "8"}),
            ("Cargo", "cargo", "formula", {"inputs": "fish 0 9; salt 0 9", "expression": "fish * salt // 2"}),
            ("Debts", "debts", "count", {"points_each": "-2", "max": "10"}),
            ("Bonus", "bonus", "points", {"min": "0", "max": "20"})]
    for n, (label, row_id, kind, fields) in enumerate(rows):
        if n:
            page.locator('[data-testid="add-row"]').click()
            expect(page.locator(f'[data-testid="design-row-{n}"]')).to_be_visible()
        page.locator(f'[data-testid="r{n}-kind"]').select_option(kind)
        expect(page.locator(f'[data-testid="r{n}-{next(iter(fields))}"]')).to_be_visible()
        page.locator(f'[data-testid="r{n}-label"]').fill(label)
        page.locator(f'[data-testid="r{n}-id"]').fill(row_id)
        for name, value in fields.items():
            page.locator(f'[data-testid="r{n}-{name}"]').fill(value)
    page.locator('[data-testid="r6-id"]').press("Tab")  # a change redraws the preview
    # the middle of each range: 5 ships 15, harbour 12, lighthouse 7, 4 nets 10, cargo 4*4//2 = 8,
    # 5 debts -10, bonus 10
    expect(page.locator('[data-testid="sample-total"]')).to_have_text("52")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.locator('[data-testid="save"]').click()
    expect(page.locator("h1")).to_have_text("Harbour night")
    sheet_id = page.url.rsplit("/", 1)[1]
    listed = {s["id"]: s for s in _api(base, "/api/sheets")}
    assert listed[sheet_id]["name"] == "Harbour night"
    table = _api(base, "/api/tables", {"game": "score_sheet", "players": ["Ann", "Ben"], "options": {"sheet": sheet_id}})
    assert [r["id"] for r in table_rows(base, table)] == [r[1] for r in rows]


def table_rows(base: str, table: dict) -> list:
    return _api(base, f"/api/tables/{table['code']}")["view"]["sheet"]["rows"]


@pytest.mark.parametrize("path", ["/score-sheet/sheets", "/score-sheet/sheets/7-wonders", "/score-sheet/designer?from=agricola",
                                  "/score-sheet/sheets/qwixx/share"])
def test_the_library_pages_pass_the_accessibility_checks_on_a_phone(servers, phone, path):  # SS-13 SS-14
    from tests.a11y import describe, small_targets, structure_problems, violations
    page = phone()
    assert page.goto(servers[0] + path).ok
    found = violations(page)
    assert not found, describe(found)
    assert not small_targets(page), small_targets(page)
    assert not structure_problems(page), structure_problems(page)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
