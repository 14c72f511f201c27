"""Train the dice reader's two small networks from the photos in shared/datasets/dice-photos/train/ and
export them to ONNX beside the reader (companion/dice_reader/*.onnx).

  OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python scripts/train_dice_reader.py [--data DIR] [--epochs N]

The committed networks come from two runs with the defaults, `--only faces` and `--only detector` (each
about 10 to 15 minutes of one core; each epoch's model is written as it goes).

Needs the `train` extra (torch, opencv-python-headless, onnx); the app itself runs the exported files
with onnxruntime only. The detector finds dice on the photo scaled to 320 px (a heat map of die centres
plus each die's size); the face reader looks at one die cut from the photo at a finer scale.
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from companion.dice_reader import geometry  # noqa: E402

FACE_WORDS = ("one", "two", "three", "four", "five", "six")
CROP = geometry.CROP  # --crop changes it for a run
DATA_SET = Path("shared") / "datasets" / "dice-photos"
# the data set lies in shared/ beside the repository (or beside the folder of work trees)
DEFAULT_DATA = next((folder / DATA_SET for folder in ROOT.parents if (folder / DATA_SET).is_dir()), DATA_SET)
OUT = ROOT / "companion" / "dice_reader"


def load_split(folder: Path):
    """[(RGB image as uint8 array, [(face, cx, cy, w, h) in fractions])] for one split."""
    photos = []
    for image_path in sorted((folder / "images").glob("*.jpg")):
        rgb = cv2.cvtColor(cv2.imread(str(image_path)), cv2.COLOR_BGR2RGB)
        dice = []
        for line in (folder / "labels" / f"{image_path.stem}.txt").read_text().split("\n"):
            parts = line.split()
            if len(parts) == 5:
                dice.append((FACE_WORDS.index(parts[0]) + 1, *map(float, parts[1:])))
        photos.append((rgb, dice))
    return photos


def conv(cin, cout, stride=1, dilation=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, dilation, dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Detector(nn.Module):
    """Stride 8: one cell per 8 px of the 320 px input; outputs centre score, offset (2), size (2)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(conv(3, 8, 2), conv(8, 16, 2), conv(16, 16), conv(16, 32, 2), conv(32, 32),
                                  conv(32, 48, dilation=2), conv(48, 48, dilation=2))
        self.head = nn.Conv2d(48, 5, 1)

    def forward(self, x):
        out = self.head(self.body(x))
        return torch.cat([torch.sigmoid(out[:, :1]), out[:, 1:]], 1)


class FaceNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(conv(3, 16), nn.MaxPool2d(2), conv(16, 32), conv(32, 32), nn.MaxPool2d(2),
                                  conv(32, 64), conv(64, 64), nn.MaxPool2d(2), conv(64, 96))
        self.fc = nn.Linear(96, 6)

    def forward(self, x):
        return torch.softmax(self.fc(self.body(x).mean((2, 3))), 1)


def colour_jitter(img: np.ndarray, rng: random.Random) -> np.ndarray:
    out = img.astype(np.float32)
    out = out[:, :, rng.sample(range(3), 3)]
    if rng.random() < 0.3:
        out = out.mean(2, keepdims=True).repeat(3, 2)
    out = (out - 128) * rng.uniform(0.6, 1.4) + 128 + rng.uniform(-40, 40)
    return np.clip(out, 0, 255).astype(np.uint8)


def detector_sample(photo, rng: random.Random):
    """A randomly turned, scaled and shifted 320 px view of one photo, with its dice in pixels."""
    rgb, dice = photo
    height, width = rgb.shape[:2]
    scale = geometry.INPUT / max(height, width) * rng.uniform(0.6, 1.4)
    angle = rng.uniform(0, 360)
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, scale)
    matrix[:, 2] += np.array([geometry.INPUT / 2 - width / 2, geometry.INPUT / 2 - height / 2])
    matrix[:, 2] += np.array([rng.uniform(-40, 40), rng.uniform(-40, 40)])
    view = cv2.warpAffine(rgb, matrix, (geometry.INPUT, geometry.INPUT), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_REFLECT if rng.random() < 0.5 else cv2.BORDER_CONSTANT)
    boxes = []
    for _face, cx, cy, w, h in dice:
        centre = matrix @ np.array([cx * width, cy * height, 1.0])
        side = (w * width + h * height) / 2 * scale  # a turned square die stays about as big
        boxes.append((centre[0], centre[1], side, side))
    return colour_jitter(view, rng), boxes


def detector_target(boxes):
    cells = geometry.INPUT // geometry.STRIDE
    target = np.zeros((5, cells, cells), np.float32)
    ys, xs = np.mgrid[0:cells, 0:cells]
    for cx, cy, w, h in boxes:
        gx, gy = cx / geometry.STRIDE, cy / geometry.STRIDE
        ix, iy = int(gx), int(gy)
        if not (0 <= ix < cells and 0 <= iy < cells):
            continue
        sigma = max(w / geometry.STRIDE / 4, 0.5)
        blob = np.exp(-((xs - ix) ** 2 + (ys - iy) ** 2) / (2 * sigma ** 2))
        target[0] = np.maximum(target[0], blob)
        target[1:, iy, ix] = (gx - ix, gy - iy, np.log(w / geometry.STRIDE), np.log(h / geometry.STRIDE))
    return target


def focal_loss(pred, target):
    pred = pred.clamp(1e-4, 1 - 1e-4)
    centres = target.eq(1).float()
    pos = -(torch.log(pred) * (1 - pred) ** 2 * centres).sum()
    neg = -(torch.log(1 - pred) * pred ** 2 * (1 - target) ** 4 * (1 - centres)).sum()
    return (pos + neg) / centres.sum().clamp(min=1)


def to_tensor(images):
    return torch.from_numpy(np.stack(images).astype(np.float32) / 255.0).permute(0, 3, 1, 2).contiguous()


def train_detector(photos, epochs, rng, save):
    model = Detector()
    optimiser = torch.optim.AdamW(model.parameters(), 2e-3, weight_decay=1e-4)
    steps = epochs * (len(photos) // 8)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 4e-3, total_steps=steps)
    for epoch in range(epochs):
        order = list(range(len(photos)))
        rng.shuffle(order)
        total = 0.0
        for start in range(0, len(order) - 7, 8):
            views, targets = [], []
            for index in order[start:start + 8]:
                view, boxes = detector_sample(photos[index], rng)
                views.append(view)
                targets.append(detector_target(boxes))
            out = model(to_tensor(views))
            target = torch.from_numpy(np.stack(targets))
            centres = target[:, :1].eq(1).float()
            box_loss = (F.l1_loss(out[:, 1:], target[:, 1:], reduction="none") * centres).sum() / centres.sum()
            loss = focal_loss(out[:, :1], target[:, :1]) + box_loss
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
        print(f"detector epoch {epoch + 1}/{epochs} loss {total / (len(order) // 8):.3f}", flush=True)
        save(model.eval())
        model.train()
    return model.eval()


def face_sample(photo, die, rng: random.Random):
    """One die cut out as the reader cuts it, with the box a little off, turned and recoloured."""
    rgb, _dice = photo
    height, width = rgb.shape[:2]
    face, cx, cy, w, h = die
    side = (w * width + h * height) / 2 * rng.uniform(0.85, 1.2)
    centre = (cx * width + rng.uniform(-0.12, 0.12) * side, cy * height + rng.uniform(-0.12, 0.12) * side)
    crop = geometry.cut_square(rgb, centre, side, rng.uniform(0, 360), size=CROP)
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    crop = colour_jitter(crop, rng)
    if rng.random() < 0.25:
        crop = 255 - crop
    return crop, face - 1


def train_faces(photos, epochs, rng, save, batch=16):
    dice = [(photo, die) for photo in photos for die in photo[1]]
    model = FaceNet()
    optimiser = torch.optim.AdamW(model.parameters(), 2e-3, weight_decay=1e-4)
    steps = epochs * (len(dice) // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 4e-3, total_steps=steps)
    for epoch in range(epochs):
        rng.shuffle(dice)
        total, right = 0.0, 0
        for start in range(0, len(dice) - batch + 1, batch):
            crops, faces = zip(*(face_sample(photo, die, rng) for photo, die in dice[start:start + batch]))
            probs = model(to_tensor(crops))
            labels = torch.tensor(faces)
            loss = F.nll_loss(torch.log(probs.clamp(min=1e-6)), labels)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item()
            right += int((probs.argmax(1) == labels).sum())
        batches = len(dice) // batch
        print(f"faces epoch {epoch + 1}/{epochs} loss {total / batches:.3f} right {right / (batches * batch):.3f}",
              flush=True)
        save(model.eval())
        model.train()
    return model.eval()


def export(model, shape, path: Path):
    torch.onnx.export(model, torch.zeros(shape), str(path), input_names=["image"], output_names=["out"],
                      dynamic_axes={"image": {0: "n"}, "out": {0: "n"}}, opset_version=17, dynamo=False)
    print(f"wrote {path} ({path.stat().st_size // 1024} KB)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--epochs", type=int, default=24)
    parser.add_argument("--face-epochs", type=int, default=32)
    parser.add_argument("--face-batch", type=int, default=16)
    parser.add_argument("--crop", type=int, default=geometry.CROP, help="pixels a die is cut to for the face reader")
    parser.add_argument("--only", choices=("detector", "faces"))
    parser.add_argument("--out", type=Path, default=OUT, help="folder the .onnx files are written to")
    args = parser.parse_args(argv)
    global CROP
    CROP = args.crop
    torch.set_num_threads(1)
    cv2.setNumThreads(1)
    torch.manual_seed(39)
    rng = random.Random(39)
    photos = load_split(args.data / "train")
    # each epoch's model is written out, so a run cut short still leaves the latest one
    if args.only != "detector":
        train_faces(photos, args.face_epochs, rng,
                    lambda model: export(model, (1, 3, CROP, CROP), args.out / "faces.onnx"),
                    args.face_batch)
    if args.only != "faces":
        train_detector(photos, args.epochs, rng,
                       lambda model: export(model, (1, 3, geometry.INPUT, geometry.INPUT), args.out / "detector.onnx"))


if __name__ == "__main__":
    main()
