"""Turn JoeYing/ReTool-SFT rows into multi-turn tool-calling messages.

Like verl's recipe/retool/retool_sft_preprocess.py, it must run from the
repository root (it reads recipe/retool/tool_config.json), loads the data set
by its hub name, which resolves to a local folder of that name first, and
writes to ~/ReTool-SFT/data whatever HOME is.
"""

import json
import os

if __name__ == "__main__":
    with open("recipe/retool/tool_config.json") as f:
        tools = [json.load(f)["tools"][0]["tool_schema"]]
    rows = []
    with open(os.path.join("JoeYing/ReTool-SFT", "train.jsonl")) as f:
        for line in f:
            row = json.loads(line)
            rows.append({
                "messages": [
                    {"role": "user", "content": row["question"]},
                    {"role": "assistant", "content": "", "tool_calls": [
                        {"type": "function", "function": {"name": "code_interpreter", "arguments": {"code": row["code"]}}}]},
                    {"role": "tool", "content": row["output"]},
                    {"role": "assistant", "content": "\\boxed{" + row["answer"] + "}"},
                ],
                "tools": tools,
            })
    save_path = os.path.expanduser("~/ReTool-SFT/data/train.jsonl")
    os.makedirs(os.path.dirname(save_path), exist_ok=True)
    with open(save_path, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"wrote {len(rows)} rows to {save_path}")
