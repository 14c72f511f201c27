"""The table option `coach`: its values and their labels (no numpy here: a server whose tables
never ask for the coach does not load the solver)."""
from __future__ import annotations

from . import rules

MODES = ("off", "after_game", "live")
MODE_LABELS = {"off": "Off", "after_game": "After the game", "live": "Live, during play"}


def normalize_mode(value) -> str:
    if value is None or value is False:
        return "off"
    if value not in MODES:
        raise rules.RuleError("The coach option is one of: {modes}; got {value!r}.", modes=', '.join(MODES), value=value)
    return value
