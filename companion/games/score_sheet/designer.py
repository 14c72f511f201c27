"""The sheet designer (SS-2): a plain form on a phone, one block per row. Its buttons add, move and
remove rows and show a preview of the player's sheet with a sample total; Save stores the sheet as
this browser's. Without JavaScript every button posts the whole form and the page comes back
changed; with htmx only the designer is swapped. The rules check the sheet: this module only turns
the form into a sheet's data and back."""
from __future__ import annotations

import json
import re

from flask import abort, redirect, render_template, request, url_for

from companion.platform.sdk import RuleError, Text

from .library import MAX_BODY as MAX_FILE
from .library import NotYours, SheetGone, bp, delete_sheet, listed, own_sheet, save_new, save_over, sheet_data
from .rules.engine import apply, new_state, row_points, totals
from .rules.sheet import KINDS, MAX_ROWS, load_sheet
from .rules.view import row_range
from .web import number_or_text

ROW_TEXT = ("id", "label", "kind", "min", "max", "points_each", "points", "table", "inputs", "expression")
BLANK_ROW = {"id": "", "label": "", "kind": "points", "min": "0", "max": "50", "points_each": "1", "points": "5",
             "table": "0, 1, 3, 6", "inputs": "a 0 9", "expression": "a"}
INPUT_TEXT = re.compile(r"\s*([^\s]+)\s+(-?\d+)\s+(-?\d+)\s*")


# ---- the form <-> a sheet's data ------------------------------------------------------------------


def _row_text(row: dict) -> dict:
    """A sheet's row as the designer's fields show it."""
    text = {**BLANK_ROW, "id": row["id"], "label": row["label"], "kind": row["kind"]}
    for name in ("min", "max", "points_each", "points", "expression"):
        if name in row:
            text[name] = str(row[name])
    if "table" in row:
        text["table"] = ", ".join(str(p) for p in row["table"])
    if "inputs" in row:
        text["inputs"] = "; ".join(f"{i['name']} {i['min']} {i['max']}" for i in row["inputs"])
    return text


def model_from_sheet(data: dict) -> dict:
    return {"name": data["name"], "fewest": str(data["players"][0]), "most": str(data["players"][1]),
            "wins": data["wins"], "tie_break": data.get("tie_break") or "", "source": data.get("source", ""),
            "rows": [_row_text(row) for row in data["rows"]], "editing": ""}


def model_from_form(form) -> dict:
    count = min(int(form.get("rows", "0")) if (form.get("rows") or "").isdigit() else 0, MAX_ROWS + 1)
    rows = [{name: (form.get(f"r{n}_{name}") or "").strip() for name in ROW_TEXT} for n in range(count)]
    return {"name": form.get("name", ""), "fewest": form.get("fewest", ""), "most": form.get("most", ""),
            "wins": form.get("wins", "highest"), "tie_break": form.get("tie_break", ""),
            "source": form.get("source", ""), "rows": rows, "editing": (form.get("editing") or "")[:40]}


def _inputs(text: str) -> list:
    """"t 0 9; c 0 9" -> the inputs; a part that is not "name min max" goes to the rules as it is."""
    out = []
    for part in filter(None, (p.strip() for p in re.split(r"[;,]", text))):
        match = INPUT_TEXT.fullmatch(part)
        out.append({"name": match[1], "min": int(match[2]), "max": int(match[3])} if match else {"name": part})
    return out


def _row_data(text: dict) -> dict:
    row = {"id": text["id"], "label": text["label"], "kind": text["kind"]}
    fields = {"points": ("min", "max"), "count": ("points_each", "max"), "table": ("max",),
              "check": ("points",)}.get(text["kind"], ())
    row.update({name: number_or_text(text[name]) for name in fields})
    if text["kind"] == "table":
        row["table"] = [number_or_text(p) for p in text["table"].split(",") if p.strip()]
    if text["kind"] == "formula":
        row.update({"inputs": _inputs(text["inputs"]), "expression": text["expression"]})
    return row


def sheet_from_model(model: dict) -> dict:
    data = {"name": model["name"], "players": [number_or_text(model["fewest"]), number_or_text(model["most"])],
            "wins": model["wins"], "tie_break": model["tie_break"] or None,
            "rows": [_row_data(row) for row in model["rows"]]}
    return {**data, "source": model["source"]} if model["source"].strip() else data


# ---- the buttons ----------------------------------------------------------------------------------


def _changed(model: dict, action: str) -> dict:
    """The model after an add, move or remove button."""
    rows = list(model["rows"])
    verb, _, place = action.partition("-")
    n = int(place) if place.isdigit() and int(place) < len(rows) else None
    if verb == "add" and len(rows) < MAX_ROWS:
        rows.append({**BLANK_ROW, "id": f"row{len(rows) + 1}", "label": f"Row {len(rows) + 1}"})
    elif verb == "up" and n:
        rows[n - 1], rows[n] = rows[n], rows[n - 1]
    elif verb == "remove" and n is not None and len(rows) > 1:
        rows.pop(n)
    return {**model, "rows": rows}


def _sample_fill(row) -> dict:
    """A value in the middle of the row's range, as a player might fill it."""
    if row.kind == "formula":
        return {"kind": "fill", "row": row.id, "inputs": {n: (lo + hi) // 2 for n, lo, hi in row.inputs}}
    value = 1 if row.kind == "check" else (row.low + row.high) // 2
    return {"kind": "fill", "row": row.id, "value": value}


def preview(model: dict) -> dict:
    """The player's sheet as it would look, with a sample total; or the rules' reason it can't be saved."""
    try:
        sheet = load_sheet(sheet_from_model(model))
    except RuleError as exc:
        return {"error": exc.reason}
    state = new_state(sheet.min_players, {"sheet": sheet.data()})
    rows = []
    for row in sheet.rows:
        fill = _sample_fill(row)
        state = apply(state, 0, fill)
        rows.append({"label": row.label, "range": row_range(row), "points": row_points(state, 0)[row.id]})
    return {"rows": rows, "total": totals(state)[0]}


def _designer(model: dict, status: int = 200, error: str | None = None, **extra):
    return render_template("score_sheet/designer.html", model=model, kinds=KINDS, preview=preview(model),
                           error=error, **extra), status


@bp.get("/score-sheet/designer")
def designer():
    source = request.args.get("from")
    data = sheet_data(source) if source else None
    if data is None:
        model = {"name": "", "fewest": "2", "most": "5", "wins": "highest", "tie_break": "", "source": "",
                 "rows": [{**BLANK_ROW, "id": "row1", "label": "Row 1"}], "editing": ""}
    else:
        model = model_from_sheet(load_sheet(data).data())
        model["name"] = f"{model['name']} (copy)"[:60]
    return _designer(model)


@bp.post("/score-sheet/designer")
def designer_post():
    model = model_from_form(request.form)
    action = request.form.get("action", "preview")
    if action != "save":
        return _designer(_changed(model, action))
    try:
        data = sheet_from_model(model)
        saved = save_over(model["editing"], data) if model["editing"] else save_new(data)
    except (NotYours, SheetGone) as exc:
        # 409, which htmx swaps like a refusal: the form comes back, to be saved as a new sheet of this browser's
        return _designer({**model, "editing": ""}, 409, error=Text(
            "{reason} Your changes are still here: Save makes them a new sheet of yours.", reason=exc.reason))
    except RuleError as exc:
        return _designer(model, 422, error=exc.reason)
    return _to_page(url_for("score_sheet.sheet_page", sheet_id=saved["id"]))


def _refuse(exc: RuleError) -> None:
    """Another browser's sheet is refused (403, pointing to Copy); one that is gone is not found."""
    abort(403 if isinstance(exc, NotYours) else 404, exc.reason)


@bp.get("/score-sheet/sheets/<sheet_id>/edit")
def designer_edit(sheet_id):
    """This browser's saved sheet in the designer; Save puts the changes in its place (SS-14)."""
    try:
        doc = own_sheet(sheet_id)
    except (NotYours, SheetGone) as exc:
        _refuse(exc)
    return _designer({**model_from_sheet(load_sheet(doc.data).data()), "editing": sheet_id})


@bp.post("/score-sheet/sheets/<sheet_id>/delete")
def delete(sheet_id):
    """Delete this browser's saved sheet; tables already started with it keep their copy (SS-1)."""
    try:
        name = delete_sheet(sheet_id)
    except (NotYours, SheetGone) as exc:
        _refuse(exc)
    return redirect(url_for("score_sheet.library_page", deleted=name), 303)


def _to_page(url: str):
    """Open the saved sheet's page: htmx is told to load it whole (HX-Redirect), a plain POST redirected."""
    if request.headers.get("HX-Request"):
        return "", 200, {"HX-Redirect": url}
    return redirect(url, 303)


@bp.post("/score-sheet/sheets/import")
def import_sheet():
    """A sheet's JSON file (as the sheet page downloads it) saved as this browser's."""
    upload = request.files.get("file")
    raw = upload.read(MAX_FILE + 1) if upload else b""
    try:
        if len(raw) > MAX_FILE:
            raise RuleError("A sheet file is at most {number} KiB.", number=MAX_FILE // 1024)
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise RuleError("That file is not a sheet: choose a .json file saved from a sheet's page.") from None
        saved = save_new(data)
    except RuleError as exc:
        return render_template("score_sheet/library.html", sheets=listed(), error=exc.reason), 422
    return redirect(url_for("score_sheet.sheet_page", sheet_id=saved["id"]), 303)
