"""A refusal that speaks of another seat names the player sitting there (DZ-20, DS-3): the
rules write the text once with a placeholder for the seat, and the platform fills in the
table's names, on the phone page and in the API alike."""
import pytest

from companion.platform.core.contract import RuleError
from tests.helpers import log, new_table, post_entry


def test_the_rules_text_reads_seat_numbers_until_the_platform_names_the_seats():
    refusal = RuleError("It is {turn}'s turn: wait for {turn}.", rule="DZ-20", seats={"turn": 1})
    assert refusal.reason == "It is seat 2's turn: wait for seat 2."
    named = refusal.named(["Ann", "Ben"])
    assert named.reason == str(named) == "It is Ben's turn: wait for Ben."
    assert named.rule == "DZ-20" and refusal.reason == "It is seat 2's turn: wait for seat 2."
    # a text without seats is left exactly as written, braces and all
    plain = RuleError("Enter {A} and {B}.")
    assert plain.named(["Ann"]).reason == "Enter {A} and {B}."


def test_dicez_out_of_turn_names_whose_turn_it_is(client):  # DZ-20
    table = new_table(client, ["Ann", "Ben", "Cleo"])
    resp = post_entry(client, table, 1, kind="score", category="chance", dice=[1, 2, 3, 4, 5])
    assert resp.status_code == 422
    assert resp.get_json() == {"error": "It is Ann's turn: turns go in seat order, so wait for Ann.",
                               "rule": "DZ-20"}
    assert log(client, table["code"]) == []
    assert post_entry(client, table, 0, kind="score", category="chance", dice=[1, 2, 3, 4, 5]).status_code == 201
    resp = post_entry(client, table, 2, kind="score", category="chance", dice=[1, 2, 3, 4, 5])
    assert resp.get_json()["error"] == "It is Ben's turn: turns go in seat order, so wait for Ben."


@pytest.mark.parametrize("kind, entry", [("roll", {"faces": {"A": 1, "B": 2}})])
def test_dice_and_slice_names_the_active_player(client, kind, entry):  # DS-3
    table = new_table(client, ["Ann", "Ben"], game="dice_and_slice")
    resp = post_entry(client, table, 1, kind=kind, **entry)
    assert resp.status_code == 422
    assert resp.get_json()["error"] == "Only the active player, Ann, enters the roll."
    assert post_entry(client, table, 0, kind="roll", faces={"A": 1, "B": 2}).status_code == 201
    resp = post_entry(client, table, 1, kind="choose", die="A")
    assert resp.get_json() == {"error": "Only the active player, Ann, chooses the die.", "rule": "DS-3"}
    assert len(log(client, table["code"])) == 1



def test_a_refusal_the_rules_pass_on_in_their_hints_is_named_by_the_platform():
    from companion.platform.core.contract import named_texts
    refusal = RuleError("Only the active player, {active}, chooses the die.", seats={"active": 2})
    hints = {"ghost": {"reason": refusal.reason}, "legal": [], "notes": (refusal.reason, "plain")}
    assert named_texts(hints, ["Ann", "Ben", "Cat"]) == {
        "ghost": {"reason": "Only the active player, Cat, chooses the die."}, "legal": [],
        "notes": ("Only the active player, Cat, chooses the die.", "plain")}


@pytest.mark.parametrize("game_id", ["dicez", "dice_and_slice", "pizza_theory", "score_pad"])
def test_no_sheet_names_a_seat_by_its_number(client, game_id):
    """Along a random game, every player's sheet (drafts and refusals included) speaks of players by name."""
    import random
    import re

    from companion.platform.core.registry import GAMES
    from tests.contract.playout import playout

    game = GAMES[game_id]
    players = min(game.max_players, 3)
    table = new_table(client, ["Ann", "Ben", "Cat"][:players], game=game_id)
    _, steps = playout(game, players, random.Random(f"names-{game_id}"), max_steps=60)
    for n, step in enumerate(steps):
        assert post_entry(client, table, step.seat, **step.entry).status_code == 201
        if n % 7:
            continue
        for seat in range(players):
            client.set_cookie(f"seat_{table['code']}", table["seats"][seat]["token"])
            html = client.get(f"/t/{table['code']}/s/{seat}").get_data(as_text=True)
            text = re.sub(r"<[^>]+>", " ", html)
            assert not re.search(r"\bseat \d", text, re.IGNORECASE), re.search(r".{60}\bseat \d.{60}", text, re.I | re.S)
