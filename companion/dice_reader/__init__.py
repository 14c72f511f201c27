"""Reads six-sided dice from one photo: where each die lies and which face is up, with a confidence.

Two small networks, trained by scripts/train_dice_reader.py and run here with ONNX Runtime on the CPU:
the detector marks die centres and sizes on the photo scaled down (384 px); the face reader looks at
each die cut from the photo at a finer scale, reads its face and drops what is no die. What it returns is a suggestion: the player confirms it.
Figures on photos it never saw: docs/performance.md, "Dice reader".
"""
from __future__ import annotations

import io
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from . import geometry

HERE = Path(__file__).resolve().parent
FORMATS = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}
MAX_BYTES = 8 * 1024 * 1024
MAX_PIXELS = 40_000_000  # a photo larger than this is refused before it is decoded
WORKING_SIDE = 1024  # a larger photo is scaled down to this before anything else
FOUND_AT = 0.4  # a centre scored at least this is a die (chosen on train/: fewest false dice for the found)
NOT_A_DIE = 0.5  # a cut the face reader gives at least this chance of being no die is dropped
SAME_DIE_IOU = 0.5


class NotAnImage(ValueError):
    """The bytes are not a photo the reader can open."""


@dataclass(frozen=True)
class Die:
    face: int
    box: tuple[float, float, float, float]  # x, y, width, height as fractions of the photo
    confidence: float

    def as_json(self) -> dict:
        return {"face": self.face, "box": [round(v, 4) for v in self.box], "confidence": round(self.confidence, 3)}


@dataclass(frozen=True)
class Reading:
    dice: list[Die]
    width: int
    height: int
    ms: int

    def as_json(self) -> dict:
        return {"dice": [die.as_json() for die in self.dice], "width": self.width, "height": self.height,
                "ms": self.ms}


@lru_cache(maxsize=None)
def _session(name: str):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(HERE / name), options, providers=["CPUExecutionProvider"])


def open_photo(data: bytes) -> tuple[Image.Image, tuple[int, int]]:
    """The photo, upright as the phone took it, in RGB (a large JPEG already decoded smaller), and its
    full size upright; NotAnImage for anything else."""
    try:
        photo = Image.open(io.BytesIO(data))
        if photo.format not in FORMATS:
            raise NotAnImage("That file is not a JPEG, PNG or WebP photo.")
        if photo.width * photo.height > MAX_PIXELS:
            raise NotAnImage("That photo has too many pixels; send one of at most 4,000 by 4,000.")
        full_width = photo.width
        photo.draft("RGB", (WORKING_SIDE, WORKING_SIDE))  # JPEG: decode at a smaller scale straight away
        shrunk = full_width / photo.width
        photo = ImageOps.exif_transpose(photo).convert("RGB")
        return photo, (round(photo.width * shrunk), round(photo.height * shrunk))
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, Image.DecompressionBombError) as error:
        if isinstance(error, NotAnImage):
            raise
        raise NotAnImage("That file is not a photo the reader can open.") from error


def image_format(data: bytes) -> str | None:
    """The photo's type as a MIME type when it is one the reader takes, else None (also for a non-image)."""
    try:
        return FORMATS.get(Image.open(io.BytesIO(data)).format)
    except (UnidentifiedImageError, OSError, ValueError):
        return None


def is_image(data: bytes) -> bool:
    """Whether Pillow knows the bytes as an image of any type (a GIF, a BMP, ...)."""
    try:
        Image.open(io.BytesIO(data))
        return True
    except (UnidentifiedImageError, OSError, ValueError):
        return False


def read_photo(data: bytes) -> Reading:
    started = time.perf_counter()
    photo, (width, height) = open_photo(data)
    dice = read_dice(photo)
    return Reading(dice, width, height, round((time.perf_counter() - started) * 1000))


def read_dice(photo: Image.Image) -> list[Die]:
    """Every die found on the photo, most confident first."""
    scale = min(1.0, WORKING_SIDE / max(photo.size))
    working = photo if scale == 1.0 else photo.resize(
        (round(photo.width * scale), round(photo.height * scale)), Image.BILINEAR, reducing_gap=2.0)
    rgb = np.asarray(working)
    boxes, scores = find_dice(working)
    if not boxes:
        return []
    size = _session("faces.onnx").get_inputs()[0].shape[2]  # the cut the face reader was trained on
    crops = np.stack([geometry.cut_square(rgb, (x + w / 2, y + h / 2), (w + h) / 2, size=size)
                      for x, y, w, h in boxes])
    probs = read_faces(crops)
    dice = [Die(int(p[:6].argmax()) + 1, (x / rgb.shape[1], y / rgb.shape[0], w / rgb.shape[1], h / rgb.shape[0]),
                float(score * p[:6].max()))
            for (x, y, w, h), score, p in zip(boxes, scores, probs) if p[6] < NOT_A_DIE]
    return sorted(dice, key=lambda die: -die.confidence)


def read_faces(crops: np.ndarray) -> np.ndarray:
    """Each cut's chances of showing 1..6 and, last, of being no die at all: the face reader looks at each
    cut eight times, turned by a quarter each time and mirrored (a die's face is the same whichever way it
    lies), and the eight views are averaged."""
    views = [np.rot90(crops, quarter, axes=(1, 2)) for quarter in range(4)]
    views += [view[:, :, ::-1] for view in views]
    probs = _session("faces.onnx").run(None, {"image": _tensor(np.concatenate(views))})[0]
    return probs.reshape(len(views), len(crops), -1).mean(0)


def _tensor(images: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(images.astype(np.float32).transpose(0, 3, 1, 2) / 255.0)


def find_dice(working: Image.Image) -> tuple[list[tuple[float, float, float, float]], list[float]]:
    """Die boxes (x, y, w, h in the working photo's pixels) and their detector scores."""
    side = _session("detector.onnx").get_inputs()[0].shape[2]  # the size the detector was trained on
    to_input = side / max(working.size)
    small = working.resize((round(working.width * to_input), round(working.height * to_input)), Image.BILINEAR,
                           reducing_gap=2.0)
    canvas = np.zeros((side, side, 3), np.uint8)
    canvas[:small.height, :small.width] = np.asarray(small)
    out = _session("detector.onnx").run(None, {"image": _tensor(canvas[None])})[0][0]
    boxes, scores = [], []
    for iy, ix in _peaks(out[0]):
        cx, cy = (ix + out[1, iy, ix]) * geometry.STRIDE, (iy + out[2, iy, ix]) * geometry.STRIDE
        w, h = np.exp(out[3:5, iy, ix]) * geometry.STRIDE
        boxes.append(tuple(float(v) / to_input for v in (cx - w / 2, cy - h / 2, w, h)))
        scores.append(float(out[0, iy, ix]))
    return _without_overlaps(boxes, scores)


def _peaks(heat: np.ndarray) -> list[tuple[int, int]]:
    """Cells scoring at least FOUND_AT that no neighbour outscores."""
    padded = np.pad(heat, 1, constant_values=-1.0)
    neighbours = np.max([padded[dy:dy + heat.shape[0], dx:dx + heat.shape[1]]
                         for dy in range(3) for dx in range(3)], axis=0)
    return [tuple(cell) for cell in np.argwhere((heat >= neighbours) & (heat >= FOUND_AT))]


def iou(a, b) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    across = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    down = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    shared = across * down
    return shared / (aw * ah + bw * bh - shared) if shared else 0.0


def _without_overlaps(boxes, scores):
    kept_boxes, kept_scores = [], []
    for index in sorted(range(len(boxes)), key=lambda i: -scores[i]):
        if all(iou(boxes[index], other) < SAME_DIE_IOU for other in kept_boxes):
            kept_boxes.append(boxes[index])
            kept_scores.append(scores[index])
    return kept_boxes, kept_scores
