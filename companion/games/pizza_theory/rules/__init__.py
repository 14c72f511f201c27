"""Pizza Theory rules engine (2-3 players). Registers itself as "pizza_theory".

Modules: board (geometry data, validation, precomputed slices), resolve (slice resolution on
bitmasks), engine (state machine), view (JSON views), hints (previews and legal entries). Rules PT-n: rules.md.
"""
from __future__ import annotations

from .board import Board, BoardError, load_board, validate  # noqa: F401
from .engine import (BOARD, State, apply, finished, legal_spaces, neutral_blocked, neutral_line,  # noqa: F401
                     neutral_spaces, new_state, normalize_options, outcomes, secret, totals, undo_refusal,
                     waiting_for, winners)
from .hints import hints, sample_draft  # noqa: F401
from .resolve import COLOURS, TOPPINGS, Outcome, resolve_masks  # noqa: F401
from .view import export_columns, resolution_view, rounds, view  # noqa: F401
