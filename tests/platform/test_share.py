"""Sharing a finished game (issue 13 items 5 and 6): the BG Stats push-play link and the result card."""
from __future__ import annotations

import json
import re
import struct
import xml.etree.ElementTree as ET
from datetime import datetime
from html import unescape
from urllib.parse import parse_qs, urlsplit

from companion.platform.web.share import BGSTATS_URL
from tests.helpers import new_table, post_entry
from tests.platform.test_records import BAD, BAD_TOTAL, GOOD, GOOD_TOTAL, play_dicez, play_score_pad


def _bgstats_from(html: str) -> dict:
    """The play a page's "Send to BG Stats" link carries, decoded as BG Stats would."""
    href = unescape(re.search(r'href="([^"]+)"[^>]*data-testid="bgstats"', html).group(1))
    assert href.startswith(BGSTATS_URL)
    parts = urlsplit(href)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "app.bgstatsapp.com", "/createPlay.html")
    return json.loads(parse_qs(parts.query, strict_parsing=True)["data"][0])


def test_the_bgstats_play_matches_the_table(client):
    table = play_dicez(client, ["Ann", "Ben Ö"], [GOOD, BAD])
    code = table["code"]
    play = _bgstats_from(client.get(f"/t/{code}/view").get_data(as_text=True))
    state = client.get(f"/api/tables/{code}").get_json()
    assert play["sourceName"] == "Game companion"
    assert play["sourcePlayId"] == f"{code}-1"
    assert datetime.strptime(play["playDate"], "%Y-%m-%d %H:%M:%S")
    assert isinstance(play["durationMin"], int) and play["durationMin"] >= 1
    assert play["game"] == {"name": "DiceZ", "highestWins": True, "sourceGameId": "dicez"}  # no BGG id invented
    ids = [p.pop("sourcePlayerId") for p in play["players"]]
    assert play["players"] == [
        {"name": "Ann", "score": GOOD_TOTAL, "winner": True, "rank": 1, "startPlayer": True},
        {"name": "Ben Ö", "score": BAD_TOTAL, "winner": False, "rank": 2, "startPlayer": False},
    ]
    assert len(set(ids)) == 2 and not any("Ann" in i or "Ben" in i for i in ids)
    for p, player_id in zip(play["players"], ids):
        p["sourcePlayerId"] = player_id
    assert [p["score"] for p in play["players"]] == [p["total"] for p in state["players"]]
    # the same play in the game's JSON export, on the history page and on the phone's final sheet
    export = client.get(f"/t/{code}/games/1/export.json").get_json()
    assert export["bgstats"] == play
    client.set_cookie(f"host_{code}", table["host_token"])  # /history lists this browser's tables
    history = client.get("/history").get_data(as_text=True)
    href = unescape(re.search(r'href="([^"]+)"[^>]*data-testid="history-bgstats"', history).group(1))
    assert json.loads(parse_qs(urlsplit(href).query)["data"][0]) == play


def test_a_lowest_wins_pad_tells_bgstats_so(client):
    table = play_score_pad(client, ["Ann", "Ben"], [(3, 9)], wins="lowest")
    client.set_cookie(f"host_{table['code']}", table["host_token"])  # /history lists this browser's tables
    export_path = re.search(r'href="(/t/\w+/games/1/export\.json)"', client.get("/history").get_data(as_text=True))
    play = client.get(export_path.group(1)).get_json()["bgstats"]
    assert play["game"]["highestWins"] is False
    assert [(p["name"], p["score"], p["winner"], p["rank"]) for p in play["players"]] == \
        [("Ann", 3, True, 1), ("Ben", 9, False, 2)]


def test_bgstats_knows_a_player_by_one_id_at_every_table(client):
    """The same name (case and spacing aside) is the same BG Stats player in every play sent from
    this server; players who tie share their rank."""
    for table in (play_score_pad(client, ["Ann Lee", "Ben", "Cy"], [(5, 9, 9)]),
                  play_score_pad(client, ["Cy", "  ann  LEE "], [(4, 4)])):
        client.set_cookie(f"host_{table['code']}", table["host_token"])  # /history lists this browser's tables
    plays = [client.get(path).get_json()["bgstats"] for path in re.findall(
        r'href="(/t/\w+/games/1/export\.json)"', client.get("/history").get_data(as_text=True))]
    by_name = {}
    for play in plays:
        for p in play["players"]:
            by_name.setdefault(" ".join(p["name"].split()).lower(), set()).add(p["sourcePlayerId"])
    assert {name: len(ids) for name, ids in by_name.items()} == {"ann lee": 1, "ben": 1, "cy": 1}
    assert len(set().union(*by_name.values())) == 3
    ranks = sorted([(p["name"], p["rank"], p["winner"]) for p in play["players"]] for play in plays)
    assert ranks == [[("Ann Lee", 3, False), ("Ben", 1, True), ("Cy", 1, True)],
                     [("Cy", 1, True), ("ann LEE", 1, True)]]


def test_a_pad_named_for_the_game_played_sends_that_game(client):  # SP-2
    table = new_table(client, players=["Ann", "Ben"], game="score_pad",
                      options={"rounds": 1, "name": "  Ticket   to Ride "})
    for seat, points in enumerate((61, 48)):
        assert post_entry(client, table, seat, kind="score", points=points).status_code == 201
    export = client.get(f"/t/{table['code']}/games/1/export.json").get_json()
    assert export["title"] == "Ticket to Ride" and export["options"]["name"] == "Ticket to Ride"
    assert export["bgstats"]["game"] == {"name": "Ticket to Ride", "highestWins": True,
                                         "sourceGameId": "score_pad/ticket to ride"}
    history = client.get(f"/t/{table['code']}/history").get_data(as_text=True)
    assert "<strong>Ticket to Ride</strong> · table" in history
    assert "Ticket to Ride" in client.get(f"/t/{table['code']}/games/1/card.svg").get_data(as_text=True)
    # a pad with no name stays a Score pad to BG Stats
    plain = play_score_pad(client, ["Ann"], [(3,)])
    assert client.get(f"/t/{plain['code']}/games/1/export.json").get_json()["bgstats"]["game"]["name"] == "Score pad"


def test_an_unfinished_game_has_no_play_nor_card(client):
    table = new_table(client, players=["Ann"])
    code = table["code"]
    assert client.get(f"/t/{code}/games/1/export.json").get_json()["bgstats"] is None
    assert 'data-testid="finale"' not in client.get(f"/t/{code}/view").get_data(as_text=True)
    assert client.get(f"/t/{code}/games/1/card.svg").status_code == 409
    assert client.get(f"/t/{code}/games/1/card.png").status_code == 409
    assert client.get(f"/t/{code}/games/7/card.png").status_code == 404


def test_the_card_svg_shows_every_final_score_best_first(client):
    code = play_dicez(client, ["Ben <b>", "Ann"], [BAD, GOOD])["code"]
    resp = client.get(f"/t/{code}/games/1/card.svg")
    assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
    root = ET.fromstring(resp.get_data())  # well-formed XML: the name's "<b>" is escaped
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    rows = [[t.text for t in g.findall("s:text", ns)] for g in root.findall("s:g", ns)]
    assert rows == [["★", "Ann", str(GOOD_TOTAL)], ["Ben <b>", str(BAD_TOTAL)]]
    assert [g.get("data-winner") for g in root.findall("s:g", ns)] == ["yes", "no"]


def test_the_card_png_is_a_png_of_the_cards_size(client):
    code = play_dicez(client, ["Ann", "Ben", "Cy"], [GOOD, BAD, BAD])["code"]
    resp = client.get(f"/t/{code}/games/1/card.png")
    assert resp.status_code == 200 and resp.mimetype == "image/png"
    data = resp.get_data()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk
    assert (width, height) == (800, 190 + 3 * 72 + 60)
    assert 5_000 < len(data) < 200_000
    from io import BytesIO

    from PIL import Image
    img = Image.open(BytesIO(data)).convert("RGB")
    assert len(img.getcolors(maxcolors=1 << 16) or ()) > 10  # text and bands were drawn, not a blank sheet
    # the winner's star is drawn in gold beside the first row
    # (a gold dark enough to read at 4.5:1 on the card's paper)
    assert (122, 85, 0) in {img.getpixel((x, y)) for x in range(44, 78) for y in range(200, 240)}


def test_the_final_sheet_links_its_card_and_bgstats(client):
    table = new_table(client, players=["Ann"])
    code = table["code"]
    from tests.helpers import join_seat
    join_seat(client, code, 0)
    for dice, box in GOOD[:-1]:
        assert post_entry(client, table, 0, kind="score", dice=dice, category=box).status_code == 201
    assert 'data-testid="finale"' not in client.get(f"/t/{code}/s/0").get_data(as_text=True)
    dice, box = GOOD[-1]
    assert post_entry(client, table, 0, kind="score", dice=dice, category=box).status_code == 201
    page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert f'href="/t/{code}/games/1/card.png"' in page and _bgstats_from(page)["players"][0]["score"] == GOOD_TOTAL
    fragment = client.get(f"/t/{code}/s/0/sheet", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'id="finale" hx-swap-oob="true"' in fragment  # a live refresh brings the links too


def test_bgstats_names_the_start_player_the_table_chose(client):  # DS-3
    """Dice and Slice's host chooses who starts, or draws once at random: BG Stats is told that seat."""
    from datetime import timedelta, timezone

    from companion.games.dice_and_slice.rules import new_state
    from companion.platform.web.share import bgstats_play
    from companion.platform.core.records import GameInfo

    start = datetime(2026, 12, 1, 18, 0, tzinfo=timezone.utc)
    result = {"names": ["Ann", "Ben", "Cy"], "totals": [30, 41, 12], "winners": [1]}
    for options in ({"first": 2}, {"first": "random", "first_draw": 7}, {"first": 0}):
        info = GameInfo("ABCDEF", 1, "dice_and_slice", options, start, start + timedelta(minutes=30), result)
        starts = [p["name"] for p in bgstats_play(info)["players"] if p["startPlayer"]]
        assert starts == [result["names"][new_state(3, options).active]]  # the rules' own first active seat
    assert starts == ["Ann"]
