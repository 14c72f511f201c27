"""The table option `coach`: its values and their labels (no numpy here: a server whose tables
never ask for the coach does not load the solver)."""
from __future__ import annotations

from . import rules
from companion.platform.sdk import Text

MODES = ("off", "after_game", "live")
MODE_LABELS = {"off": Text("Off"), "after_game": Text("After the game"), "live": Text("Live, during play")}


def normalize_mode(value) -> str:
    if value is None or value is False:
        return "off"
    if value not in MODES:
        raise rules.RuleError("The coach option is one of: {modes}; got {value!r}.", modes=', '.join(MODES), value=value)
    return value
