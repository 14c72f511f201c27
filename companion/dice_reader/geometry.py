"""Sizes and cuts shared by the reader and its training script, so both see a die the same way."""
from __future__ import annotations

import numpy as np
from PIL import Image

INPUT = 384  # the detector is trained to see the photo scaled so its longer side is this many pixels
STRIDE = 8  # one detector cell per this many input pixels
CROP = 48  # the face reader is trained to see one die at this many pixels square (both ONNX files say their size too)
CONTEXT = 1.25  # the cut around a die is this much wider than its box, so its edges show


def cut_square(rgb: np.ndarray, centre, side: float, angle: float = 0.0, size: int = CROP) -> np.ndarray:
    """The square of `side` * CONTEXT pixels around `centre`, turned by `angle` degrees, as size x size."""
    half = side * CONTEXT / 2
    reach = half * (1.5 if angle else 1.0)  # room for the corners of a turned square
    x, y = centre
    region = Image.fromarray(rgb).crop((round(x - reach), round(y - reach), round(x + reach), round(y + reach)))
    if angle:
        region = region.rotate(angle, resample=Image.BILINEAR)
        inset = (region.width - 2 * half) / 2
        region = region.crop((round(inset), round(inset), round(inset + 2 * half), round(inset + 2 * half)))
    return np.asarray(region.resize((size, size), Image.BILINEAR))
