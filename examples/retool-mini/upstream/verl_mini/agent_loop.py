"""Multi-turn rollouts with a code-interpreter tool, shaped like verl's
verl/experimental/agent_loop/agent_loop.py and its SandboxFusion tool."""

import json
from dataclasses import dataclass, field

from sandbox_client import run_code


class SandboxTool:
    """Runs the code of a tool call in a SandboxFusion-compatible sandbox."""

    def __init__(self, config_path):
        with open(config_path) as f:
            cfg = json.load(f)["tools"][0]["config"]
        self.url = cfg["sandbox_fusion_url"]
        self.timeout = cfg.get("default_timeout", 10)

    def execute(self, code):
        resp = run_code(self.url, code, timeout=self.timeout)
        run = resp.get("run_result") or {}
        if run.get("status") == "Finished":
            return run.get("stdout", "") + run.get("stderr", "")
        return "no stdout here"


@dataclass
class AgentLoopOutput:
    response: str
    num_turns: int
    turns: list = field(default_factory=list)
    reward_score: float = 0.0


def run_agent(row, tool):
    """The mini policy: call the tool with the row's code, then answer with
    what the tool printed, boxed."""
    turns = [{"role": "user", "content": row["Problem"]}]
    turns.append({"role": "assistant", "tool_call": row["code"]})
    out = tool.execute(row["code"]).strip()
    turns.append({"role": "tool", "content": out})
    answer = "The answer is \\boxed{" + out + "}"
    turns.append({"role": "assistant", "content": answer})
    return AgentLoopOutput(response=answer, num_turns=len(turns), turns=turns)


class AgentLoopWorker:
    def __init__(self, tool, compute_score):
        self.tool = tool
        self.compute_score = compute_score

    def generate(self, row):
        output = run_agent(row, self.tool)
        data = {"non_tensor_batch": {"extra_info": [{"index": row["id"]}]}}
        extra_info = data["non_tensor_batch"]["extra_info"]
        result = self.compute_score(
            data_source="Maxwell-Jia/AIME_2024",
            solution_str=output.response,
            ground_truth=row["Answer"],
            extra_info=extra_info[0],
            reward_router_address=None,
            reward_model_tokenizer=None,
        )
        output.reward_score = result["score"]
        return output, result
