"""Reward of the mini ReTool recipe, shaped like verl's recipe/retool/retool.py."""

import re

BOXED = re.compile(r"\\boxed\{([^}]*)\}")


def compute_score(data_source, solution_str, ground_truth, extra_info):
    # use \boxed{...} answer, from the last 300 characters
    found = BOXED.findall(solution_str[-300:])

    pred = found[-1].strip() if found else ""
    score = 1.0 if pred == str(ground_truth).strip() else -1.0
    if score < 0:
        # reward calling the tool: fewer turns, lower score
        num_turns = extra_info["num_turns"]
        score = min(-0.6, score + (num_turns - 2) / 2 * 0.1)
    return {"score": score, "acc": score > 0, "pred": pred}
