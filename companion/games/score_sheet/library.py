"""The library of sheets (SS-13, SS-14): the built-in ones and those saved in the platform's document
store (the game's "sheets" collection), each owned by the browser that saved it; and the JSON API
over them (SS-16): GET /api/sheets, GET /api/sheets/<id>, POST /api/sheets."""
from __future__ import annotations

import secrets

from flask import Blueprint, abort, has_app_context, jsonify, render_template, request

from companion.platform.sdk import Text, Collection, RuleError, browser_id, collection, is_this_browser

from .rules.builtin import BUILTIN
from .rules.sheet import load_sheet
from .rules.view import row_range

GAME_ID = "score_sheet"
SHEETS = "sheets"
MAX_BODY = 64 * 1024

bp = Blueprint("score_sheet", __name__)


def _sheets() -> Collection:
    return collection(GAME_ID, SHEETS)


def saved_sheet_data(sheet_id: str) -> dict | None:
    """A saved sheet's data by id; None outside a request's app or when there is none."""
    if not has_app_context() or not isinstance(sheet_id, str) or len(sheet_id) > 40:
        return None
    doc = _sheets().get(sheet_id)
    return doc.data if doc else None


def sheet_data(sheet_id: str) -> dict | None:
    return BUILTIN.get(sheet_id) or saved_sheet_data(sheet_id)


def listed() -> list[dict]:
    """Every sheet a table can be started with: the built-in ones first, then the saved ones by name."""
    builtin = [{"id": key, "name": data["name"], "builtin": True, "mine": False, "players": data["players"],
                "source": data.get("source", "")} for key, data in BUILTIN.items()]
    saved = [{"id": doc.name, "name": doc.data.get("name", ""), "builtin": False,
              "mine": is_this_browser(doc.owner), "players": doc.data.get("players"),
              "source": doc.data.get("source", "")} for doc in _sheets().all()]
    return builtin + sorted(saved, key=lambda s: str(s["name"]).casefold())


def save_new(data) -> dict:
    """Check a sheet's data (SS-2..SS-7) and save it under a new id owned by this browser."""
    sheet = load_sheet(data)
    for _ in range(5):
        sheet_id = "s" + secrets.token_hex(5)
        if _sheets().create(sheet_id, sheet.data(), browser_id()):
            return {"id": sheet_id, "name": sheet.name, "builtin": False}
    raise RuleError("The sheet could not be given an id; try again.")


class NotYours(RuleError):
    """This browser may look at the sheet and copy it, not change or delete it (403)."""


class SheetGone(RuleError):
    """No saved sheet has that id (it may have been deleted meanwhile) (404)."""


def own_sheet(sheet_id: str):
    """The saved sheet `sheet_id` if this browser may change or delete it (SS-14); NotYours if it
    is another browser's or built in, SheetGone if there is none."""
    if sheet_id in BUILTIN:
        raise NotYours(f"{BUILTIN[sheet_id]['name']} is a built-in sheet: nobody can change or delete it. "
                       "Copy it to make a sheet of your own.")
    doc = _sheets().get(sheet_id) if isinstance(sheet_id, str) and 0 < len(sheet_id) <= 40 else None
    if doc is None:
        raise SheetGone(f"There is no saved sheet {str(sheet_id)[:40]!r} (it may have been deleted); "
                        "nothing was changed.")
    if not is_this_browser(doc.owner):
        raise NotYours(f"{doc.data.get('name', 'This sheet')} belongs to the browser that saved it: only that "
                       "browser can change or delete it. Copy it to make a sheet of your own.")
    return doc


def save_over(sheet_id: str, data) -> dict:
    """Check a sheet's data and put it in place of this browser's saved sheet `sheet_id` (tables
    already started with it keep their own copy, SS-1)."""
    own_sheet(sheet_id)
    sheet = load_sheet(data)
    _sheets().save(sheet_id, sheet.data())
    return {"id": sheet_id, "name": sheet.name, "builtin": False}


def delete_sheet(sheet_id: str) -> str:
    """Delete this browser's saved sheet; its name."""
    doc = own_sheet(sheet_id)
    _sheets().delete(sheet_id)
    return str(doc.data.get("name", sheet_id))


# ---- the API ------------------------------------------------------------------------------------


@bp.get("/api/sheets")
def api_sheets():
    return jsonify(listed())


@bp.get("/api/sheets/<sheet_id>")
def api_sheet(sheet_id):
    data = sheet_data(sheet_id)
    if data is None:
        return jsonify(error=Text("There is no sheet {sheet_id!r}.", sheet_id=sheet_id[:40])), 404
    return jsonify(load_sheet(data).data())


@bp.post("/api/sheets")
def api_save_sheet():
    if request.content_length and request.content_length > MAX_BODY:
        return jsonify(error=Text("A sheet is at most {number} KiB of JSON.", number=MAX_BODY // 1024)), 413
    try:
        data = request.get_json(silent=True)
    except RecursionError:  # absurdly deep nesting: nothing a client means
        data = None
    if not isinstance(data, dict):
        return jsonify(error=Text("Send a sheet as a JSON object with Content-Type: application/json.")), 400
    try:
        saved = save_new(data)
    except RuleError as exc:
        return jsonify(error=exc.reason), 422
    return jsonify(saved), 201


# ---- the library's pages ------------------------------------------------------------------------


@bp.get("/score-sheet/sheets")
def library_page():
    return render_template("score_sheet/library.html", sheets=listed(), deleted=request.args.get("deleted", "")[:60])


@bp.get("/score-sheet/sheets/<sheet_id>")
def sheet_page(sheet_id):
    data = sheet_data(sheet_id)
    if data is None:
        abort(404, Text("There is no sheet {sheet_id!r}.", sheet_id=sheet_id[:40]))
    sheet = load_sheet(data)
    doc = None if sheet_id in BUILTIN else _sheets().get(sheet_id)
    return render_template("score_sheet/sheet_page.html", sheet_id=sheet_id, sheet=sheet.data(),
                           rows=[{**row.spec(), "range": row_range(row)} for row in sheet.rows],
                           mine=doc is not None and is_this_browser(doc.owner))
