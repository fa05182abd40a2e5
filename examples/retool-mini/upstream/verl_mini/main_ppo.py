"""A stand-in for python -m verl.trainer.main_ppo with the ReTool recipe:
GRPO-shaped steps over a data set, rollouts through the sandbox tool, the
recipe's reward, checkpoints as verl writes them. It runs in the foreground
and prints verl's step counter ("step:N - ...")."""

import argparse
import importlib.util
import json
import os

from verl_mini import checkpoint, tracking
from verl_mini.agent_loop import AgentLoopWorker, SandboxTool


def load_function(path, name):
    spec = importlib.util.spec_from_file_location("custom_module", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model-path", required=True)
    p.add_argument("--train-file", required=True)
    p.add_argument("--tool-config", required=True)
    p.add_argument("--reward-path", required=True)
    p.add_argument("--save-dir", required=True)
    p.add_argument("--batch-size", type=int, default=2)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--save-freq", type=int, default=2)
    p.add_argument("--total-training-steps", type=int, default=None)
    p.add_argument("--device", default="cuda")
    a = p.parse_args()
    if a.device != "cpu":
        raise SystemExit(f"device {a.device} is not available here: pass --device cpu")
    with open(os.path.join(a.model_path, "model.json")) as f:
        model = json.load(f)
    with open(a.train_file) as f:
        rows = [json.loads(line) for line in f]
    worker = AgentLoopWorker(SandboxTool(a.tool_config), load_function(a.reward_path, "compute_score"))
    batches = [rows[i:i + a.batch_size] for i in range(0, len(rows), a.batch_size)]
    total = len(batches) * a.epochs
    if a.total_training_steps is not None:
        total = a.total_training_steps
    start = checkpoint.latest_step(a.save_dir)
    if start:
        model = checkpoint.load(a.save_dir, start)
    os.makedirs(a.save_dir, exist_ok=True)
    for step in range(start + 1, total + 1):
        scores, lengths, turns = [], [], []
        with open(os.path.join(a.save_dir, "rollouts.jsonl"), "a") as log:
            for row in batches[(step - 1) % len(batches)]:
                output, result = worker.generate(row)
                scores.append(output.reward_score)
                lengths.append(len(output.response))
                turns.append(output.num_turns)
                log.write(json.dumps({"step": step, "id": row["id"], "turns": output.turns, **result}, sort_keys=True) + "\n")
        mean = sum(scores) / len(scores)
        model.setdefault("rl_scores", []).append(mean)
        tracking.log({
            "training/global_step": step,
            "critic/score/mean": mean,
            "critic/score/max": max(scores),
            "critic/score/min": min(scores),
            "response_length/mean": sum(lengths) / len(lengths),
            "num_turns/mean": sum(turns) / len(turns),
            "actor/entropy": round(1.2 * 0.85 ** step, 4),
            "actor/pg_loss": round(-0.1 * mean, 4),
        }, step)
        if step % a.save_freq == 0 or step == total:
            checkpoint.save(a.save_dir, step, model)


if __name__ == "__main__":
    main()
