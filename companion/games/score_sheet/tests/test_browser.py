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


class Thumb:
    """A player's thumb on a phone, counting what it does: a tap per button, field or choice in a
    list (two: open the list, pick), one more tap to clear a field that already holds text, and a
    keystroke per character typed."""

    def __init__(self, page):
        self.page, self.taps, self.keys = page, 0, 0

    def tap(self, testid: str) -> None:
        self.page.locator(f'[data-testid="{testid}"]').click()
        self.taps += 1

    def type(self, testid: str, text: str) -> None:
        field = self.page.locator(f'[data-testid="{testid}"]')
        field.click()
        self.taps += 1
        if field.input_value() == text:
            return
        if field.input_value():
            field.fill("")
            self.taps += 1
        field.press_sequentially(text)
        self.keys += len(text)

    def choose(self, testid: str, value: str) -> None:
        self.page.locator(f'[data-testid="{testid}"]').select_option(value)
        self.taps += 2


# the 7 rows a game night's own sheet might have, every kind of row among them; a field a row leaves
# out keeps what the designer offers (a new row is "points" from 0 to 50, its id "rowN")
HARBOUR_ROWS = [("Ships", "count", {"points_each": "3", "max": "10"}),
                ("Harbour", "points", {"min": "-5", "max": "30"}),
                ("Lighthouse", "check", {"points": "7"}),
                ("Nets", "table", {"table": "0,1,3,6,10", "max": "8"}),
                ("Cargo", "formula", {"inputs": "f 0 9; s 0 9", "expression": "f*s//2"}),
                ("Debts", "count", {"points_each": "-2", "max": "10"}),
                ("Bonus", "points", {"max": "20"})]
DESIGNER_TAPS_MOST, DESIGNER_KEYS_MOST = 70, 110  # what the designer asks today, with a little room


def test_a_seven_row_sheet_is_made_on_a_phone_and_played(servers, phone):  # SS-2 SS-3 SS-14
    """The issue asks for a 7-row sheet in under 3 minutes on a phone: the taps and keystrokes are
    counted here (never the time); docs/performance.md turns them into a time."""
    base = servers[0]
    page = phone()
    page.goto(f"{base}/score-sheet/designer")
    thumb = Thumb(page)
    thumb.type("sheet-name", "Harbour night")
    for n, (label, kind, fields) in enumerate(HARBOUR_ROWS):
        if n:
            thumb.tap("add-row")
            expect(page.locator(f'[data-testid="design-row-{n}"]')).to_be_visible()
        if kind != "points":
            thumb.choose(f"r{n}-kind", kind)
        expect(page.locator(f'[data-testid="r{n}-{next(iter(fields))}"]')).to_be_visible()
        thumb.type(f"r{n}-label", label)
        for name, value in fields.items():
            thumb.type(f"r{n}-{name}", value)
    thumb.tap("show-preview")
    # the middle of each range: 5 ships 15, harbour 12, lighthouse 7, 4 nets 10, cargo 4*4//2 = 8,
    # 5 debts -10, bonus 10
    expect(page.locator('[data-testid="sample-total"]')).to_have_text("52")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    thumb.tap("save")
    expect(page.locator("h1")).to_have_text("Harbour night")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "score-sheet-designer-count.json").write_text(json.dumps({"taps": thumb.taps, "keys": thumb.keys}))
    assert thumb.taps <= DESIGNER_TAPS_MOST and thumb.keys <= DESIGNER_KEYS_MOST, (thumb.taps, thumb.keys)
    sheet_id = page.url.rsplit("/", 1)[1]
    listed = {s["id"]: s for s in _api(base, "/api/sheets")}
    assert listed[sheet_id]["name"] == "Harbour night"
    table = _api(base, "/api/tables", {"game": "score_sheet", "players": ["Ann", "Ben"], "options": {"sheet": sheet_id}})
    rows = table_rows(base, table)
    assert [(r["label"], r["kind"]) for r in rows] == [(label, kind) for label, kind, _ in HARBOUR_ROWS]
    assert rows[4]["expression"] == "f*s//2" and rows[3]["table"] == [0, 1, 3, 6, 10]


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


def test_the_browser_that_saved_a_sheet_changes_and_deletes_it_on_a_phone(servers, phone):  # SS-14 SS-1
    from tests.a11y import describe, small_targets, violations
    base = servers[0]
    page = phone()
    page.goto(f"{base}/score-sheet/designer?from=splendor")
    page.locator('[data-testid="sheet-name"]').fill("Splendor at home")
    page.locator('[data-testid="save"]').click()
    expect(page.locator("h1")).to_have_text("Splendor at home")
    sheet_id = page.url.rsplit("/", 1)[1]
    table = _api(base, "/api/tables", {"game": "score_sheet", "players": ["Ann", "Ben"], "options": {"sheet": sheet_id}})
    found = violations(page)
    assert not found and not small_targets(page), (describe(found), small_targets(page))

    page.locator('[data-testid="edit"]').click()
    expect(page.locator('[data-testid="editing"]')).to_be_visible()
    page.locator('[data-testid="r1-remove"]').click()
    expect(page.locator('[data-testid="design-row-1"]')).to_have_count(0)
    page.locator('[data-testid="sheet-name"]').fill("Splendor, cards only")
    page.locator('[data-testid="save"]').click()
    expect(page.locator("h1")).to_have_text("Splendor, cards only")
    assert page.url.endswith(f"/score-sheet/sheets/{sheet_id}")  # the same sheet, changed in place
    expect(page.locator('[data-testid="sheet-rows"] tbody tr')).to_have_count(1)
    other = phone()  # another phone may look at the sheet and copy it, never change or delete it
    other.goto(f"{base}/score-sheet/sheets/{sheet_id}")
    expect(other.locator('[data-testid="copy"]')).to_be_visible()
    expect(other.locator('[data-testid="edit"]')).to_have_count(0)
    expect(other.locator('[data-testid="delete"]')).to_have_count(0)

    page.locator('[data-testid="delete-open"]').click()
    page.locator('[data-testid="delete"]').click()
    expect(page.locator('[data-testid="deleted"]')).to_contain_text("“Splendor, cards only” was deleted")
    expect(page.locator(f'[data-testid="sheet-item"][data-id="{sheet_id}"]')).to_have_count(0)
    assert [r["id"] for r in table_rows(base, table)] == ["cards", "nobles"]  # the table keeps its copy
