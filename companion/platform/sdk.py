"""What a game may use of the platform: the one module a game's code imports from it (its rules may
import `companion.platform.core.contract` instead, to stay pure). Everything else in `companion.platform`
may change without a game noticing; `tests/test_code_shape.py` holds every game to this module.

The contract a game fulfils:
    Game, EngineGame, Viewer, RuleError, MalformedEntry, SeatText, named_texts
Its phone pages:
    GameWeb (how its pages plug in), int_field (a whole number from a form field)
A request at one of its tables (its own routes):
    PlayContext, play_context, game_replay, reload_replay, may_play, seat_required, check_seat_number,
    sheet_viewer, screen_viewer, store, absolute_url
Recording and naming:
    record, TableError, name_refusal
Its own documents (the collections it declares) and who owns them:
    Collection, collection, Document, browser_id, is_this_browser
Drawing:
    KeptDrawings, KeptByIdentity (drawings kept while their inputs live), qr_png_data_url, qr_svg
The dice reader (a photo of the tray in, dice out):
    dice_reader
"""
from __future__ import annotations

from companion import dice_reader

from .web.auth import browser_id, is_this_browser
from .web.context import (Collection, PlayContext, absolute_url, check_seat_number, collection, game_replay, may_play,
                          play_context, reload_replay, screen_viewer, seat_required, sheet_viewer, store)
from .core.contract import (N_, EngineGame, Game, MalformedEntry, RuleError, SeatText, Text, Viewer, named_texts,
                            plural_text)
from .web.gameweb import GameWeb, int_field
from .web.kept import KeptByIdentity, KeptDrawings
from .core.play import TableError, name_refusal, record
from .web.qr import qr_png_data_url, qr_svg
from .core.records import Document

__all__ = [
    "N_", "Collection", "Document", "EngineGame", "Game", "GameWeb", "KeptByIdentity", "KeptDrawings",
    "MalformedEntry", "PlayContext", "RuleError", "SeatText", "TableError", "Text", "Viewer", "absolute_url",
    "browser_id", "check_seat_number", "collection", "dice_reader", "game_replay", "int_field",
    "is_this_browser", "may_play", "name_refusal", "named_texts", "play_context", "plural_text", "qr_png_data_url", "qr_svg",
    "record", "reload_replay", "screen_viewer", "seat_required", "sheet_viewer", "store",
]
