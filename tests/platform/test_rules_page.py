"""The rules in the app: /rules/<game> shows the game's rules.md with an anchor per numbered rule, and a
refusal links to the rule it applies (issue 12, item 5)."""
from __future__ import annotations

import re

import pytest

from companion.platform.core.registry import GAMES
from companion.platform.web.rules_page import cite_rules
from tests.helpers import bearer, join_seat, new_table, post_entry

GAME_IDS = [gid for gid, game in GAMES.items() if game.web is not None]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_numbered_rule_of_the_seed_has_its_anchor(client, game_id):
    seed = GAMES[game_id].rules_path.read_text()
    numbers = set(re.findall(r"^\*\*([A-Z]{2}-\d+)", seed, re.MULTILINE))
    assert len(numbers) >= 10
    page = client.get(f"/rules/{game_id}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert set(re.findall(r'<p id="([A-Z]{2}-\d+)" class="rule">', html)) == numbers
    assert f"<title>{GAMES[game_id].title} rules" in html


def test_an_unknown_game_has_no_rules_page(client):
    resp = client.get("/rules/chess")
    assert resp.status_code == 404
    assert "no rules here" in resp.get_data(as_text=True)


def test_a_refusal_links_the_rule_it_applies_on_the_phone(client):
    table = new_table(client, ["Ann", "Ben"], options={"turn_order": False})  # free play: Ann scores twice
    code = table["code"]
    assert post_entry(client, table, 0, kind="score", category="chance", dice=[1, 2, 3, 4, 5]).status_code == 201
    csrf = join_seat(client, code, 0)
    resp = client.post(f"/t/{code}/s/0/entries", data={"csrf_token": csrf, "category": "chance",
                                                         **{f"d{i}": "6" for i in range(5)}},
                       headers={"HX-Request": "true"})
    assert resp.status_code == 422
    html = resp.get_data(as_text=True)
    assert "Chance is already filled." in html
    assert re.search(r'<a href="/rules/dicez#DZ-3" class="rule-link">DZ-3</a>', html)
    rules = client.get("/rules/dicez").get_data(as_text=True)
    assert '<p id="DZ-3" class="rule"><strong>DZ-3</strong> A turn ends by writing the dice into exactly one box' in rules


def test_the_api_names_the_rule_of_a_refusal(client):
    table = new_table(client, ["Ann", "Ben"], game="score_pad")
    resp = client.post(f"/api/tables/{table['code']}/entries", json={"kind": "finish"},
                       headers=bearer(table["seats"][0]["token"]))
    assert resp.status_code == 422
    assert resp.get_json() == {"error": "Play at least one round before finishing the game.", "rule": "SP-10"}


def test_rule_numbers_named_in_a_text_become_links_and_unknown_ones_stay_text(app):
    with app.test_request_context():
        html = str(cite_rules("Five 6s <b> go by DZ-17, not DZ-99.", "dicez"))
    assert html == ('Five 6s &lt;b&gt; go by <a href="/rules/dicez#DZ-17" class="rule-link">DZ-17</a>, '
                    'not DZ-99.')
