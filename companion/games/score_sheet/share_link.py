"""A sheet handed to another companion by link or QR code (SS-14): the sheet's data packed into the
link's last part (compressed JSON, base64url). Opening the link, or pasting it on another
companion's library page, shows the sheet; "Save it here" keeps a copy as this browser's."""
from __future__ import annotations

import base64
import binascii
import json
import re
import zlib

from flask import redirect, render_template, request, url_for
from markupsafe import Markup

from companion.platform.sdk import Text, RuleError, absolute_url, qr_svg

from .library import bp, save_new, sheet_data
from .rules.sheet import load_sheet
from .rules.view import row_range

MAX_CODE_CHARS = 3000  # a link a phone's camera and a chat message still carry
_CODE = re.compile(r"[A-Za-z0-9_-]+")
_BROKEN = Text("That sheet link is incomplete or damaged (it may have been cut short when it was copied). Nothing was saved.")


def pack(data: dict) -> str | None:
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    code = base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode("ascii")
    return code if len(code) <= MAX_CODE_CHARS else None


def unpack(code: str) -> dict:
    """The sheet's data in a link's code; RuleError if the code is damaged or the sheet breaks the rules."""
    if not code or len(code) > MAX_CODE_CHARS or not _CODE.fullmatch(code):
        raise RuleError(_BROKEN)
    try:
        raw = zlib.decompressobj().decompress(base64.urlsafe_b64decode(code + "=" * (-len(code) % 4)), 64 * 1024)
        data = json.loads(raw.decode("utf-8"))
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError, RecursionError):
        raise RuleError(_BROKEN) from None
    return load_sheet(data).data()


def _code_in_link(link: str) -> str:
    return (link or "").strip().rsplit("/score-sheet/receive/", 1)[-1].split("?")[0].split("#")[0].strip("/")


@bp.get("/score-sheet/sheets/<sheet_id>/share")
def share(sheet_id):
    data = sheet_data(sheet_id)
    if data is None:
        return render_template("score_sheet/share.html", error=Text("There is no sheet {sheet_id!r}.", sheet_id=sheet_id[:40])), 404
    sheet = load_sheet(data).data()
    code = pack(sheet)
    link = absolute_url(url_for("score_sheet.receive", packed=code)) if code else None
    return render_template("score_sheet/share.html", sheet=sheet, sheet_id=sheet_id, link=link,
                           qr=Markup(qr_svg(link)) if link else None)


def _received(code: str, status: int = 200, error: str | None = None):
    try:
        sheet = unpack(code)
    except RuleError as exc:
        return render_template("score_sheet/share.html", error=exc.reason), 422
    rows = [{**row.spec(), "range": row_range(row)} for row in load_sheet(sheet).rows]
    return render_template("score_sheet/share.html", received=sheet, rows=rows, code=code, error=error), status


@bp.get("/score-sheet/receive/<packed>")
def receive(packed):
    return _received(packed)


@bp.get("/score-sheet/receive")
def receive_link():
    """The "paste a sheet link" form: the link may name another companion; its code is read here."""
    code = _code_in_link(request.args.get("link", ""))
    if not code:
        return render_template("score_sheet/share.html", error=Text("Paste the whole sheet link to look at the sheet.")), 400
    return redirect(url_for("score_sheet.receive", packed=code), 303)


@bp.post("/score-sheet/receive")
def receive_save():
    code = request.form.get("code", "")
    try:
        saved = save_new(unpack(code))
    except RuleError as exc:
        return _received(code, 422, error=exc.reason) if code else (
            render_template("score_sheet/share.html", error=exc.reason), 422)
    return redirect(url_for("score_sheet.sheet_page", sheet_id=saved["id"]), 303)
