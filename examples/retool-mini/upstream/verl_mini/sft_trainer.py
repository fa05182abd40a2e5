"""A stand-in for verl.trainer.fsdp_sft_trainer: one "step" per batch.

The model is a table of counts over the tokens of the training data; each
step adds one batch. Checkpoints go to global_step_N every save_freq steps
and at the last step, and a rerun resumes from the latest one.
"""

import argparse
import hashlib
import json

from verl_mini import checkpoint, tracking


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--train-file", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--save-dir", required=True)
    p.add_argument("--batch-size", type=int, default=2)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--save-freq", type=int, default=2)
    p.add_argument("--device", default="cuda")
    a = p.parse_args()
    if a.device != "cpu":
        raise SystemExit(f"device {a.device} is not available here: pass --device cpu (as trainer.device=npu on Ascend)")
    with open(a.model) as f:
        model = json.load(f)
    with open(a.train_file) as f:
        rows = [json.loads(line) for line in f]
    batches = [rows[i:i + a.batch_size] for i in range(0, len(rows) - a.batch_size + 1, a.batch_size)]
    total = len(batches) * a.epochs
    start = checkpoint.latest_step(a.save_dir)
    if start:
        model = checkpoint.load(a.save_dir, start)
        print(f"resuming from global_step_{start}")
    for step in range(start + 1, total + 1):
        tokens = 0
        for row in batches[(step - 1) % len(batches)]:
            for m in row["messages"]:
                for tok in (m.get("content") or "").split():
                    model["counts"][tok] = model["counts"].get(tok, 0) + 1
                    tokens += 1
        model["step"] = step
        lr = 1e-5 * min(1.0, step / 2) * (1 - 0.5 * (step - 1) / total)
        tracking.log({
            "train/loss": round(2.0 / (1 + step) + 0.05 * (step % 2), 4),
            "train/lr(1e-3)": lr * 1e3,
            "train/grad_norm": round(3.0 / step ** 0.5, 4),
            "train/tokens": tokens,
        }, step)
        if step % a.save_freq == 0 or step == total:
            checkpoint.save(a.save_dir, step, model)
    digest = hashlib.sha256(json.dumps(model, sort_keys=True).encode()).hexdigest()[:12]
    print(f"done: {total} steps, model {digest}")


if __name__ == "__main__":
    main()
