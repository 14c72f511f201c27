"""Contrast and size of every text a page draws, read from what Chromium rendered.

axe-core and Lighthouse skip SVG text and text over pictures; this check does not. For each piece of
text (HTML and SVG alike) the page reports its box, its computed colour (the fill for SVG text) with
the opacity it is drawn at, and its rendered size. Then every text is made transparent and the page is
photographed: the pixels inside each text's box are what lies behind it. A text passes when its colour
reaches the WCAG ratio (4.5:1, or 3:1 for large text) against at least 80 % of the pixels behind it;
SVG text ringed by an opaque halo of 3 px or more (its stroke painted under its fill) is measured
against its halo.

The context must be made with bypass_csp=True: the page's policy refuses the one stylesheet this
check adds to hide the text.
"""
from __future__ import annotations

import io

import numpy as np
from PIL import Image

# the share of the pixels behind a text that may be of a colour the text does not stand out from
# (a border or the edge of a neighbouring shape crossing the text's box)
TOLERATED = 0.2
SMALLEST_PX = 12
GLYPH_INSET = 0.2  # of a line box's height, at its top and at its bottom

TEXTS = """() => {
  // fixed and sticky bars cover what scrolls under them: a text is read where no bar covers it
  const bars = Array.from(document.querySelectorAll('body *, svg *')).filter(el =>
    ['fixed', 'sticky'].includes(getComputedStyle(el).position) && el.checkVisibility());
  const covered = (el, r) => bars.some(bar => !bar.contains(el) && (b => b.width && b.height &&
    r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top)(bar.getBoundingClientRect()));
  const canvas = new OffscreenCanvas(1, 1).getContext('2d', {willReadFrequently: true});
  const rgba = css => {  // any CSS colour (rgb, oklch, color-mix...) as [r, g, b, a 0-1]
    canvas.clearRect(0, 0, 1, 1); canvas.fillStyle = '#000'; canvas.fillStyle = css;
    canvas.fillRect(0, 0, 1, 1);
    const d = canvas.getImageData(0, 0, 1, 1).data;
    return [d[0], d[1], d[2], d[3] / 255];
  };
  const hidden = (el, cx, cy) => {  // clipped away: visually hidden text, or scrolled out of its box
    for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a), r = a.getBoundingClientRect();
      const clips = s.overflow !== 'visible' || s.clip !== 'auto' || s.clipPath !== 'none';
      if (clips && (r.width <= 2 || r.height <= 2)) return true;
      if (s.overflowX !== 'visible' && (cx < r.left || cx > r.right)) return true;
      if (s.overflowY !== 'visible' && (cy < r.top || cy > r.bottom)) return true;
    }
    return false;
  };
  const opacity = el => {
    let o = 1;
    for (let a = el; a; a = a.parentElement) o *= parseFloat(getComputedStyle(a).opacity);
    return o;
  };
  const letterBoxes = el => {
    const m = el.getScreenCTM(), boxes = [];
    for (let i = 0; i < el.getNumberOfChars(); i++) {
      if (!el.textContent[i] || !el.textContent[i].trim()) continue;
      const r = el.getExtentOfChar(i);
      const a = new DOMPoint(r.x, r.y).matrixTransform(m), b = new DOMPoint(r.x + r.width, r.y + r.height).matrixTransform(m);
      boxes.push([Math.min(a.x, b.x), Math.min(a.y, b.y), Math.max(a.x, b.x), Math.max(a.y, b.y)]);
    }
    return boxes;
  };
  const found = [];
  let index = -1;
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement;
    index += 1;
    if (!node.data.trim() || !el || el.closest('script, style, noscript, template, title, desc, option')) continue;
    if (el.closest(':disabled, [aria-disabled="true"]')) continue;  // inactive controls are exempt
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const box = range.getBoundingClientRect();
    if (box.width < 2 || box.height < 2) continue;
    // one box per line: a wrapped text's outer box would also cover what stands beside its first line
    // and in SVG one box per letter: one text element may place its letters far apart
    const lines = el instanceof SVGTextContentElement ? letterBoxes(el)
      : Array.from(range.getClientRects()).filter(r => r.width >= 1 && r.height >= 1)
          .map(r => [r.left, r.top, r.right, r.bottom]);
    if (hidden(el, box.left + box.width / 2, box.top + box.height / 2)) continue;
    if (box.top < 0 || box.bottom > innerHeight || covered(el, box)) continue;  // read it at another scroll
    const s = getComputedStyle(el), svg = el instanceof SVGElement;
    if (svg && !s.fill.startsWith('rgb') && !s.fill.startsWith('#') && !s.fill.startsWith('color')) continue;
    const colour = rgba(svg ? s.fill : s.color);
    // SVG text drawn over a halo (its own stroke painted first, wide enough to ring every glyph)
    // stands on that halo, whatever is under it
    const scale = svg ? (m => Math.hypot(m.a, m.b))(el.getScreenCTM()) : 1;
    const halo = svg && s.paintOrder.startsWith('stroke') && s.stroke.startsWith('rgb') &&
      parseFloat(s.strokeWidth) * scale >= 3 && rgba(s.stroke)[3] === 1 ? rgba(s.stroke) : null;
    colour[3] *= opacity(el) * (svg ? parseFloat(s.fillOpacity) : 1);
    const px = parseFloat(s.fontSize) * scale;
    found.push({index, text: node.data.trim().slice(0, 40), where: el.tagName.toLowerCase() +
                  (el.getAttribute('class') ? '.' + el.getAttribute('class').trim().split(/\\s+/).join('.') : ''),
                colour, halo, px, bold: parseInt(s.fontWeight) >= 700,
                lines});
  }
  return found;
}"""

# text-fill-color rather than color: backgrounds and borders drawn in currentColor stay as they are
HIDE_TEXT = """.contrast-hide-text *, .contrast-hide-text *::before, .contrast-hide-text *::after {
  -webkit-text-fill-color: transparent !important; text-shadow: none !important;
  text-decoration-color: transparent !important; caret-color: transparent !important; }
.contrast-hide-text text, .contrast-hide-text tspan { fill: transparent !important; stroke: transparent !important; }"""
# into an HTML page's head, or into an SVG document (a result card) itself
ADD_STYLE = """css => {
  if (document.querySelector('[data-contrast]')) return;
  const style = document.createElementNS(document.documentElement.namespaceURI, 'style');
  style.textContent = css;
  style.setAttribute('data-contrast', '');
  (document.head || document.documentElement).appendChild(style);
}"""
HIDING = "on => document.documentElement.classList.toggle('contrast-hide-text', on)"


def _luminance(rgb) -> float:
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a, b) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _over(colour, behind):
    """The colour seen where `colour` (with its alpha) is drawn over the opaque `behind`."""
    alpha = colour[3]
    return tuple(alpha * c + (1 - alpha) * b for c, b in zip(colour[:3], behind[:3]))


def needed(text) -> float:
    large = text["px"] >= 24 or (text["bold"] and text["px"] >= 18.66)
    return 3.0 if large else 4.5


def _behind(text, shot) -> tuple[np.ndarray, np.ndarray]:
    """The distinct colours of the pixels inside the text's line boxes, and how many of each."""
    height, width = shot.shape[:2]
    parts = []
    for left, top, right, bottom in text["lines"]:
        # a line box is taller than its letters: the room above capitals and below the baseline
        # belongs to whatever surrounds the text (a badge's rim, the page around a chip)
        inset = (bottom - top) * GLYPH_INSET
        top, bottom = top + inset, bottom - inset
        left, top = max(int(left), 0), max(int(top), 0)
        right, bottom = min(max(round(right), left + 1), width), min(max(round(bottom), top + 1), height)
        parts.append(shot[top:bottom, left:right].reshape(-1, 3))
    pixels = np.concatenate(parts) if parts else np.zeros((0, 3), dtype=np.uint8)
    return np.unique(pixels, axis=0, return_counts=True)


def _worst_tolerated(text, shot) -> tuple[float, tuple]:
    """The contrast the text reaches against all but the TOLERATED share of the pixels behind it."""
    if text["halo"]:
        return ratio(_over(text["colour"], text["halo"]), text["halo"]), tuple(text["halo"][:3])
    colours, counts = _behind(text, shot)
    if not len(colours):
        return 21.0, (0, 0, 0)
    scored = sorted((ratio(_over(text["colour"], c), c), tuple(int(v) for v in c), int(n))
                    for c, n in zip(colours, counts))
    seen, total = 0, int(counts.sum())
    for score, pixel, n in scored:
        seen += n
        if seen > TOLERATED * total:
            return score, pixel
    return scored[-1][:2]


def _screens(page):
    """Scroll the page a screen at a time: at each stop, the texts read there (each once, where no
    fixed bar covers it) and a picture of the screen with all text hidden."""
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.evaluate(ADD_STYLE, HIDE_TEXT)
    read, y = set(), 0
    height = page.evaluate("() => document.documentElement.scrollHeight")
    step = max(page.viewport_size["height"] - 160, 200)
    while True:
        page.evaluate("y => window.scrollTo(0, y)", y)
        found = [t for t in page.evaluate(TEXTS) if t["index"] not in read]
        read.update(t["index"] for t in found)
        page.evaluate(HIDING, True)
        png = page.screenshot(scale="css", animations="disabled")
        page.evaluate(HIDING, False)
        yield found, np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
        if y + page.viewport_size["height"] >= height:
            return
        y += step


def texts(page) -> list[dict]:
    return [t for found, _ in _screens(page) for t in found]


def contrast_problems(page) -> list[str]:
    """Every text whose colour does not stand out enough from what is drawn behind it."""
    problems = []
    for found, shot in _screens(page):
        for text in found:
            score, pixel = _worst_tolerated(text, shot)
            if score < needed(text) - 0.005:
                fg = "#%02x%02x%02x" % tuple(round(c) for c in _over(text["colour"], pixel))
                problems.append(f'"{text["text"]}" ({text["where"]}, {text["px"]:.1f} px) {fg} on '
                                f'#{pixel[0]:02x}{pixel[1]:02x}{pixel[2]:02x}: {score:.2f}:1 (needs {needed(text)}:1)')
    return problems


def small_texts(page, smallest: float = SMALLEST_PX) -> list[str]:
    """Every text drawn smaller than `smallest` px."""
    return [f'"{t["text"]}" ({t["where"]}) {t["px"]:.1f} px' for t in texts(page) if t["px"] < smallest - 0.05]
