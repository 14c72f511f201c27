"""The last entry in words (Game.describe), checked the same way for every game: each entry is told
in a sentence naming its player, and what a screen is told never depends on a choice still kept
secret from it."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.platform.core.contract import Game
from companion.platform.core.play import last_entry_text
from companion.platform.core.registry import GAMES
from tests.contract.playout import player_counts, playout, viewers

GAME_IDS = list(GAMES)
SETTINGS = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ["Ann", "Ben", "Cleo", "Dev", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jade", "Kai", "Lou"]


def _latest_first(steps):
    return [(s.seat, s.entry, s.before, s.after) for s in reversed(steps)]


@pytest.mark.parametrize("game_id", GAME_IDS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_every_entry_is_told_in_a_sentence_that_names_its_player(game_id, seed):
    game = GAMES[game_id]
    rng = random.Random(seed)
    players = rng.choice(player_counts(game))
    _, steps = playout(game, players, rng, max_steps=300)
    names = NAMES[:players]
    for step in steps:
        text = game.describe(step.seat, step.entry, step.before, step.after, names)
        assert isinstance(text, str) and text.strip(), f"{step.entry} is not told"
        assert names[step.seat] in text, text
        assert "{" not in text and "None" not in text, text


@pytest.mark.parametrize("game_id", GAME_IDS)
@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_what_a_screen_is_told_of_the_last_entry_never_depends_on_a_secret(game_id, seed):
    """Wherever an entry is still secret from a viewer, any other secret choice in its place gives
    that viewer the very same sentence: nothing of the choice leaks into the words."""
    game = GAMES[game_id]
    rng = random.Random(seed)
    players = rng.choice(player_counts(game))
    _, steps = playout(game, players, rng, max_steps=200)
    names = NAMES[:players]
    compared = 0
    for i, step in enumerate(steps):
        for viewer in viewers(players):
            if not game.secret(step.seat, step.entry, step.before, step.after, viewer):
                continue
            told = last_entry_text(game, _latest_first(steps[:i + 1]), step.after, viewer, names)
            for other in step.alternatives:
                after = game.apply(step.before, step.seat, other)
                if not game.secret(step.seat, other, step.before, after, viewer):
                    continue
                instead = [(step.seat, other, step.before, after)] + _latest_first(steps[:i])
                assert last_entry_text(game, instead, after, viewer, names) == told
                compared += 1
    if type(game).secret is not Game.secret and any(s.alternatives for s in steps):
        assert compared, "a game with secrets had none to compare in 200 entries"

