"""How each game appears on a phone: its templates and how its forms become entries."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..rules import RuleError


@dataclass(frozen=True)
class GameUI:
    game_id: str
    # fragments, each rendered into its own element and re-fetched by htmx
    sheet_template: str   # the player's own sheet, id="sheet"
    table_template: str   # everybody's state for the table view, id="board"
    # (form, replay, seat) -> entry dict; raises RuleError with a reason for the player
    entry_from_form: Callable
    # (replay, seat, form) -> extra template variables for the sheet fragment
    sheet_context: Callable = lambda rep, seat, form: {}
    table_context: Callable = lambda rep: {}
    create_options: Callable = lambda form: {}  # the create-table form's options for this game
    options_template: str | None = None  # extra fields on the create-table form
    assets: tuple[str, ...] = ()  # files under static/ (.css or .js) that this game's pages load
    blueprint: object | None = None  # a Flask blueprint with the game's own routes, if any
    # (label, endpoint) links on the host screen; the endpoint gets the table code (as a query
    # argument if its route does not take one)
    host_links: tuple[tuple[str, str], ...] = ()
    extra: dict = field(default_factory=dict)


UIS: dict[str, GameUI] = {}


def register_ui(ui: GameUI) -> GameUI:
    UIS[ui.game_id] = ui
    return ui


def ui_for(game_id: str) -> GameUI:
    return UIS[game_id]


def int_field(form, name: str, label: str, low: int, high: int) -> int:
    raw = (form.get(name) or "").strip()
    if not raw:
        raise RuleError(f"Choose {label}.")
    try:
        value = int(raw)
    except ValueError:
        raise RuleError(f"{label[0].upper()}{label[1:]} must be a number from {low} to {high}.") from None
    if not low <= value <= high:
        raise RuleError(f"{label[0].upper()}{label[1:]} must be from {low} to {high}.")
    return value
