"""Every text readable on a 360 x 640 phone in light and dark mode (issue 37, item 2): each text, in
HTML and SVG alike, stands out from the colour Chromium drew behind it (4.5:1, 3:1 for large text),
and none is drawn under 12 px, on every page of every game (the pages the axe test visits)."""
from __future__ import annotations

import pytest

from tests.contrast import contrast_problems, small_texts
from tests.platform.test_accessibility_browser import CASES, SCHEMES, phones_per_scheme, tables  # noqa: F401

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def readers(browser, servers, tables):  # noqa: F811
    """The phones of the accessibility test (bypass_csp: the check adds a stylesheet that hides the
    text to photograph what lies behind it)."""
    yield from phones_per_scheme(browser, servers, tables, bypass_csp=True)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name,path,gid,stage", CASES, ids=[c[0] for c in CASES])
def test_every_text_is_readable(readers, servers, tables, scheme, name, path, gid, stage):  # noqa: F811
    base, page = servers[0], readers[scheme]
    if stage == "join":
        url = tables[(gid, "join")]["join_url"]
    else:
        url = base + path.format(code=tables[(gid, stage)]["code"] if gid and stage else "")
    resp = page.goto(url)
    assert resp.ok, f"{url} answered {resp.status}"
    page.wait_for_function("() => window.htmx && document.readyState === 'complete'")
    if scheme == "light":  # sizes do not change with the colours
        small = small_texts(page)
        assert not small, f"{name}: text under 12 px:\n" + "\n".join(small)
    problems = contrast_problems(page)
    assert not problems, f"{name} ({scheme}): text that does not stand out:\n" + "\n".join(problems)


def _finale_link(page, base, table, ending):
    page.goto(f"{base}/t/{table['code']}/view")
    return page.locator(f'a[href$="{ending}"]').first.get_attribute("href")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("gid", sorted({c[2] for c in CASES if c[2]}))
def test_the_result_card_and_records_are_readable(readers, servers, tables, scheme, gid):  # noqa: F811
    """A finished game's result card (an SVG shared as it is) and the first player's record page."""
    base, page = servers[0], readers[scheme]
    table = tables[(gid, "end")]
    card = _finale_link(page, base, table, "card.svg")
    assert card, "the finished game offers no result card"
    assert page.goto(base + card).ok
    problems = contrast_problems(page)
    assert not problems, f"{gid} card ({scheme}):\n" + "\n".join(problems)
    record = _finale_link(page, base, table, "/players/Ann")
    assert record and page.goto(base + record).ok
    if scheme == "light":
        assert not small_texts(page), small_texts(page)
    problems = contrast_problems(page)
    assert not problems, f"{gid} record ({scheme}):\n" + "\n".join(problems)

