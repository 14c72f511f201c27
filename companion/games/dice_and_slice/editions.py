"""The Dice and Slice edition editor: named editions (what is printed on your dice and sheet pad,
DS-2), kept in the platform's document store under the game's "editions" collection.

A table copies its edition into its options when it is created, so editing or deleting an edition
never changes a game already started.

Owners: an edition belongs to the browser that saved (or imported) it, marked by the platform's
browser id (`browser_id()`, a hash of a long-lived cookie). Only that browser may change,
rename or delete it; anyone may look at it, export it or copy it (the copy is the copier's). An
edition saved before editions had owners (owner NULL, which includes the ones moved over from the
old `ds_editions` table) belongs to nobody: nobody can change or delete it, and anyone can copy it.
"""
from __future__ import annotations

import io

from flask import Blueprint, abort, redirect, render_template, request, send_file, url_for

from companion.platform.sdk import (Text, Collection, Document, RuleError, absolute_url, browser_id, collection,
                                    is_this_browser, name_refusal, qr_png_data_url)

from .edition_files import (MAX_FILE_BYTES, BadFile, code_in_link, edition_file, read_edition_file,
                            read_share_code, share_code)
from .editor_form import (FACE_SHAPES, SCORING_SIZES, TOPPING_COLOURS, blank_model, edition_from_model,
                          model_from_edition, model_from_form)
from .rules.edition import default_edition_data, load_edition

GAME_ID = "dice_and_slice"
EDITIONS = "editions"  # the game's document collection in the platform's store
EDITOR = "dice_and_slice/editions_edit.html"
MAX_NAME_LENGTH = 60  # the document store's names hold 60 characters

bp = Blueprint("dice_and_slice", __name__, url_prefix="/dice-and-slice")


# ---- the stored editions ------------------------------------------------------------------------
# Databases from before the document store kept editions in a table of their own, `ds_editions`: the
# store moves its rows into the collection when it opens (the game's `older_tables`).
def _editions() -> Collection:
    return collection(GAME_ID, EDITIONS)


def named_editions() -> list[dict]:
    """Every named edition: [{"name", "label", "updated_at"}], by name."""
    return [{"name": d.name, "label": d.data.get("label", ""), "updated_at": d.updated_at}
            for d in _editions().all()]


def edition_data(name: str) -> dict | None:
    doc = _editions().get(name)
    return doc.data if doc else None


def _listed(doc: Document) -> dict:
    return {"name": doc.name, "label": doc.data.get("label", ""), "mine": is_this_browser(doc.owner),
            "ownerless": doc.owner is None}


class NotYours(RuleError):
    """This browser may look at the edition and copy it, not change or delete it (403)."""


def _not_yours(doc: Document) -> str:
    if doc.owner is None:
        why = Text("was saved before editions had owners, so nobody can change or delete it")
    else:
        why = Text("belongs to the browser that made it: only that browser can change or delete it")
    return Text("The edition {name!r} {why}. Nothing was changed. Copy it to make an edition of your own.", name=doc.name, why=why)


def own_edition(name: str) -> Document:
    """The stored edition `name` if this browser may change it; NotYours (or RuleError if missing)."""
    doc = _editions().get(name) if name else None
    if doc is None:
        raise RuleError("There is no saved edition called {name!r} (it may have been renamed or deleted); nothing was changed.", name=name)
    if not is_this_browser(doc.owner):
        raise NotYours(_not_yours(doc))
    return doc


def options_context() -> dict:
    """The start page's list of saved editions to choose from."""
    try:
        return {"edition_names": [e["name"] for e in named_editions()]}
    except Exception:  # noqa: BLE001 - a page must still render without the list
        return {"edition_names": []}


# ---- the editor's form -> an edition (editor_form.py) ----------------------------------------------
def form_to_edition(form) -> dict:
    """The editor's plain form -> an edition dict (validated afterwards by load_edition)."""
    return edition_from_model(model_from_form(form))


def _valid_name(name: str) -> str:
    """The name tidied as a player's is, and checked as one is: it shows on other people's screens and
    in the address of the edition's page, so it holds no control characters, no direction overrides
    and nothing a browser reads as a folder."""
    name = " ".join((name or "").split())
    if not name or len(name) > MAX_NAME_LENGTH:
        raise RuleError("Give the edition a name of 1 to {max_name_length} characters.", max_name_length=MAX_NAME_LENGTH)
    refusal = name_refusal(name, Text("An edition's name"), MAX_NAME_LENGTH)
    if refusal:
        raise RuleError(refusal)
    if "/" in name or "\\" in name or name.startswith("."):
        raise RuleError('An edition\'s name cannot hold "/" or "\\" or start with a dot.')
    if name.lower() == "default":
        raise RuleError('"default" is the project\'s own edition; choose another name.')
    return name


def edition_refusal(name: str, data) -> str | None:
    """Why a stored edition could not have been saved by the editor as it is (None: it could)."""
    try:
        if _valid_name(name) != name:
            return Text("its name has extra spaces.")
        if not isinstance(data, dict):
            return Text("it is not an edition.")
        _checked_edition(data)
    except RuleError as exc:
        return exc.reason
    return None


def _same_label(a, b) -> bool:
    return " ".join(str(a).split()).casefold() == " ".join(str(b).split()).casefold()


def _checked_edition(data) -> None:
    """The editor's and the importer's checks of an edition; RuleError saying what is wrong."""
    load_edition(data)  # DS-2: a mistake is refused with a message pointing at it
    if _same_label(data["label"], default_edition_data()["label"]):
        raise RuleError("That label belongs to the project's default edition; give your edition its own "
                        "label (for example the name of your box).")


def _taken(name: str) -> RuleError:
    return RuleError("There is already an edition called {name!r}; choose another name (or open that edition to change it). Nothing was saved.", name=name)


def _checked_save(form, original: str | None) -> tuple[str, dict]:
    """(name, edition) to save from the editor's form; RuleError saying what stops it."""
    name = _valid_name(form.get("name"))
    data = form_to_edition(form)
    data["label"] = data["label"] or name  # a label left empty: the name tells the box apart
    _checked_edition(data)
    if name != original and edition_data(name) is not None:
        raise _taken(name)
    return name, data


def _numbered(name: str, n: int) -> str:
    """`name (n)`, shortened to fit the 60 characters a name may have."""
    suffix = f" ({n})"
    return name[:60 - len(suffix)].rstrip() + suffix


def _import_as(name: str, data: dict) -> str:
    """Store an imported edition under `name`, or `name (2)`, `name (3)`... if taken; the name used."""
    for n in range(1, 100):
        candidate = name if n == 1 else _numbered(name, n)
        if _editions().create(candidate, data, browser_id()):
            return candidate
    raise RuleError("There are too many editions called {name!r} already; give this one another name.", name=name)


# ---- pages --------------------------------------------------------------------------------------
def _editor(name: str, model: dict, status: int = 200, **extra):
    return render_template(EDITOR, name=name, model=model, colours=TOPPING_COLOURS, scoring=SCORING_SIZES,
                           shapes=FACE_SHAPES,
                           error=extra.pop("error", None), **extra), status


def _list_page(status: int = 200, **extra):
    return render_template("dice_and_slice/editions.html", named=[_listed(d) for d in _editions().all()],
                           max_file_kib=MAX_FILE_BYTES // 1024, **extra), status


@bp.get("/editions")
def editions():
    return _list_page()


@bp.get("/editions/default")
def edition_default():
    data = default_edition_data()
    return _editor("default", model_from_edition(data), readonly=True, note=data["note"])


@bp.get("/editions/new")
def edition_new():
    source = request.args.get("from", "default")
    if source == "blank":  # an empty pad, to copy a box onto
        return _editor("", blank_model(), readonly=False, new=True, blank=True)
    data = default_edition_data() if source == "default" else edition_data(source)
    if data is None:
        abort(404, Text("There is no edition called {source!r}.", source=source))
    # a copy is a new edition: it must not keep the source's label and note (the default's say
    # "Companion default edition (the project's own design…)", which would mislabel the copy)
    name = "" if source == "default" else f"{source} (copy)"
    return _editor(name, {**model_from_edition(data), "label": "", "note": ""}, readonly=False, new=True)


@bp.get("/editions/e/<path:name>")
def edition_show(name):
    doc = _editions().get(name)
    if doc is None:
        abort(404, Text("There is no edition called {name!r}.", name=name))
    mine = is_this_browser(doc.owner)
    return _editor(name, model_from_edition(doc.data), readonly=not mine, new=False, mine=mine,
                   ownerless=doc.owner is None)


def _refused_save(form, original: str | None, reason: str, status: int):
    """The editor again, with what was posted and why it was not saved."""
    return _editor(form.get("name", ""), model_from_form(form), status, readonly=False, new=original is None,
                   error=reason, original=original)


def _write(name: str, data: dict, original: str | None) -> None:
    if name == original:
        _editions().save(name, data, browser_id())  # changed in place (the owner stays the first one)
    elif not _editions().create(name, data, browser_id()):
        raise _taken(name)  # someone took the name since it was checked
    elif original:
        _editions().delete(original)  # a rename


@bp.post("/editions")
def edition_save():
    form = request.form
    original = form.get("original") or None
    try:
        if original is not None:
            own_edition(original)
    except NotYours as exc:  # the form becomes a new edition: the changes are not lost
        return _refused_save(form, None, Text("{reason} Your changes are still here: give them a new name to save them as your own edition.",
                                                   reason=exc.reason), 403)
    except RuleError as exc:
        return _refused_save(form, None, Text("{reason} Save this one under a new name.", reason=exc.reason), 422)
    try:
        name, data = _checked_save(form, original)
        _write(name, data, original)
    except RuleError as exc:
        return _refused_save(form, original, exc.reason, 422)
    return redirect(url_for("dice_and_slice.edition_show", name=name, saved=1), code=303)


@bp.post("/editions/delete")
def edition_delete():
    name = request.form.get("name", "")
    try:
        own_edition(name)
    except NotYours as exc:
        abort(403, exc.reason)
    except RuleError as exc:
        abort(404, exc.reason)
    _editions().delete(name)
    return redirect(url_for("dice_and_slice.editions", deleted=name), code=303)


# ---- editions as files (edition_files.py) ---------------------------------------------------------
@bp.get("/editions/export/<path:name>")
def edition_export(name):
    data = edition_data(name)
    if data is None:
        abort(404, Text("There is no edition called {name!r}.", name=name))
    file_name = name.replace("/", "-").replace("\\", "-") + ".edition.json"
    return send_file(io.BytesIO(edition_file(name, data)), mimetype="application/json", as_attachment=True,
                     download_name=file_name, max_age=0)


def _import_edition(read, refused):
    """Import what `read()` gives as (name, data) under the form's name or its own, checked as the
    editor checks; `refused(reason)` draws the page for an edition the checks refuse."""
    try:
        name_given, data = read()
        wanted = _valid_name(request.form.get("name") or name_given)
        _checked_edition(data)
        name = _import_as(wanted, data)
    except BadFile as exc:
        return _list_page(exc.status, import_error=exc.reason)
    except RuleError as exc:
        return refused(Text("{reason_value} Nothing was imported.", reason_value=exc.reason))
    return redirect(url_for("dice_and_slice.edition_show", name=name, imported=wanted), code=303)


@bp.post("/editions/import")
def edition_import():
    def read():
        upload = request.files.get("file")
        if upload is None or not upload.filename:
            raise BadFile("Choose an edition file (one made with Export) to import.", 400)
        return read_edition_file(upload.stream.read(MAX_FILE_BYTES + 1))
    return _import_edition(read, lambda reason: _list_page(422, import_error=reason))


# ---- editions as links, for another companion (edition_files.share_code) ---------------------------
@bp.get("/editions/share/<path:name>")
def edition_share(name):
    data = edition_data(name)
    if data is None:
        abort(404, Text("There is no edition called {name!r}.", name=name))
    code = share_code(name, data)
    link = absolute_url(url_for("dice_and_slice.edition_receive", packed=code)) if code else None
    return render_template("dice_and_slice/editions_share.html", name=name, link=link,
                           qr=qr_png_data_url(link) if link else None)


def _receive_page(code: str, status: int = 200, **extra):
    try:
        name, data = read_share_code(code)
        _checked_edition(data)
    except BadFile as exc:
        return _list_page(exc.status, import_error=exc.reason)
    except RuleError as exc:
        return _list_page(422, import_error=Text("{reason_value} Nothing was imported.", reason_value=exc.reason))
    return render_template("dice_and_slice/editions_receive.html", code=code, name=name, data=data,
                           model=model_from_edition(data), **extra), status


@bp.get("/editions/receive/<packed>")  # not <code>: a URL's "code" names a table on this platform
def edition_receive(packed):
    return _receive_page(packed)


@bp.get("/editions/receive")
def edition_receive_link():
    """The "paste a share link" form: the link may name another companion; its code is read here."""
    code = code_in_link(request.args.get("link", ""))
    if not code:
        return _list_page(400, import_error=Text("Paste the whole share link (or its code) to import an edition."))
    return redirect(url_for("dice_and_slice.edition_receive", packed=code), code=303)


@bp.post("/editions/receive")
def edition_receive_import():
    code = request.form.get("code", "")
    return _import_edition(lambda: read_share_code(code), lambda reason: _receive_page(code, 422, error=reason))
