"""The library of built-in sheets (SS-13): each game's end-of-game scoring as its published rules
state it, in our own words, each naming its source. Every sheet has a worked example in
tests/test_library.py."""
from __future__ import annotations


def _points(row_id, label, low, high):
    return {"id": row_id, "label": label, "kind": "points", "min": low, "max": high}


def _count(row_id, label, each, most):
    return {"id": row_id, "label": label, "kind": "count", "points_each": each, "max": most}


def _table(row_id, label, table, most):
    return {"id": row_id, "label": label, "kind": "table", "table": table, "max": most}


def _check(row_id, label, points):
    return {"id": row_id, "label": label, "kind": "check", "points": points}


def _formula(row_id, label, inputs, expression):
    return {"id": row_id, "label": label, "kind": "formula", "expression": expression,
            "inputs": [{"name": name, "min": low, "max": high} for name, low, high in inputs]}


def _sheet(name, players, rows, source, wins="highest", tie_break=None):
    return {"name": name, "players": list(players), "wins": wins, "tie_break": tie_break, "rows": rows,
            "source": source}


QWIXX_CROSSES = [0, 1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 66, 78]  # n crosses: n(n+1)/2

BUILTIN = {
    "sample": _sheet("Sample sheet", (1, 12), [
        _points("bonus", "Bonus", -10, 50),
        _count("coins", "Coins", 1, 60),
        _table("sets", "Sets", [0, 1, 3, 6, 10], 20),
        _formula("pairs", "Pairs", [("a", 0, 9), ("b", 0, 9)], "2 * min(a, b) + abs(a - b)"),
        _check("first", "First out", 5),
    ], "The companion's own example: one row of each kind.", tie_break="coins"),
    "7-wonders": _sheet("7 Wonders", (3, 7), [
        _points("military", "Military", -6, 18),
        _formula("treasury", "Treasury", [("coins", 0, 150)], "coins // 3"),
        _points("wonder", "Wonder", 0, 40),
        _points("civilian", "Civilian", 0, 80),
        _points("commercial", "Commercial", 0, 40),
        _points("guilds", "Guilds", 0, 60),
        _formula("science", "Science", [("t", 0, 9), ("c", 0, 9), ("g", 0, 9)],
                 "t*t + c*c + g*g + 7*min(t, c, g)"),
    ], "7 Wonders rulebook (Repos Production): end-of-game scoring; one point per 3 coins; science is "
       "the square of each symbol's count (tablets t, compasses c, gears g) plus 7 per set of all three. "
       "A tie goes to the most coins; this sheet compares treasury points, so coins within the same three "
       "are not told apart (rules.dized.com/7-wonders, Scoring).", tie_break="treasury"),
    "wingspan": _sheet("Wingspan", (1, 5), [
        _points("birds", "Birds", 0, 150),
        _points("bonus", "Bonus cards", 0, 60),
        _points("goals", "End-of-round goals", 0, 30),
        _count("eggs", "Eggs", 1, 100),
        _count("food", "Food on cards", 1, 100),
        _count("tucked", "Tucked cards", 1, 100),
    ], "Wingspan rulebook (Stonemaier Games): final scoring, 1 point per egg, per cached food token "
       "and per tucked card. A tie goes to the most unused food tokens, which the sheet does not hold."),
    "cascadia": _sheet("Cascadia", (1, 4), [
        _points("bear", "Bears", 0, 60), _points("elk", "Elk", 0, 60), _points("salmon", "Salmon", 0, 60),
        _points("hawk", "Hawks", 0, 60), _points("fox", "Foxes", 0, 60),
        _points("habitats", "Largest habitats", 0, 100),
        _points("majority", "Habitat bonuses", 0, 15),
        _count("nature", "Nature tokens", 1, 25),
    ], "Cascadia rulebook (Flatout Games): wildlife by the scoring cards, each habitat's largest "
       "corridor, majority bonuses per habitat (with 3 or 4 players 3 for the largest corridor and 1 for "
       "the second, less when tied; with 2 players 2 for the largest), 1 point per nature token left. A "
       "tie goes to the most nature tokens.",
        tie_break="nature"),
    "terraforming-mars": _sheet("Terraforming Mars", (1, 5), [
        _points("tr", "Terraform rating", 0, 200),
        _points("awards", "Awards", 0, 15),
        _count("milestones", "Milestones", 5, 3),
        _count("greenery", "Greenery tiles", 1, 60),
        _points("cities", "Cities (adjacent greenery)", 0, 100),
        _points("cards", "Cards", -50, 200),
    ], "Terraforming Mars rulebook (FryxGames): final scoring, 5 points per milestone, awards 5 for "
       "first and 2 for second (no second place with two players), 1 per greenery tile, 1 per greenery "
       "next to each city, whoever owns it (rules.dized.com/terraforming-mars, Final scoring). A tie goes "
       "to the most M€, which the sheet does not hold."),
    "everdell": _sheet("Everdell", (1, 4), [
        _points("cards", "Cards' base points", 0, 100),
        _count("tokens", "Point tokens", 1, 60),
        _points("prosperity", "Prosperity bonuses", 0, 100),
        _points("journey", "Journey", 0, 20),
        _points("events", "Events", 0, 60),
    ], "Everdell rulebook (Starling Games): the cards' points, point tokens, prosperity cards' bonuses, "
       "the journey and events. A tie goes to the most events achieved, then the most resources left, "
       "which the sheet does not hold (rules.dized.com, Everdell, End Game)."),
    "agricola": _sheet("Agricola", (1, 4), [
        _table("fields", "Fields", [-1, -1, 1, 2, 3, 4], 40),
        _table("pastures", "Pastures", [-1, 1, 2, 3, 4], 15),
        _table("grain", "Grain", [-1, 1, 1, 1, 2, 2, 3, 3, 4], 60),
        _table("vegetables", "Vegetables", [-1, 1, 2, 3, 4], 30),
        _table("sheep", "Sheep", [-1, 1, 1, 1, 2, 2, 3, 3, 4], 60),
        _table("boar", "Wild boar", [-1, 1, 1, 2, 2, 3, 3, 4], 60),
        _table("cattle", "Cattle", [-1, 1, 2, 2, 3, 3, 4], 60),
        _count("unused", "Unused spaces", -1, 13),
        _count("stables", "Fenced stables", 1, 4),
        _count("clay", "Clay rooms", 1, 15),
        _count("stone", "Stone rooms", 2, 15),
        _count("family", "Family members", 3, 5),
        _count("begging", "Begging cards", -3, 30),
        _points("cards", "Card points", 0, 100),
        _points("bonus", "Bonus points", 0, 100),
    ], "Agricola rulebook (Lookout Games): the scoring chart for fields, pastures, grain, vegetables "
       "and animals (none is -1; fields 0-1/2/3/4/5+, grain and sheep 0/1/4/6/8+, boar 0/1/3/5/7+, cattle "
       "0/1/2/4/6+ score -1/1/2/3/4; pastures and vegetables score 1 each up to 4), -1 per unused space, "
       "1 per fenced stable, 1 per clay and 2 per stone room, 3 per family member, -3 per begging card."),
    "qwixx": _sheet("Qwixx", (2, 5), [
        _table("red", "Red crosses", QWIXX_CROSSES, 12),
        _table("yellow", "Yellow crosses", QWIXX_CROSSES, 12),
        _table("green", "Green crosses", QWIXX_CROSSES, 12),
        _table("blue", "Blue crosses", QWIXX_CROSSES, 12),
        _count("penalties", "Penalties", -5, 4),
    ], "Qwixx rules (Nürnberger-Spielkarten-Verlag): each colour's crosses (a lock counts as one) "
       "score 1, 3, 6, 10, 15, ... (n crosses: n(n+1)/2, 78 for 12); -5 per penalty, at most 4."),
    "azul": _sheet("Azul", (2, 4), [
        _points("rounds", "Points from the rounds", 0, 200),
        _count("rows", "Complete rows", 2, 5),
        _count("columns", "Complete columns", 7, 5),
        _count("colours", "Colours all five placed", 10, 5),
    ], "Azul rulebook (Plan B Games): end of game, 2 per complete horizontal row, 7 per complete "
       "vertical column, 10 per colour with all five tiles on the wall. A tie goes to the most "
       "complete rows.", tie_break="rows"),
    "ticket-to-ride": _sheet("Ticket to Ride", (2, 5), [
        _count("len1", "Routes of 1 train", 1, 45),
        _count("len2", "Routes of 2 trains", 2, 22),
        _count("len3", "Routes of 3 trains", 4, 15),
        _count("len4", "Routes of 4 trains", 7, 11),
        _count("len5", "Routes of 5 trains", 10, 9),
        _count("len6", "Routes of 6 trains", 15, 7),
        _points("tickets_done", "Completed tickets", 0, 300),
        _points("tickets_failed", "Failed tickets", -300, 0),
        _check("longest", "Longest continuous path", 10),
    ], "Ticket to Ride rules (Days of Wonder): routes score 1, 2, 4, 7, 10 and 15 for 1 to 6 trains; "
       "tickets add or take their value; 10 for the longest continuous path (each of several tied). A tie "
       "goes to the most completed tickets, which the sheet does not hold."),
    "splendor": _sheet("Splendor", (2, 4), [
        _points("cards", "Development cards", 0, 60),
        _count("nobles", "Nobles", 3, 5),
    ], "Splendor rules (Space Cowboys): prestige points on development cards, 3 per noble tile. A tie "
       "goes to the fewest development cards bought, which the sheet does not hold."),
    "carcassonne": _sheet("Carcassonne", (2, 5), [
        _points("during", "Points during the game", 0, 500),
        _count("roads", "Unfinished roads (tiles)", 1, 72),
        _count("cities", "Unfinished cities (tiles and pennants)", 1, 90),
        _points("monasteries", "Unfinished monasteries", 0, 48),
        _count("fields", "Finished cities next to your fields", 3, 40),
    ], "Carcassonne rules (Hans im Glück): at the end, 1 per tile of an unfinished road, 1 per tile "
       "and pennant of an unfinished city, 1 per tile of an unfinished monastery and its own, 3 per "
       "finished city a field supplies (the third edition's rule)."),
    "kingdomino": _sheet("Kingdomino", (2, 4), [
        _points("properties", "Properties (squares x crowns)", 0, 300),
        _check("middle", "Middle Kingdom (variant)", 10),
        _check("harmony", "Harmony (variant)", 5),
    ], "Kingdomino rules (Blue Orange): each property scores its squares times its crowns; the "
       "variants add 10 for a castle in the middle and 5 for a kingdom with no square left empty. A tie "
       "goes to the largest property, then the most crowns, which the sheet does not hold."),
}
DEFAULT_SHEET = "sample"
