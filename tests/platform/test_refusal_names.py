"""A refusal that speaks of another seat names the player sitting there (DZ-20, DS-3): the
rules write the text once with a placeholder for the seat, and the platform fills in the
table's names, on the phone page and in the API alike."""
import pytest

from companion.platform.contract import RuleError
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

