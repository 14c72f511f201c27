"""A game's phone pages, as the platform plugs them in (the web half of the contract)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

from ..core.contract import RuleError

if TYPE_CHECKING:
    from .context import PlayContext


def _no_context(*_args) -> dict:
    return {}


def _no_options(_form, _players) -> dict:
    return {}


def _no_page_context() -> dict:
    return {}


@dataclass(frozen=True)
class GameWeb:
    """How a game appears on phones. Every callable receives one PlayContext (table, replay, viewer,
    and the viewer's `view`); none of them reads a state or re-derives a rule."""

    # fragments, each rendered into its own element and re-fetched by htmx
    sheet_template: str   # the seat's own sheet, root element id="sheet"
    table_template: str   # everybody's state for the table view, root element id="board"
    # (form, ctx) -> entry dict; raises RuleError with a reason for the player
    entry_from_form: Callable[[Mapping, "PlayContext"], dict]
    # (ctx, form) -> extra template variables for the sheet fragments
    sheet_context: Callable[["PlayContext", Mapping], dict] = _no_context
    # (ctx) -> extra template variables for the table view
    table_context: Callable[["PlayContext"], dict] = _no_context
    # what POST /t/<code>/s/<seat>/preview answers for htmx (only the part a draft changes);
    # None: the whole sheet fragment
    preview_template: str | None = None
    # (form, number of players named on it) -> the start form's options for this game
    create_options: Callable[[Mapping, int], dict] = _no_options
    options_template: str | None = None  # extra fields on the start form
    # () -> what options_template draws from besides the form (a list of saved choices), as `options`
    options_context: Callable[[], dict] = _no_page_context
    assets: tuple[str, ...] = ()  # files under static/ (.css or .js) that this game's pages load
    # scripts under static/ loaded after static/offline.js once a page is up: each draws on the sheet
    # what a tap kept offline did (the "companion:kept" event of static/app.js)
    offline_scripts: tuple[str, ...] = ()
    # style sheets that the game's pages other than a phone's sheet add: the table view, its own pages
    view_styles: tuple[str, ...] = ()
    blueprint: object | None = None  # a Flask blueprint with the game's own routes, if any
    # (label, endpoint) links on the host screen; the endpoint gets the table code
    host_links: tuple[tuple[str, str], ...] = ()
    # a partial of the game's own on the host screen, drawn with host_context(ctx)'s variables
    host_template: str | None = None
    host_context: Callable[["PlayContext"], dict] = _no_context


def int_field(form, name: str, label: str, low: int, high: int) -> int:
    """A whole number from a form field, or RuleError saying what is wrong with it."""
    raw = (form.get(name) or "").strip()
    if not raw:
        raise RuleError("Choose {label}.", label=label)  # label: a Text ("a line")
    try:
        value = int(raw)
    except ValueError:
        raise RuleError("Choose {label}: a number from {low} to {high}.", label=label, low=low, high=high) from None
    if not low <= value <= high:
        raise RuleError("Choose {label} from {low} to {high}.", label=label, low=low, high=high)
    return value
