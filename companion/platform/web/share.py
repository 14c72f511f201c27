"""Sharing a finished game: the play BG Stats records from its push-play link, and the result card
(the same facts drawn as SVG by a template and as PNG by Pillow). Knows no game: everything comes
from the stored result (written when the game ended) and the contract."""
from __future__ import annotations

import hashlib
import io
import json
import math
from functools import lru_cache
from urllib.parse import quote

from ..core.contract import Text
from ..core.registry import get_game
from ..store.schema import name_key
from ..core.records import GameInfo

BGSTATS_URL = "https://app.bgstatsapp.com/createPlay.html?data="
SOURCE_NAME = "Game companion"


def _local(stamp):
    """A stored UTC time as the server's local time (the venue's clock): what BG Stats expects."""
    return stamp.astimezone()


def player_id(name: str) -> str:
    """The same id for a name (case and spacing aside) every time this server sends it, so BG Stats
    keeps one player for every play of "Ann"; the name itself cannot be read back from it."""
    return "companion-" + hashlib.sha256(name_key(name).encode()).hexdigest()[:16]


def ranks(totals: list[int], winners: set[int], highest_wins: bool) -> list[int]:
    """Each seat's place: the winners first, then by total (best first); equal places share a rank."""
    sign = -1 if highest_wins else 1
    order = [(seat not in winners, sign * total) for seat, total in enumerate(totals)]
    return [1 + sum(other < mine for other in order) for mine in order]


def _bgstats_game(game, options: dict) -> dict:
    title = game.play_title(options)
    # a game played under a name of its own (a pad named for the game on the table) is that game to BG Stats
    source_id = game.id if title == game.title else f"{game.id}/{name_key(title)}"
    return {"name": title, "highestWins": game.highest_wins(options), "sourceGameId": source_id}


def bgstats_play(info: GameInfo) -> dict:
    """A finished game as BG Stats' push-play link takes it, from its stored result. No
    BoardGameGeek id: no source we hold gives one for these games."""
    game, result = get_game(info.game), info.result
    winners, start = set(result["winners"]), game.starting_seat(info.options, len(result["names"]))
    places = ranks(result["totals"], winners, game.highest_wins(info.options))
    return {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": f"{info.table_code}-{info.game_no}",
        "playDate": _local(info.started_at).strftime("%Y-%m-%d %H:%M:%S"),
        "durationMin": max(1, round((info.finished_at - info.started_at).total_seconds() / 60)),
        "game": _bgstats_game(game, info.options),
        "players": [{"name": name, "sourcePlayerId": player_id(name), "score": score, "winner": seat in winners,
                     "rank": places[seat], "startPlayer": seat == start}
                    for seat, (name, score) in enumerate(zip(result["names"], result["totals"]))],
    }


def bgstats_link(info: GameInfo) -> str:
    play = json.dumps(bgstats_play(info), separators=(",", ":"), ensure_ascii=False)
    return BGSTATS_URL + quote(play, safe="")


def card_facts(info: GameInfo) -> dict:
    """What a result card shows: the game, when, and every player's final score, best first."""
    game, result = get_game(info.game), info.result
    totals, winners = result["totals"], set(result["winners"])
    sign = -1 if game.highest_wins(info.options) else 1
    order = sorted(range(len(totals)), key=lambda s: (s not in winners, sign * totals[s], s))
    facts = {
        "title": game.play_title(info.options),
        "when": _local(info.finished_at).strftime("%Y-%m-%d %H:%M"),
        "where": Text("Table {code} · game {number}", code=info.table_code, number=info.game_no),
        "rows": [{"name": result["names"][s], "score": totals[s], "winner": s in winners} for s in order],
        # the game's categories (Game.categories, kept with the result), the players in the rows' order
        "categories": [{"label": str(c["label"]), "points": [c["points"][s] for s in order]}
                       for c in result.get("categories") or () if len(c["points"]) == len(totals)],
    }
    facts["grid"] = card_grid(facts)
    return facts


# ---- the card's layout (the SVG template and the PNG draw the same) -------------------------
WIDTH, TOP, ROW, BOTTOM = 800, 190, 72, 60
GRID_GAP, GRID_HEAD, GRID_ROW = 24, 44, 38  # the categories' grid below the players
GRID_LEFT, GRID_RIGHT, GRID_LABELS = 40, 756, 290
CATEGORY_CHARS = 24  # a category's label is cut short after this many characters


def card_grid(facts: dict) -> dict:
    """Where the categories' grid goes: below the players, a row per category, a column per player
    (their names shortened to fit the column). Its height is 0 when the game has no categories."""
    players, categories = len(facts["rows"]), facts["categories"]
    if not categories:
        return {"height": 0, "top": TOP + ROW * players, "columns": [], "name_chars": 0}
    column = min(110, (GRID_RIGHT - GRID_LEFT - GRID_LABELS) // players)
    return {"height": GRID_GAP + GRID_HEAD + GRID_ROW * len(categories), "top": TOP + ROW * players + GRID_GAP,
            "columns": [GRID_RIGHT - (players - 1 - i) * column for i in range(players)],
            "name_chars": max(2, column // 13)}


# ---- the PNG --------------------------------------------------------------------------------
INK, MUTED, PAPER, BAND, GOLD = "#222222", "#666666", "#fffaf0", "#f3e6cf", "#7a5500"


# DejaVu Sans (Debian's fonts-dejavu-core, on most Linux systems) draws accented and non-Latin names;
# Pillow's own font, the fallback, draws only ASCII well
CARD_FONTS = ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


@lru_cache(maxsize=8)
def _font(size: int):
    from PIL import ImageFont
    for name in CARD_FONTS:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def _star(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """A five-pointed star (Pillow's font has no star character)."""
    points = []
    for k in range(10):
        radius = r if k % 2 == 0 else r * 0.45
        angle = math.pi / 2 + k * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy - radius * math.sin(angle)))
    return points


def _fit(draw, text: str, width: int) -> str:
    """`text`, cut short with an ellipsis where it would run into the score."""
    font = _font(34)
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def _shortened(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars - 1] + "…"


def _draw_grid(draw, facts: dict) -> None:
    """The categories' grid: the players' names over their columns, then a row per category."""
    grid = facts["grid"]
    top = grid["top"]
    for x, row in zip(grid["columns"], facts["rows"]):
        draw.text((x, top + 30), _shortened(row["name"], grid["name_chars"]), fill=MUTED, font=_font(20), anchor="rs")
    for i, category in enumerate(facts["categories"]):
        y = top + GRID_HEAD + i * GRID_ROW
        if i % 2 == 0:
            draw.rectangle((24, y, WIDTH - 24, y + GRID_ROW - 4), fill=BAND)
        draw.text((GRID_LEFT, y + 27), _shortened(category["label"], CATEGORY_CHARS), fill=INK, font=_font(22),
                  anchor="ls")
        for x, points in zip(grid["columns"], category["points"]):
            draw.text((x, y + 27), str(points), fill=INK, font=_font(22), anchor="rs")


def card_png(facts: dict) -> bytes:
    # Pillow is loaded by the first card drawn, not by every server process at start (about 4 MB)
    from PIL import Image, ImageDraw
    rows = facts["rows"]
    height = TOP + ROW * len(rows) + facts["grid"]["height"] + BOTTOM
    img = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(img)
    draw.text((40, 36), facts["title"], fill=INK, font=_font(52))
    draw.text((40, 108), f"{facts['when']} · {facts['where']}", fill=MUTED, font=_font(26))
    for i, row in enumerate(rows):
        y = TOP + i * ROW
        if i % 2 == 0:
            draw.rectangle((24, y, WIDTH - 24, y + ROW - 8), fill=BAND)
        if row["winner"]:
            draw.polygon(_star(60, y + 32, 18), fill=GOLD)
        draw.text((92, y + 14), _fit(draw, row["name"], WIDTH - 260), fill=INK, font=_font(34))
        draw.text((WIDTH - 44, y + 14), str(row["score"]), fill=INK, font=_font(34), anchor="ra")
    if facts["categories"]:
        _draw_grid(draw, facts)
    draw.text((40, height - 44), SOURCE_NAME, fill=MUTED, font=_font(20))
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()
