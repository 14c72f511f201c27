"""Train the dice reader's two small networks from the photos in shared/datasets/dice-photos/train/ and
export them to ONNX beside the reader (companion/dice_reader/*.onnx).

  OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python scripts/train_dice_reader.py [--data DIR] [--epochs N]

The committed networks come from two runs with the defaults, `--only detector` (100 epochs on 160
photos, every fifth held out; about 40 minutes of a core shared with other work) and `--only faces` (90
epochs on all 200 photos; about 20 to 55 minutes, as the core is shared); each epoch's model is written
as it goes. The reader's thresholds were chosen on the held-out photos with a face reader trained like
the committed one but without them: `--only faces --hold-out 5`, which also reports each epoch how it
reads their dice.

Needs the `train` extra (torch, opencv-python-headless, onnx); the app itself runs the exported files
with onnxruntime only. The detector finds dice on the photo scaled to 384 px (a heat map of die centres
plus each die's size); the face reader looks at one die cut from the photo at a finer scale and reads its
face, or says it is no die.
"""
from __future__ import annotations

import argparse
import random
import sys
from functools import partial
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
NO_DIE = 6  # the face reader's last class: what it sees is not a die
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
    """Stride 8: one cell per 8 px of the input; outputs centre score, offset (2), size (2)."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(conv(3, 16, 2), conv(16, 24, 2), conv(24, 24), conv(24, 48, 2), conv(48, 48),
                                  conv(48, 64, dilation=2), conv(64, 64, dilation=2), conv(64, 64, dilation=4))
        self.head = nn.Conv2d(64, 5, 1)

    def forward(self, x):
        out = self.head(self.body(x))
        return torch.cat([torch.sigmoid(out[:, :1]), out[:, 1:]], 1)


class FaceNet(nn.Module):
    """Chances of faces 1..6 and, last, of no die at all (a tray hole, a shadow, a bit of the tray's edge)."""

    def __init__(self, width: int = 16):
        super().__init__()
        a, b, c, d = width, width * 2, width * 4, width * 8
        self.body = nn.Sequential(conv(3, a), nn.MaxPool2d(2), conv(a, b), conv(b, b), nn.MaxPool2d(2),
                                  conv(b, c), conv(c, c), nn.MaxPool2d(2), conv(c, d), conv(d, d))
        self.fc = nn.Linear(d, 7)

    def forward(self, x):
        return torch.softmax(self.fc(self.body(x).mean((2, 3))), 1)


def colour_jitter(img: np.ndarray, rng: random.Random, grey: float = 0.3) -> np.ndarray:
    """Other dice colours, light and white balance: channels swapped, grey (this often), contrast,
    brightness, gamma."""
    out = img.astype(np.float32)
    out = out[:, :, rng.sample(range(3), 3)]
    if rng.random() < grey:
        out = out.mean(2, keepdims=True).repeat(3, 2)
    out = out * np.array([rng.uniform(0.85, 1.15) for _ in range(3)], np.float32)
    out = (out - 128) * rng.uniform(0.6, 1.4) + 128 + rng.uniform(-40, 40)
    out = 255 * (np.clip(out, 0, 255) / 255) ** rng.uniform(0.7, 1.4)
    return np.clip(out, 0, 255).astype(np.uint8)


def degrade(crop: np.ndarray, rng: random.Random) -> np.ndarray:
    """What a phone does to a die: blur, fewer pixels (a die far away), sensor noise."""
    if rng.random() < 0.2:
        crop = cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.2:
        small = rng.randint(crop.shape[0] // 3, crop.shape[0] - 4)
        crop = cv2.resize(cv2.resize(crop, (small, small), interpolation=cv2.INTER_AREA), crop.shape[:2][::-1])
    if rng.random() < 0.3:
        noise = np.random.default_rng(rng.randrange(2 ** 32)).normal(0, rng.uniform(2, 8), crop.shape)
        crop = np.clip(crop + noise, 0, 255).astype(np.uint8)
    return crop


def detector_sample(photo, rng: random.Random):
    """A randomly turned, scaled and shifted view of one photo, as big as the detector's input, with its
    dice in pixels."""
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
    """One die cut out as the reader cuts it, with the box a little off, turned, recoloured and blurred."""
    rgb, _dice = photo
    height, width = rgb.shape[:2]
    face, cx, cy, w, h = die
    side = (w * width + h * height) / 2 * rng.uniform(0.8, 1.25)
    centre = (cx * width + rng.uniform(-0.15, 0.15) * side, cy * height + rng.uniform(-0.15, 0.15) * side)
    return recoloured(geometry.cut_square(rgb, centre, side, rng.uniform(0, 360), size=CROP), rng), face - 1


def no_die_sample(photo, rng: random.Random):
    """A die-sized cut centred away from every die, mostly where the photo has edges (tray holes, the
    tray's rim, shadows, a die's side): what the detector mistakes for a die."""
    rgb, dice = photo
    height, width = rgb.shape[:2]
    centres = [(cx * width, cy * height, (w * width + h * height) / 2) for _f, cx, cy, w, h in dice]
    cuts = []
    while len(cuts) < 6:
        side = rng.choice(centres)[2] * rng.uniform(0.8, 1.25)
        x, y = rng.uniform(side / 2, width - side / 2), rng.uniform(side / 2, height - side / 2)
        if all(np.hypot(x - cx, y - cy) > 0.9 * max(side, die_side) for cx, cy, die_side in centres):
            cuts.append(geometry.cut_square(rgb, (x, y), side, rng.uniform(0, 360), size=CROP))
    crop = max(cuts, key=lambda cut: cut.std()) if rng.random() < 0.7 else cuts[0]
    return recoloured(crop, rng), NO_DIE


def recoloured(crop: np.ndarray, rng: random.Random) -> np.ndarray:
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    crop = degrade(colour_jitter(crop, rng, grey=0.1), rng)  # seldom grey: red pips on a dark die fade
    return 255 - crop if rng.random() < 0.25 else crop


def held_out_faces(model, photos) -> str:
    """Face reader on the held-out photos' labelled dice, cut straight at their boxes as the reader does
    (four quarter turns averaged), and on as many no-die cuts."""
    rng = random.Random(7)
    cuts, labels = [], []
    for photo in photos:
        rgb = photo[0]
        height, width = rgb.shape[:2]
        for face, cx, cy, w, h in photo[1]:
            cuts.append(geometry.cut_square(rgb, (cx * width, cy * height), (w * width + h * height) / 2, size=CROP))
            labels.append(face - 1)
            no_die, _ = no_die_sample(photo, rng)
            cuts.append(no_die)
            labels.append(NO_DIE)
    cuts = np.stack(cuts)
    with torch.no_grad():
        probs = sum(model(to_tensor(np.rot90(cuts, quarter, axes=(1, 2)))) for quarter in range(4)) / 4
    read, labels = probs.argmax(1).numpy(), np.array(labels)
    dice = labels != NO_DIE
    return (f"held out: dice read right {np.mean(read[dice] == labels[dice]):.3f}, "
            f"dice taken for no die {np.mean(read[dice] == NO_DIE):.3f}, "
            f"no-die cuts taken for a die {np.mean(read[~dice] != NO_DIE):.3f}")


def train_faces(photos, epochs, rng, save, batch=16, held_out=(), width=16):
    """Each epoch: every die once, a quarter as many no-die cuts, and the sixth of the dice it read worst
    last time once more (dark dice with red pips, tilted dice)."""
    dice = [(photo, die) for photo in photos for die in photo[1]]
    no_dice_per_epoch, hard_per_epoch = len(dice) // 4, len(dice) // 6
    last_loss = np.zeros(len(dice))
    model = FaceNet(width)
    optimiser = torch.optim.AdamW(model.parameters(), 2e-3, weight_decay=1e-4)
    steps = epochs * ((len(dice) + no_dice_per_epoch + hard_per_epoch) // batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 4e-3, total_steps=steps)
    for epoch in range(epochs):
        hard = np.argsort(-last_loss)[:hard_per_epoch] if epoch else rng.sample(range(len(dice)), hard_per_epoch)
        jobs = [(index, partial(face_sample, *dice[index])) for index in [*range(len(dice)), *hard]]
        jobs += [(None, partial(no_die_sample, rng.choice(photos))) for _ in range(no_dice_per_epoch)]
        rng.shuffle(jobs)
        total, right = 0.0, 0
        for start in range(0, len(jobs) - batch + 1, batch):
            crops, faces = zip(*(job(rng) for _index, job in jobs[start:start + batch]))
            probs = model(to_tensor(crops))
            labels = torch.tensor(faces)
            losses = F.nll_loss(torch.log(probs.clamp(min=1e-6)), labels, reduction="none")
            for (index, _job), sample_loss in zip(jobs[start:start + batch], losses.tolist()):
                if index is not None:
                    last_loss[index] = sample_loss
            optimiser.zero_grad()
            losses.mean().backward()
            optimiser.step()
            schedule.step()
            total += losses.mean().item()
            right += int((probs.argmax(1) == labels).sum())
        batches = len(jobs) // batch
        model.eval()
        report = held_out_faces(model, held_out) if held_out else ""
        print(f"faces epoch {epoch + 1}/{epochs} loss {total / batches:.3f} right {right / (batches * batch):.3f} "
              f"{report}", flush=True)
        save(model)
        model.train()
    return model.eval()


def export(model, shape, path: Path):
    torch.onnx.export(model, torch.zeros(shape), str(path), input_names=["image"], output_names=["out"],
                      dynamic_axes={"image": {0: "n"}, "out": {0: "n"}}, opset_version=17, dynamo=False)
    print(f"wrote {path} ({path.stat().st_size // 1024} KB)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--face-epochs", type=int, default=90)
    parser.add_argument("--face-batch", type=int, default=16)
    parser.add_argument("--face-width", type=int, default=16, help="channels of the face reader's first layer")
    parser.add_argument("--crop", type=int, default=geometry.CROP, help="pixels a die is cut to for the face reader")
    parser.add_argument("--only", choices=("detector", "faces"))
    parser.add_argument("--out", type=Path, default=OUT, help="folder the .onnx files are written to")
    parser.add_argument("--hold-out", type=int, metavar="K",
                        help="keep every K-th photo of train/ out of training (0: train on all); by default the "
                             "detector keeps every 5th out, the photos the reader's thresholds were chosen on, and "
                             "the face reader, trained again once they were chosen, learns from all")
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
        training, held_out = split(photos, 0 if args.hold_out is None else args.hold_out)
        train_faces(training, args.face_epochs, rng,
                    lambda model: export(model, (1, 3, CROP, CROP), args.out / "faces.onnx"),
                    args.face_batch, held_out, args.face_width)
    if args.only != "faces":
        training, _held_out = split(photos, 5 if args.hold_out is None else args.hold_out)
        train_detector(training, args.epochs, rng,
                       lambda model: export(model, (1, 3, geometry.INPUT, geometry.INPUT), args.out / "detector.onnx"))


def split(photos, every: int):
    """(photos to train on, every `every`-th photo held out to measure and choose thresholds on)."""
    kept_out = {index for index in range(len(photos)) if every and index % every == every - 1}
    print(f"training on {len(photos) - len(kept_out)} photos, {len(kept_out)} held out", flush=True)
    return ([photo for index, photo in enumerate(photos) if index not in kept_out],
            [photo for index, photo in enumerate(photos) if index in kept_out])


if __name__ == "__main__":
    main()
