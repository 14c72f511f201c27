"""The table view's upper bonus row (issue 34 item 11): blank while a player's bonus is still open,
35 as soon as it is earned, 0 only once all six upper boxes are filled without it."""
from __future__ import annotations

import re

from tests.helpers import new_table, post_entry


def bonus_cells(client, code) -> list[str]:
    html = client.get(f"/t/{code}/board").get_data(as_text=True)
    return [re.search(rf'data-testid="view-upper-bonus-{seat}">([^<]*)<', html).group(1) for seat in (0, 1)]


def score(client, table, seat, dice, box):
    resp = post_entry(client, table, seat, kind="score", dice=dice, category=box)
    assert resp.status_code in (200, 201), resp.get_json()


def test_the_upper_bonus_shows_only_once_it_is_settled(client):
    table = new_table(client, ["Ann", "Ben"])
    code = table["code"]
    assert bonus_cells(client, code) == ["", ""]  # nobody has a 0 from the start
    ann = [([1, 2, 2, 3, 4], "ones"), ([2, 2, 3, 4, 5], "twos"), ([3, 3, 1, 2, 4], "threes"),
           ([4, 4, 1, 2, 3], "fours"), ([5, 5, 1, 2, 3], "fives"), ([6, 6, 1, 2, 3], "sixes")]
    ben = [([6, 6, 6, 6, 6], "sixes"), ([5, 5, 5, 5, 5], "fives"), ([4, 4, 4, 4, 4], "fours")]
    for turn, (dice, box) in enumerate(ann):
        score(client, table, 0, dice, box)
        if turn < len(ben):
            score(client, table, 1, *ben[turn])
        elif turn < len(ann) - 1:
            score(client, table, 1, [1, 2, 3, 4, 6], ["chance", "small_straight", "large_straight"][turn - len(ben)])
        if turn < 2:
            assert bonus_cells(client, code) == ["", ""]
        elif turn < len(ann) - 1:  # Ben reached 30+25+20 = 75 with three boxes: earned at once
            assert bonus_cells(client, code) == ["", "35"]
    # Ann filled her six upper boxes with 1+4+6+8+10+12 = 41: no bonus, and it can no longer come
    assert bonus_cells(client, code) == ["0", "35"]
