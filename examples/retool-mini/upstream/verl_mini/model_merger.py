"""A stand-in for python -m verl.model_merger merge --backend fsdp."""

import argparse
import json
import os


def main():
    p = argparse.ArgumentParser()
    p.add_argument("command", choices=["merge"])
    p.add_argument("--backend", default="fsdp")
    p.add_argument("--local_dir", required=True)
    p.add_argument("--target_dir", default="tmp")
    a = p.parse_args()
    with open(os.path.join(a.local_dir, "model.json")) as f:
        model = json.load(f)
    os.makedirs(a.target_dir, exist_ok=True)
    with open(os.path.join(a.target_dir, "model.json"), "w") as f:
        json.dump(model, f, indent=2, sort_keys=True)
        f.write("\n")
    with open(os.path.join(a.target_dir, "config.json"), "w") as f:
        json.dump({"architectures": ["MiniForCausalLM"], "merged_from": os.path.basename(a.local_dir.rstrip("/"))}, f, indent=2)
        f.write("\n")
    print(f"merged {a.local_dir} into {a.target_dir}")


if __name__ == "__main__":
    main()
