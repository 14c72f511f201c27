"""Exports and hand-offs carry the game (issue 34 item 10), on 360 x 640 phones: a Score pad named
for the game played goes to BG Stats and History under that name, with a stable id and a rank per
player; a Dice and Slice CSV downloaded from History holds the slices by size and the bonuses,
seats numbered from 1 as on the start page."""
from __future__ import annotations

import csv
import io
import json
import random
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from companion.platform.core.registry import GAMES
from tests.browser_fixtures import ROOT, fill_players, join_as
from tests.contract.playout import playout
from companion.games.score_pad.tests.test_browser import type_and_enter

pytestmark = pytest.mark.browser
ARTIFACTS = ROOT / "test-artifacts"


def _bgstats_play(page) -> dict:
    href = page.locator('[data-testid="bgstats"]').get_attribute("href")
    return json.loads(parse_qs(urlsplit(href).query)["data"][0])


def _csv_from_link(page, link) -> list[dict]:
    with page.expect_download() as download:
        link.click()
    return list(csv.DictReader(io.StringIO(open(download.value.path(), encoding="utf-8").read())))


def test_a_pad_named_on_the_start_page_goes_to_bgstats_and_history_by_that_name(servers, phone):  # SP-2
    base = servers[0]
    host = phone()
    host.goto(base + "/")
    host.check('input[name="game"][value="score_pad"]')
    fill_players(host, ["Ann", "Ben"])
    host.locator("summary", has_text="Score pad options").click()
    host.fill('[data-testid="score-pad-name"]', "Ticket to Ride")
    host.fill('input[name="score_pad_rounds"]', "1")
    ARTIFACTS.mkdir(exist_ok=True)
    host.screenshot(path=str(ARTIFACTS / "score_pad-game-name.png"), full_page=True)
    host.click("text=Start the table")
    join_url = host.locator(".join-url").get_attribute("href")
    ann, ben = phone(), phone()
    join_as(ann, join_url, "Ann")
    join_as(ben, join_url, "Ben")
    type_and_enter(ann, 48)
    type_and_enter(ben, 61)
    expect(ben.locator('[data-testid="game-over"]')).to_have_text("Game over. Ben wins with 61.")

    play = _bgstats_play(ben)
    assert play["game"]["name"] == "Ticket to Ride"
    assert [(p["name"], p["rank"], p["winner"]) for p in play["players"]] == [("Ann", 2, False), ("Ben", 1, True)]
    ids = {p["name"]: p["sourcePlayerId"] for p in play["players"]}

    # History says which game it was, and a later game by Ann is the same player to BG Stats
    ann.goto(base + "/history")
    expect(ann.locator("ol.history > li").first.locator("strong")).to_have_text("Ticket to Ride")
    ann.screenshot(path=str(ARTIFACTS / "history-named-game.png"), full_page=True)
    rows = _csv_from_link(ann, ann.locator("ol.history > li").first.get_by_role("link", name="CSV"))
    assert [(r["seat"], r["name"], r["total"]) for r in rows] == [("1", "Ann", "48"), ("2", "Ben", "61")]

    host.goto(base + "/")
    host.check('input[name="game"][value="score_pad"]')
    fill_players(host, ["ann"])
    host.locator("summary", has_text="Score pad options").click()
    host.fill('input[name="score_pad_rounds"]', "1")
    host.click("text=Start the table")
    solo = phone()
    join_as(solo, host.locator(".join-url").get_attribute("href"), "ann")
    type_and_enter(solo, 5)
    expect(solo.locator('[data-testid="game-over"]')).to_be_visible()
    again = _bgstats_play(solo)
    assert again["game"]["name"] == "Score pad"  # no name given: the pad itself
    assert again["players"][0]["sourcePlayerId"] == ids["Ann"] != ids["Ben"]


def _finished_game(page, base: str, game_id: str) -> str:
    """A two-seat game played to its end through the API (a random playout)."""
    table = page.request.post(base + "/api/tables", data={"game": game_id, "players": ["Ann", "Ben"],
                                                          "options": {}}).json()
    _, steps = playout(GAMES[game_id], 2, random.Random(f"finished-{game_id}"))
    for step in steps:
        resp = page.request.post(f"{base}/api/tables/{table['code']}/entries", data=step.entry,
                                 headers={"Authorization": f"Bearer {table['seats'][step.seat]['token']}"})
        assert resp.status == 201, resp.text()
    return table["code"]


def test_a_dice_and_slice_csv_from_history_holds_the_sheets(servers, phone):
    base = servers[1]
    page = phone()
    code = _finished_game(page, base, "dice_and_slice")
    page.goto(f"{base}/t/{code}/history")
    rows = _csv_from_link(page, page.get_by_role("link", name="CSV"))
    assert [r["seat"] for r in rows] == ["1", "2"]
    view = page.request.get(f"{base}/api/tables/{code}").json()["view"]
    for row, sheet in zip(rows, view["players"]):
        made = {s["size"]: s["count"] for s in sheet["score"]["slices"]}
        assert {int(k.split("-")[0]): int(v) for k, v in row.items() if k.endswith("-square slices") and v != "0"} == made
        assert (int(row["slice points"]), int(row["bonus points"])) == (sheet["score"]["slice_total"],
                                                                        sheet["score"]["bonus_total"])
        assert int(row["slice points"]) + int(row["bonus points"]) == int(row["total"])


def test_a_pizza_theory_csv_from_history_holds_every_round(servers, phone):  # PT-12
    base = servers[0]
    page = phone()
    code = _finished_game(page, base, "pizza_theory")
    page.goto(f"{base}/t/{code}/history")
    rows = _csv_from_link(page, page.get_by_role("link", name="CSV"))
    rounds = [k for k in rows[0] if k.startswith("round ")]
    assert len(rounds) >= 2 and rounds == [f"round {n}" for n in range(1, len(rounds) + 1)]
    assert [(r["seat"], r["name"], r["colour"]) for r in rows] == [("1", "Ann", "red"), ("2", "Ben", "white")]
    for row in rows:
        assert row[rounds[-1]] == row["total"]
