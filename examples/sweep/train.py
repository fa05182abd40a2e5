"""A small trainer with the habits of a real one, in the standard library only.

It fits y = w*x + b to data/points.csv by stochastic gradient descent, logs
one line per step in verl's console format (kiln's metrics block reads
train/loss and val/loss from it), writes a checkpoint every few steps into
$KILN_OUT, and resumes from that checkpoint when kiln says the run is a
resume (KILN_RESUME=1): after Ctrl-C, a killed trainer or a killed kiln.

    python3 train.py DATA_DIR --lr 0.05 --steps 40
"""

import argparse
import json
import os
import random
import sys
import time


def load(path):
    rows = []
    with open(path) as f:
        next(f)  # header
        for line in f:
            x, y = line.strip().split(",")
            rows.append((float(x), float(y)))
    return rows


def mse(w, b, rows):
    return sum((w * x + b - y) ** 2 for x, y in rows) / len(rows)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("data")
    p.add_argument("--lr", type=float, required=True)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--ckpt-every", type=int, default=5)
    p.add_argument("--step-delay", type=float, default=0.0, help="seconds per step, to watch it or stop it")
    p.add_argument("--preempt-at", type=int, default=0, help="exit at this step on the first attempt, as a preempted job does")
    a = p.parse_args()

    out = os.environ["KILN_OUT"]
    ckpt = os.path.join(out, "ckpt.json")
    train = load(os.path.join(a.data, "train.csv"))
    val = load(os.path.join(a.data, "val.csv"))

    w, b, step = 0.0, 0.0, 0
    if os.environ.get("KILN_RESUME") == "1" and os.path.exists(ckpt):
        with open(ckpt) as f:
            c = json.load(f)
        w, b, step = c["w"], c["b"], c["step"]
        print(f"resumed from step {step} (attempt {os.environ.get('KILN_ATTEMPT')})", flush=True)
    else:
        print(f"starting: lr={a.lr} steps={a.steps}", flush=True)

    rng = random.Random(step)  # the batches after a resume are the same on every run
    while step < a.steps:
        step += 1
        batch = [train[rng.randrange(len(train))] for _ in range(a.batch)]
        gw = sum(2 * (w * x + b - y) * x for x, y in batch) / len(batch)
        gb = sum(2 * (w * x + b - y) for x, y in batch) / len(batch)
        w, b = w - a.lr * gw, b - a.lr * gb
        print(f"step:{step} - train/loss:{mse(w, b, batch):.6f} - val/loss:{mse(w, b, val):.6f}", flush=True)
        if step % a.ckpt_every == 0 or step == a.steps:
            tmp = ckpt + ".tmp"
            with open(tmp, "w") as f:
                json.dump({"w": w, "b": b, "step": step}, f)
            os.replace(tmp, ckpt)  # a checkpoint is whole or absent
        if a.preempt_at and step == a.preempt_at and os.environ.get("KILN_ATTEMPT") == "1":
            print(f"preempted at step {step}", flush=True)
            sys.exit(75)
        time.sleep(a.step_delay)

    with open(os.path.join(out, "model.json"), "w") as f:
        json.dump({"w": w, "b": b, "lr": a.lr, "val_loss": mse(w, b, val)}, f, indent=1)


if __name__ == "__main__":
    main()
