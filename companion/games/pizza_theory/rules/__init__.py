"""Pizza Theory rules engine (2-3 players). Registers itself as "pizza_theory".

Modules: board (geometry data, validation, precomputed slices), resolve (slice resolution on
bitmasks), engine (state machine), view (JSON views). Rules PT-n: seeds/pizza-theory.md.
"""
from __future__ import annotations

from .board import Board, BoardError, load_board, validate  # noqa: F401
from .engine import (BOARD, State, apply, finished, legal_spaces, neutral_spaces, new_state,  # noqa: F401
                     normalize_options, outcomes, secret, totals, undo_refusal, waiting_for, winners)
from .resolve import COLOURS, TOPPINGS, Outcome, resolve_masks  # noqa: F401
from .view import resolution_view, view  # noqa: F401
