"""Score sheet rules: a sheet as data (`sheet.py`, `formula.py`), the library (`builtin.py`), the
game itself (`engine.py`) and what the pages draw (`view.py`). Pure: no Flask, no database."""
from .builtin import BUILTIN, DEFAULT_SHEET
from .engine import ENTRY_FIELDS, State, apply, finished, new_state, normalize_options, totals, waiting_for, winners
from .sheet import Sheet, load_sheet, sheet_from_data
from .view import hints, view

__all__ = ["BUILTIN", "DEFAULT_SHEET", "ENTRY_FIELDS", "Sheet", "State", "apply", "finished", "hints", "load_sheet",
           "new_state", "normalize_options", "sheet_from_data", "totals", "view", "waiting_for", "winners"]
