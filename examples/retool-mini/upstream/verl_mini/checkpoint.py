"""Checkpoints laid out as verl's FSDP checkpoint manager lays them out."""

import json
import os

LATEST = "latest_checkpointed_iteration.txt"


def latest_step(save_dir):
    """The last saved step, or 0 when nothing was saved (resume_mode=auto)."""
    try:
        with open(os.path.join(save_dir, LATEST)) as f:
            return int(f.read().strip())
    except FileNotFoundError:
        return 0


def load(save_dir, step):
    with open(os.path.join(save_dir, f"global_step_{step}", "model.json")) as f:
        return json.load(f)


def save(save_dir, step, model):
    step_dir = os.path.join(save_dir, f"global_step_{step}")
    os.makedirs(step_dir, exist_ok=True)
    with open(os.path.join(step_dir, "model.json"), "w") as f:
        json.dump(model, f, indent=2, sort_keys=True)
        f.write("\n")
    tmp = os.path.join(save_dir, LATEST + ".tmp")
    with open(tmp, "w") as f:
        f.write(f"{step}\n")
    os.replace(tmp, os.path.join(save_dir, LATEST))
