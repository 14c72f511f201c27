"""One Dice and Slice edition as a file, to take it to another companion (or keep it safe):

    {"format": "companion-edition", "version": 1, "game": "dice_and_slice",
     "name": "Our blue box", "edition": {...the edition, as in rules/default_edition.json...}}

`read_edition_file` checks only the wrapping; the edition itself goes through the same checks as
the editor's form (editions.py).

A share link carries the same file in its path, so the edition travels in the link itself (the two
companions are different servers, neither can fetch from the other): the file's JSON, compressed
with zlib and written in base64url without padding. `read_share_code` unpacks it to at most
MAX_FILE_BYTES and then reads it as a file.
"""
from __future__ import annotations

import base64
import binascii
import json
import re
import zlib

from companion.platform.sdk import Text, RuleError

FILE_FORMAT = "companion-edition"
FILE_VERSION = 1
GAME_ID = "dice_and_slice"
MAX_FILE_BYTES = 64 * 1024  # the default edition is under 2 KiB
_KEYS = {"format", "version", "game", "name", "edition"}
# a link longer than this may not get through a server's request line (gunicorn takes 4094 bytes);
# the default edition packs into about 1,000 characters
MAX_CODE_CHARS = 3500
_CODE = re.compile(r"[A-Za-z0-9_-]+")


class BadFile(RuleError):
    """An uploaded file that cannot be an edition; `status` is the HTTP answer (a 4xx)."""

    def __init__(self, reason: str, status: int = 422):
        super().__init__(reason)
        self.status = status


def edition_file(name: str, data: dict) -> bytes:
    doc = {"format": FILE_FORMAT, "version": FILE_VERSION, "game": GAME_ID, "name": name, "edition": data}
    return json.dumps(doc, ensure_ascii=False, indent=2).encode("utf-8") + b"\n"


def _no_constant(word: str):
    raise ValueError(f"{word} is not a number JSON allows")


def _parse(raw: bytes):
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BadFile("That file is not text in UTF-8, so it cannot be an edition file. Nothing was imported.",
                      400) from None
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise BadFile(f"That file is not valid JSON ({str(exc)[:80]}). Nothing was imported.", 400) from None
    try:
        for text in _texts(doc):
            _check_text(text)
    except RecursionError:
        raise BadFile("That file is nested far too deeply to be an edition. Nothing was imported.", 400) from None
    return doc


def _texts(value):
    """Every string in a parsed JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _texts(item)


def _check_text(text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadFile("That file holds text with a broken character (a lone UTF-16 surrogate such as \\ud800). "
                      "Nothing was imported.", 400) from None
    if "\x00" in text:
        raise BadFile("Text in an edition file may not contain the NUL character. Nothing was imported.", 400)


def _check_wrapping(doc) -> None:
    if not isinstance(doc, dict) or doc.get("format") != FILE_FORMAT:
        raise BadFile(f'That is not an edition file: it needs "format": "{FILE_FORMAT}" (use Export to make one).')
    if doc.get("game") != GAME_ID:
        raise BadFile(f"That file holds an edition for another game ({str(doc.get('game'))[:40]!r}), "
                      "not for Dice and Slice. Nothing was imported.")
    if type(doc.get("version")) is not int or doc["version"] != FILE_VERSION:
        raise BadFile(f"That edition file has version {str(doc.get('version'))[:20]}; this companion reads "
                      f"version {FILE_VERSION}. Nothing was imported.")
    unknown = set(doc) - _KEYS
    if unknown:
        raise BadFile(f"That edition file has unknown key(s) {', '.join(sorted(unknown))[:120]}. Nothing was imported.")
    if not isinstance(doc.get("name"), str) or not isinstance(doc.get("edition"), dict):
        raise BadFile('That edition file needs a "name" (text) and an "edition" (an object). Nothing was imported.')


def read_edition_file(raw: bytes) -> tuple[str, dict]:
    """(name, edition) from an uploaded file's bytes; BadFile saying what is wrong with it."""
    if len(raw) > MAX_FILE_BYTES:
        raise BadFile(f"That file is too large for an edition (the limit is {MAX_FILE_BYTES // 1024} KiB). "
                      "Nothing was imported.", 413)
    doc = _parse(raw)
    _check_wrapping(doc)
    return doc["name"], doc["edition"]


def share_code(name: str, data: dict) -> str | None:
    """The edition packed for a link's path, or None if it is too large for a link (use a file)."""
    doc = {"format": FILE_FORMAT, "version": FILE_VERSION, "game": GAME_ID, "name": name, "edition": data}
    raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    code = base64.urlsafe_b64encode(zlib.compress(raw, 9)).rstrip(b"=").decode("ascii")
    return code if len(code) <= MAX_CODE_CHARS else None


_BROKEN = Text("That share link is incomplete or damaged (it may have been cut short when it was copied). Nothing was imported.")


def _unpack(code: str) -> bytes:
    if not code or len(code) > MAX_CODE_CHARS or not _CODE.fullmatch(code):
        raise BadFile(_BROKEN, 400)
    try:
        packed = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
        inflate = zlib.decompressobj()
        raw = inflate.decompress(packed, MAX_FILE_BYTES + 1)
    except (binascii.Error, ValueError, zlib.error):
        raise BadFile(_BROKEN, 400) from None
    if len(raw) > MAX_FILE_BYTES or inflate.unconsumed_tail:
        raise BadFile(f"That share link unpacks to more than {MAX_FILE_BYTES // 1024} KiB, too large for an "
                      "edition. Nothing was imported.", 413)
    if not inflate.eof:
        raise BadFile(_BROKEN, 400)
    return raw


def read_share_code(code: str) -> tuple[str, dict]:
    """(name, edition) from a share link's code; BadFile saying what is wrong with it."""
    return read_edition_file(_unpack(code))


def code_in_link(link: str) -> str:
    """The code of a pasted share link (the whole address, or just its code)."""
    link = (link or "").strip()
    return link.rsplit("/editions/receive/", 1)[-1].split("?")[0].split("#")[0].strip("/")
