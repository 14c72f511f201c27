"""What a page works out from shared, unchanging objects is kept by those very objects
(companion/platform/web/kept.py `KeptByIdentity`)."""
from __future__ import annotations

from companion.platform.web.kept import KeptByIdentity


def counting(derive):
    calls = []

    def counted(*parts):
        calls.append(parts)
        return derive(*parts)
    return counted, calls


def test_the_same_objects_are_worked_out_once_and_equal_ones_again():
    derive, calls = counting(lambda dots, lines: f"{len(dots)} dots, {len(lines)} lines")
    kept = KeptByIdentity(derive)
    dots, lines = [[1, 2], [3, 4]], [[[1, 2], [3, 4]]]
    assert kept.value(dots, lines) == kept.value(dots, lines) == "2 dots, 1 lines"
    assert len(calls) == 1
    copy = [list(d) for d in dots]  # equal, not the same: it might have changed since
    assert kept.value(copy, lines) == "2 dots, 1 lines"
    assert len(calls) == 2


def test_a_kept_value_follows_a_change_made_by_new_objects():
    kept = KeptByIdentity(lambda dots: sum(map(sum, dots)))
    dots = [[1, 2]]
    assert kept.value(dots) == 3
    moved = dots + [[5, 5]]  # a sheet after an entry: new lists, the old ones left as they were
    assert kept.value(moved) == 13 and kept.value(dots) == 3


def test_it_keeps_at_most_its_size_and_drops_the_least_recently_used():
    derive, calls = counting(lambda part: len(part))
    kept = KeptByIdentity(derive, size=2)
    a, b, c = [1], [1, 2], [1, 2, 3]
    kept.value(a), kept.value(b), kept.value(a), kept.value(c)  # b is the least recent: dropped
    assert len(kept.kept) == 2
    assert kept.value(a) == 1 and len(calls) == 3
    assert kept.value(b) == 2 and len(calls) == 4


def test_an_entry_holds_its_objects_so_their_ids_are_not_reused_meanwhile():
    kept = KeptByIdentity(lambda part: len(part))
    kept.value([7, 7, 7])  # no other reference to this list: only the entry keeps it alive
    for _ in range(1000):
        assert kept.value([0]) == 1  # were the first list freed, one of these could take its id
