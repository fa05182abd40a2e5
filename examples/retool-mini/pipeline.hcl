# retool-mini: the shape of ../../retool.hcl (verl's ReTool recipe on an
# Ascend host) at CPU scale, offline, in about a minute.
#
#   source_repos ─┬─ git_repo.plugin ─┐
#                 └──────────────────┴─ git_repo.verl (2 patches) ─┐
#   wheel ── python_env.mini ─────────────────────────────────────┤
#   service.hub ── fetch.aime_2024 (revision main, pinned) ───────┤
#   toolchain.cann ───────────────────────────────────────────────┤
#   sft_preprocess ── sft_train ── sft_merge ─────────────────────┼─ rl_train
#   service.sandbox ── tool_config ───────────────────────────────┘
#
# Try: kiln plan, kiln apply, kiln explain exec.rl_train, and kiln destroy to
# stop the two services. See README.md.

variable "hub_port" {
  type        = number
  default     = 18431
  description = "Port of the local Hugging Face hub stand-in that fetch.aime_2024 downloads from (127.0.0.1 only)."
}

variable "sandbox_port" {
  type        = number
  default     = 18432
  description = "Port of the code-execution sandbox (127.0.0.1 only)."
}

variable "rl_total_steps" {
  type        = number
  default     = 4
  description = "Steps of the RL run (--total-training-steps, verl's trainer.total_training_steps); also its progress total."
}

variable "python" {
  type        = string
  default     = "python3"
  description = "The Python 3.8+ interpreter the environment is made from."
}

# As in retool.hcl: the CANN release the stand-in toolkit must record in
# cann/version.info, from the releases the real pipeline accepts. The plan
# says which version it found and which this wants; the version is part of
# toolchain.cann's key, so another release rebuilds the training steps.
variable "cann_version" {
  type        = string
  default     = "8.3.RC1"
  description = "CANN release of the stand-in toolkit: 8.3.RC1 or 8.3.RC2."
  validation {
    condition     = contains(["8.3.RC1", "8.3.RC2"], var.cann_version)
    error_message = "cann_version must be 8.3.RC1 or 8.3.RC2, as in retool.hcl."
  }
}

locals {
  hub_url     = "http://127.0.0.1:${var.hub_port}"
  sandbox_url = "http://127.0.0.1:${var.sandbox_port}"
}

# ---------------------------------------------------------------- sources

# Stands in for GitHub: two git repositories made from upstream/ and plugin/
# with a fixed author, committer and date, so their commit SHAs are stable and
# pinned below.
exec "source_repos" {
  inputs  = ["make_repo.sh", "upstream/**", "plugin/**"]
  command = "sh make_repo.sh"
}

# Stands in for MindSpeed-RL: it carries patches for verl-mini.
git_repo "plugin" {
  url    = "${exec.source_repos.out}/plugin-mini"
  commit = "1f663a2b40fd15e6555187cc2af5a80cd44c1f30"
}

# Stands in for verl at d62da49. Both of the plugin's patches are applied at
# checkout, read from the plugin checkout, as visible content-hashed steps,
# instead of by a plugin editing an installed tree at run time: the agent
# loop's extra_info gets num_turns, and compute_score gets **kwargs. Without
# either, rl_train fails. retool.patch has the shape of MindSpeed-RL's: its
# last context line has no newline, git apply calls it corrupt, and git_repo
# applies it with GNU patch (kiln logs git_repo.verl says so).
git_repo "verl" {
  url    = "${exec.source_repos.out}/verl-mini"
  commit = "e5db6a469bd6fcf5227f2e151f201dead8f48342"
  patches = [
    "${git_repo.plugin.out}/patch/verl/agent_loop.patch",
    "${git_repo.plugin.out}/patch/verl/retool.patch",
  ]
}

# ---------------------------------------------------------------- environment

# A local package, built into a wheel with the standard library only.
exec "wheel" {
  inputs  = ["build_wheel.py", "client/**"]
  command = "${var.python} build_wheel.py client $KILN_OUT"
}

# One environment, offline: no index, only the local wheel. constraints
# proves the pin after the install.
python_env "mini" {
  python   = var.python
  no_index = true

  install {
    wheels = ["${exec.wheel.out}/*.whl"]
  }

  constraints = ["sandbox-client==0.1.0"]
}

# Stands in for CANN: its set_env.sh puts the toolkit's Python packages on
# PYTHONPATH, which the training steps extend with env_prepend instead of
# replacing.
toolchain "cann" {
  setup   = ["cann/set_env.sh"]
  version = var.cann_version

  probe {
    file = "cann/version.info"
  }
}

# ---------------------------------------------------------------- data

# Stands in for the Hugging Face hub: its revision API and downloads, for
# the repositories under hub/, bound to 127.0.0.1.
service "hub" {
  inputs  = ["hub.py", "hub/**"]
  command = ["python3", "${path.root}/hub.py", "--root", "${path.root}/hub", "--port", "${var.hub_port}"]
  url     = local.hub_url

  ready {
    url      = "${local.hub_url}/api/datasets/Maxwell-Jia/AIME_2024/revision/main"
    contains = "sha"
  }
}

# The RL data set at the hub's branch main: the first apply (or kiln lock)
# resolves main to its commit and pins it in kiln.lock.hcl, and every file is
# downloaded at that commit and checked against the hub's blob ids. It lands
# in OUT/Maxwell-Jia/AIME_2024, whose last two path elements the recipe
# turns into data_source.
fetch "aime_2024" {
  depends_on = [service.hub]

  huggingface {
    repo     = "Maxwell-Jia/AIME_2024"
    kind     = "dataset"
    revision = "main"
    endpoint = local.hub_url
  }
}

# ---------------------------------------------------------------- sandbox

# Stands in for SandboxFusion: the same /v1/ping and /run_code API.
service "sandbox" {
  inputs  = ["sandbox.py"]
  command = ["python3", "${path.root}/sandbox.py", "--port", "${var.sandbox_port}"]
  url     = local.sandbox_url

  ready {
    url      = "${local.sandbox_url}/v1/ping"
    contains = "pong"
  }

  check {
    url     = "${local.sandbox_url}/run_code"
    method  = "POST"
    headers = { "Content-Type" = "application/json" }
    body    = jsonencode({ code = "print(\"Hello, world!\")", language = "python" })
    json = {
      "status"                 = "Success"
      "run_result.status"      = "Finished"
      "run_result.stdout"      = "Hello, world!\n"
      "run_result.return_code" = "0"
    }
  }
}

# The recipe's tool configuration names http://localhost:8080/run_code; this
# copy names the sandbox this pipeline started.
exec "tool_config" {
  command = <<-EOT
    ${var.python} -c '
    import json, sys
    cfg = json.load(open(sys.argv[1]))
    cfg["tools"][0]["config"]["sandbox_fusion_url"] = sys.argv[2]
    json.dump(cfg, open(sys.argv[3], "w"), indent=2, sort_keys=True)
    ' ${git_repo.verl.out}/recipe/retool/tool_config.json ${local.sandbox_url}/run_code $KILN_OUT/tool_config.json
  EOT
}

# ---------------------------------------------------------------- SFT

# The preprocess reads recipe/retool/... and JoeYing/ReTool-SFT relative to
# its working folder and writes ~/ReTool-SFT/data: it runs in a folder of
# links inside its own output, with HOME = its own output.
exec "sft_preprocess" {
  inputs = ["data/sft/train.jsonl"]
  env = {
    PYTHONPATH              = git_repo.verl.out
    PYTHONDONTWRITEBYTECODE = "1"
    HOME                    = self.out
  }
  command = <<-EOT
    set -eu
    work="$KILN_OUT/work"
    mkdir -p "$work/recipe" "$work/JoeYing/ReTool-SFT"
    ln -s ${git_repo.verl.out}/recipe/retool "$work/recipe/retool"
    ln -s ${path.root}/data/sft/train.jsonl "$work/JoeYing/ReTool-SFT/train.jsonl"
    cd "$work"
    ${python_env.mini.out}/bin/python recipe/retool/sft_preprocess.py
    rm -rf "$work"
  EOT
}

# Resumable: an interrupted run continues from its latest checkpoint in the
# same output folder. It prints verl's console metrics, which kiln report
# draws as curves. With CANN's environment, the verl checkout goes before
# the toolchain's PYTHONPATH (env_prepend), which keeps CANN's packages: on
# Ascend torch_npu imports tbe from there at start-up, as the first line
# checks here.
#
# cann/ stands in for /usr/local/Ascend: a sealed run reads in the pipeline
# folder only what it declares, so the nodes that import CANN's packages
# name them (on a real host CANN is outside the pipeline folder, readable
# without this).
exec "sft_train" {
  inputs        = ["cann/python/**", "data/base-model.json"]
  toolchain     = toolchain.cann
  env_prepend   = { PYTHONPATH = git_repo.verl.out }
  env           = { PYTHONDONTWRITEBYTECODE = "1" }
  resources     = { cpu = 1 }
  resumable     = true
  deterministic = false
  progress      = "step:(\\d+) - "
  total         = 4
  command       = <<-EOT
    set -eu
    ${python_env.mini.out}/bin/python -c 'import tbe, verl_mini'
    ${python_env.mini.out}/bin/python -m verl_mini.sft_trainer \
      --train-file ${exec.sft_preprocess.out}/ReTool-SFT/data/train.jsonl \
      --model ${path.root}/data/base-model.json \
      --save-dir $KILN_OUT/checkpoint \
      --batch-size 2 --epochs 2 --save-freq 3 --device cpu
  EOT

  metrics {
    format = "verl"
  }
}

# Merge the last checkpoint, whichever step it is.
exec "sft_merge" {
  inputs      = ["cann/python/**"]
  toolchain   = toolchain.cann
  env_prepend = { PYTHONPATH = git_repo.verl.out }
  env         = { PYTHONDONTWRITEBYTECODE = "1" }
  command     = <<-EOT
    set -eu
    ckpt=${exec.sft_train.out}/checkpoint
    step=$(cat "$ckpt/latest_checkpointed_iteration.txt")
    ${python_env.mini.out}/bin/python -m verl_mini.model_merger merge --backend fsdp \
      --local_dir "$ckpt/global_step_$step" --target_dir $KILN_OUT/huggingface
  EOT
}

# ---------------------------------------------------------------- RL

# In the foreground, from the merged SFT model, with the sandbox running,
# for var.rl_total_steps steps. Its checkpoints are its output: once the last
# step is saved, .kiln/out/exec.rl_train links them.
exec "rl_train" {
  depends_on    = [service.sandbox]
  inputs        = ["cann/python/**"]
  toolchain     = toolchain.cann
  env_prepend   = { PYTHONPATH = git_repo.verl.out }
  env           = { PYTHONDONTWRITEBYTECODE = "1" }
  resources     = { cpu = 1 }
  resumable     = true
  deterministic = false
  progress      = "step:(\\d+) - "
  total         = var.rl_total_steps
  command       = <<-EOT
    set -eu
    ${python_env.mini.out}/bin/python -c 'import tbe, verl_mini'
    ${python_env.mini.out}/bin/python -m verl_mini.main_ppo \
      --model-path ${exec.sft_merge.out}/huggingface \
      --train-file ${fetch.aime_2024.out}/Maxwell-Jia/AIME_2024/aime_2024.jsonl \
      --tool-config ${exec.tool_config.out}/tool_config.json \
      --reward-path ${git_repo.verl.out}/recipe/retool/retool.py \
      --save-dir $KILN_OUT \
      --batch-size 1 --epochs 1 --save-freq 1 --total-training-steps ${var.rl_total_steps} --device cpu
    test -s "$KILN_OUT/latest_checkpointed_iteration.txt"
  EOT

  metrics {
    format = "verl"
  }
}

output "rl_checkpoint" {
  value = exec.rl_train.out
}

output "rollouts" {
  value = "${exec.rl_train.out}/rollouts.jsonl"
}
