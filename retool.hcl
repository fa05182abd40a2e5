# ReTool (arXiv 2504.11536) with verl on one Ascend A2 host with 8 NPUs:
# GRPO with a code-interpreter tool, a rule-based reward and AIME 2024.
#
# This is the run book "ReTool on Ascend NPU" (MindSpeed-RL
# verl_npu/docs/retool_zh.md) as a pipeline that works, with every step the
# run book gets wrong replaced by a visible step whose comment says why.
# Pinned here: every git source by commit, Qwen2.5-7B-Instruct and
# DAPO-Math-17k by Hugging Face commit. ReTool-SFT and AIME_2024 are named by
# branch (var.retool_sft_revision, var.aime_2024_revision: main) until a
# commit is set there: kiln lock or the first apply resolves each branch
# once and pins the commit in kiln.lock.hcl, which holds it until kiln lock
# -update; commit kiln.lock.hcl to keep the pins.
#
# kiln plan shows what would run and what this machine lacks (NPUs, CANN,
# an interpreter, a library, a program a build runs); kiln plan -json says
# the same for scripts, and kiln graph marks the same nodes.
#
# Whose is what. Upstream's: the sources at their commits, MindSpeed-RL's
# verl patches (applied from its checkout, so an upstream fix arrives with a
# pin bump), the recipe's scripts and every Hydra override copied from
# verl's and MindSpeed-RL's run scripts. kiln's own, each marked "kiln:" in
# its comment: the steps that make them run together here (wheels built in
# copies, one environment with consistent pins, the sandbox as a service,
# paths between steps, env_prepend instead of replacing CANN's PYTHONPATH,
# patches/verl-npu-sync-all.patch, verl_npu's vLLM edit made in
# exec.vllm_wheel, the bounded RL run, the kept checkpoints).
#
#   mindspeed_rl ─ verl (3 patches) ─ verl_wheel ─┐
#   vllm ─ vllm_wheel, vllm_ascend ─ wheel ───────┴─ python_env.retool ─┐
#   qwen, retool_sft ─ sft_preprocess ─ sft_train ─ sft_merge ─┐
#   sandbox_fusion ─ ... ─ service.sandbox ─ tool_config ──────┼─ rl_train
#   dapo_math_17k, aime_2024 ──────────────────────────────────┘
#
# The Ascend steps need toolchain.cann (vllm_ascend_wheel, sft_merge), the
# kernel build host.build's compilers, and the training steps host.a2 as
# well (sft_train, rl_train); the rest runs on any Linux host with network,
# git and GNU patch (git_repo.verl's patches), which the plan checks too.

# ---------------------------------------------------------------- host paths

variable "ascend_toolkit_home" {
  type        = string
  default     = "/usr/local/Ascend/ascend-toolkit"
  description = "CANN toolkit folder: set_env.sh and latest/<arch>-linux/ascend_toolkit_install.info (CANN up to 8.3)."
}

variable "nnal_home" {
  type        = string
  default     = "/usr/local/Ascend/nnal"
  description = "NNAL folder; atb/set_env.sh is sourced after the toolkit's."
}

variable "npu_smi" {
  type        = string
  default     = "npu-smi"
  description = "npu-smi, by name on PATH or by path (some hosts have /usr/local/sbin/npu-smi)."
}

variable "driver_info" {
  type        = string
  default     = "/usr/local/Ascend/driver/version.info"
  description = "The Ascend driver's version file."
}

variable "jemalloc" {
  type        = string
  default     = "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2"
  description = "libjemalloc preloaded by the RL run (apt install libjemalloc2; a source build puts it in /usr/local/lib); host.a2 requires it."
}

variable "python" {
  type        = string
  default     = "python3.10"
  description = "Interpreter of the training environment (the run book's Python 3.10)."
}

variable "sandbox_python" {
  type        = string
  default     = "python3.11"
  description = "Interpreter of the SandboxFusion server: its pyproject.toml and poetry.lock require ^3.11."
}

variable "sandbox_runtime_python" {
  type        = string
  default     = "python3.10"
  description = "Interpreter that runs the code the model writes (SandboxFusion's install-python-runtime.sh uses 3.10)."
}

# ---------------------------------------------------------------- settings

# kiln: the CANN release this host has and the pipeline is built against.
# The run book names 8.3.RC1; vllm-ascend at ceadc27 builds its Dockerfile
# on quay.io/ascend/cann:8.3.rc2 and installs 8.3.RC2 in its installation
# guide (which asks for CANN >= 8.3.RC1), so both are accepted. host.a2
# requires exactly this version and toolchain.cann checks it in the
# toolkit's ascend_toolkit_install.info: the plan says which version it
# found and which this variable wants. The version is part of both keys, so
# moving to the other release rebuilds what CANN compiled or ran
# (vllm_ascend_wheel's kernels, the training steps) and keeps the results
# of the first for restore.
variable "cann_version" {
  type        = string
  default     = "8.3.RC1"
  description = "CANN release on this host: 8.3.RC1 (the run book's) or 8.3.RC2 (vllm-ascend's Dockerfile and installation guide at ceadc27)."
  validation {
    condition     = contains(["8.3.RC1", "8.3.RC2"], var.cann_version)
    error_message = "cann_version must be 8.3.RC1 (the run book's) or 8.3.RC2 (vllm-ascend's at ceadc27); set -var cann_version= to the one installed in ascend_toolkit_home, or install one of them."
  }
}

variable "soc_version" {
  type        = string
  default     = "ASCEND910B1"
  description = "SOC_VERSION the vllm-ascend kernels are compiled for (A2 and A3 series)."
}

variable "sandbox_port" {
  type        = number
  default     = 8080
  description = "Port of the SandboxFusion server."
}

# kiln: the training run reaches the sandbox at this address. On one host it
# stays on loopback; a Slurm job runs on a compute node, whose 127.0.0.1 is
# not this host, so there the sandbox binds to an address of this host that
# the compute nodes reach. It runs the code the model writes: give it an
# address on the cluster's private network only.
variable "sandbox_host" {
  type        = string
  default     = "127.0.0.1"
  description = "Address the SandboxFusion server binds to and the training run reaches it at: 127.0.0.1 on one host; with train_executor = \"slurm\", this host's address on the cluster's private network."
  validation {
    condition     = var.train_executor == "local" || !contains(["127.0.0.1", "localhost", "::1"], var.sandbox_host)
    error_message = "with train_executor = \"slurm\" the training job runs on a compute node, which cannot reach a sandbox on this host's loopback: set -var sandbox_host=ADDRESS, an address of this host on the cluster's private network."
  }
}

variable "master_addr" {
  type        = string
  default     = "127.0.0.1"
  description = "torchrun rendezvous address of the SFT run (one node)."
}

variable "master_port" {
  type        = number
  default     = 29500
  description = "torchrun rendezvous port of the SFT run; the upstream script leaves it empty, which torchrun refuses."
}

variable "torch_extra_index" {
  type        = string
  default     = "https://download.pytorch.org/whl/cpu"
  description = "Extra index for the CPU torch wheels torch-npu builds on (needed on x86_64)."
}

# kiln: Ascend's containers (vllm-ascend's Dockerfile starts from
# quay.io/ascend/cann, verl's from its own Ascend images) ship torch and
# torch_npu preinstalled for their interpreter. With use_image_torch the two
# environments below see that interpreter's packages
# (system_site_packages, python -m venv --system-site-packages): pip leaves
# the image's torch and torch_npu alone where they meet the pins, and
# installs the pinned versions into the venv, in front of the image's, where
# they do not; constraints prove what the venv imports. Every package the
# image's interpreter sees enters both keys with its version, so another
# image rebuilds them. Set python to the image's interpreter (vllm-ascend
# needs >=3.9,<3.12). An image's own triton cannot be removed from inside a
# venv (pip does not uninstall outside it): absent = ["triton"] then fails
# and names it.
variable "use_image_torch" {
  type        = bool
  default     = false
  description = "Use the torch and torch_npu the host's or container's interpreter has (a vendor image): python_env.vllm_ascend_build and python_env.retool are made with system_site_packages."
}

variable "train_executor" {
  type        = string
  default     = "local"
  description = "Where sft_train and rl_train run: \"local\", or \"slurm\" for batch jobs (--gres=npu:8) on the cluster this host submits to. The pipeline folder must be on a filesystem the compute nodes share."
}

variable "hf_endpoint" {
  type        = string
  default     = "https://huggingface.co"
  description = "Hugging Face hub or mirror the weights and data sets come from."
}

# kiln: where the git repositories come from. A mirror can also be set up
# once for every pipeline in the user's own git configuration, which
# git_repo uses (git config --global url.https://mirror.example/.insteadOf
# https://github.com/); that keeps the urls, and so the keys, unchanged.
variable "github" {
  type        = string
  default     = "https://github.com"
  description = "Base url of the GitHub repositories (volcengine/verl, vllm-project/*, bytedance/SandboxFusion, Ascend/MindSpeed-RL), or of a mirror with the same paths."
}

# kiln: a branch (or tag) of a Hugging Face repository is resolved to its
# commit by kiln lock or the first apply and pinned in kiln.lock.hcl; it
# holds until kiln lock -update fetch.NAME. A 40-hex commit pins it here.
variable "retool_sft_revision" {
  type        = string
  default     = "main"
  description = "Branch, tag or commit of the JoeYing/ReTool-SFT data set; a branch or tag is pinned in kiln.lock.hcl."
}

variable "aime_2024_revision" {
  type        = string
  default     = "main"
  description = "Branch, tag or commit of the Maxwell-Jia/AIME_2024 data set; a branch or tag is pinned in kiln.lock.hcl."
}

# kiln: the RL run of the MindSpeed-RL script is one epoch over
# DAPO-Math-17k, about 1.7M rows at batch 32: it would not end. This bounds
# it (trainer.total_training_steps); the last step is always checkpointed.
variable "rl_total_steps" {
  type        = number
  default     = 200
  description = "Training steps of the RL run (trainer.total_training_steps); also the progress total."
}

# kiln: verl keeps every checkpoint (trainer.max_ckpt_to_keep: null in
# sft_trainer.yaml, max_actor_ckpt_to_keep: null for the RL run). Each one
# of a 7B model under FSDP is its fp32 shards and Adam state: 7.6B
# parameters at 4 bytes, and 8 for Adam's two moments, about 90 GB;
# 6 SFT and 2 RL checkpoints would hold about 700 GB of the store. Both
# trainers keep this many of their newest (the merge reads only the last
# SFT one, the RL output is its last). The default is 2, not 1: verl
# removes the oldest kept checkpoint before it writes the next, so with 1 a
# run killed while saving finds latest_checkpointed_iteration.txt naming a
# removed step and trains from the start. verl counts the checkpoints one
# run saved: after an interrupted run resumes, the one it resumed from is
# kept as well, so a resumed trainer may hold one more.
variable "checkpoints_to_keep" {
  type        = number
  default     = 2
  description = "Newest checkpoints each trainer keeps (verl's trainer.max_ckpt_to_keep, max_actor_ckpt_to_keep); about 90 GB each; 1 saves 90 GB a trainer, but a run killed while saving starts over."
  validation {
    condition     = var.checkpoints_to_keep >= 1 && floor(var.checkpoints_to_keep) == var.checkpoints_to_keep
    error_message = "checkpoints_to_keep must be a whole number, 1 or more: the merge and the RL output need the last checkpoint."
  }
}

locals {
  python      = "${python_env.retool.out}/bin/python"
  sandbox_url = "http://${var.sandbox_host}:${var.sandbox_port}"
}

# ---------------------------------------------------------------- machine

# The training host. kiln: libjemalloc is required here because the RL run
# preloads it and ld.so only warns when LD_PRELOAD names a missing file.
host "a2" {
  npu_smi     = var.npu_smi
  driver_info = var.driver_info
  cann_info   = "${var.ascend_toolkit_home}/latest/<arch>-linux/ascend_toolkit_install.info"

  require {
    npus  = 8
    cann  = var.cann_version
    files = [var.jemalloc]
  }
}

# kiln: what vllm_ascend_wheel runs besides Python: its setup.py configures
# CMake with the default generator ("ccache and ninja can not be applied at
# ascendc kernels now"), so make, and the host compilers (vllm-ascend's
# Dockerfile installs gcc g++ cmake; its installation guide asks for gcc/g++
# newer than 8). cmake itself comes from python_env.vllm_ascend_build. The
# plan names each one this host lacks, before anything runs.
host "build" {
  npu_smi = var.npu_smi

  require {
    programs = ["gcc", "g++", "make"]
  }
}

# CANN's environment, captured once. The run book sources only the toolkit;
# vllm-ascend's docs and Dockerfile source NNAL/ATB too. Its PYTHONPATH
# (python/site-packages and the TBE operator folders torch_npu compiles
# with) is kept: the steps below add verl with env_prepend, not env.
toolchain "cann" {
  setup = [
    "${var.ascend_toolkit_home}/set_env.sh",
    "${var.nnal_home}/atb/set_env.sh",
  ]
  version = var.cann_version

  probe {
    file = "${var.ascend_toolkit_home}/latest/<arch>-linux/ascend_toolkit_install.info"
    key  = "version"
  }
}

# ---------------------------------------------------------------- sources

# MindSpeed-RL at the commit that added the ReTool run book, its RL script
# and the two verl patches ("support retool on npu").
git_repo "mindspeed_rl" {
  url    = "${var.github}/Ascend/MindSpeed-RL.git"
  commit = "679b564f6c3517632cc7869c687f2e08f068f78a"
}

# verl v0.6.1. Without MindSpeed-RL's retool and agent_loop patches the RL
# step fails on this commit: the agent loop's reward manager calls
# compute_score with reward_router_address= and reward_model_tokenizer=,
# which the recipe's compute_score does not take (TypeError; retool.patch
# adds **merged_kwargs), and the reward reads extra_info["num_turns"], which
# the agent loop never sets (KeyError; agent_loop.patch sets it before
# compute_score.remote). The run book leaves them to the verl_npu plugin,
# which patches the installed tree at import time with "patch -p1 -N"; here
# they are applied at checkout, read from the MindSpeed-RL checkout above,
# and their contents enter verl's digest. retool.patch ends with an empty
# context line without its newline, which git apply calls corrupt: git_repo
# applies it with GNU patch, as the plugin does, and its log says so.
#
# The plugin applies two more patches of that folder; they are not needed
# here. vllm_rollout_spmd.patch changes only vLLMRollout, the synchronous
# (SPMD) rollout, and its imports; with actor_rollout_ref.rollout.mode=async
# verl's rollout/base.py selects vLLMAsyncRollout, which it does not touch.
# hybrid_tp_config.patch adds the module only vllm_rollout_spmd.patch uses.
#
# kiln: patches/verl-npu-sync-all.patch is this pipeline's own; it does what
# the plugin does to tensordict's TensorDictBase._sync_all (see the patch).
#
# The plugin's setup.py (inject_verl_plugin) also comments out every line
# "from . import kernels" of verl/utils/kernel/linear_cross_entropy.py. Not
# needed here: at d62da49 that import is not at module level but inside
# LinearCrossEntropy.forward and backward, which run only with
# actor_rollout_ref.model.use_fused_kernels=True (false in
# _generated_ppo_trainer.yaml, and not set below); and kernels.py imports
# triton in a try block with a stand-in when it is missing, so even that
# path imports without triton. (Its other edit, "import verl_npu" appended
# to verl/__init__.py, is what applies the patches above at import time.)
# Its edits of vLLM are applied in exec.vllm_wheel.
git_repo "verl" {
  url    = "${var.github}/volcengine/verl.git"
  commit = "d62da4950573d7a4b7ef2362337952e7ab59e78d"
  patches = [
    "${git_repo.mindspeed_rl.out}/verl_npu/verl_npu/patch/verl/d62da4950/retool.patch",
    "${git_repo.mindspeed_rl.out}/verl_npu/verl_npu/patch/verl/d62da4950/agent_loop.patch",
    "patches/verl-npu-sync-all.patch",
  ]
}

# vLLM v0.11.0 (MindSpeed-RL installs this commit as vllm 0.11.0).
git_repo "vllm" {
  url    = "${var.github}/vllm-project/vllm.git"
  commit = "b8b302cde434df8c9289a2b465406b47ebab1c2d"
}

# vllm-ascend, branch v0.11.0-dev.
git_repo "vllm_ascend" {
  url    = "${var.github}/vllm-project/vllm-ascend.git"
  commit = "ceadc2788da2a3d726d644e27aeaef14c6966405"
}

# kiln: the build environment of the three wheels below. What vllm-ascend's
# build needs: its pyproject.toml's [build-system] requires at ceadc27, less
# what only running it needs (transformers, torchvision, msgpack, quart,
# numba, opencv-python-headless; pip is the venv's own), with its
# numpy<2.0.0 pinned to the run book's 1.26.4. Its setup.py finds torch_npu
# with "python3 -m pip show torch-npu" and pybind11 and cmake on PATH, which
# pip's isolated build environment does not provide, so the build uses this
# environment with --no-build-isolation (as vllm-ascend's installation guide
# advises when torch-npu versions conflict). vLLM and verl are built with its
# interpreter too, not whatever python3.10 the host has.
python_env "vllm_ascend_build" {
  python               = var.python
  extra_index_urls     = [var.torch_extra_index]
  system_site_packages = var.use_image_torch

  install {
    packages = [
      "torch==2.7.1", "torch-npu==2.7.1", "numpy==1.26.4", "cmake>=3.26", "pybind11", "setuptools>=64",
      "setuptools-scm>=8", "wheel", "packaging", "pyyaml", "decorator", "einops", "scipy",
    ]
  }

  constraints = ["torch==2.7.1", "torch-npu==2.7.1"]
}

# kiln: vllm-ascend built once into a wheel with its custom kernels: verl's async
# vLLM server always enables sleep mode, which needs them
# (COMPILE_CUSTOM_KERNELS=1). setup.py writes _build_info.py, .deps and
# build/ into its source tree, so the build runs in a copy and the checkout
# stays as git_repo verified it. The toolkit's devlib (libascend_hal.so) is
# on the library path at build time, as in vllm-ascend's Dockerfile.
exec "vllm_ascend_wheel" {
  host        = host.build
  toolchain   = toolchain.cann
  env_prepend = { PATH = python_env.vllm_ascend_build.bin }
  env = {
    COMPILE_CUSTOM_KERNELS = "1"
    SOC_VERSION            = var.soc_version
  }
  command = <<-EOT
    set -eu
    export LD_LIBRARY_PATH="$${LD_LIBRARY_PATH:-}:${var.ascend_toolkit_home}/latest/$(uname -m)-linux/devlib"
    cp -a ${git_repo.vllm_ascend.out}/. "$KILN_OUT/src"
    python3 -m pip wheel --no-deps --no-build-isolation --wheel-dir "$KILN_OUT/dist" "$KILN_OUT/src"
    rm -rf "$KILN_OUT/src"
  EOT
}

# kiln: wheels of vLLM without device code (VLLM_TARGET_DEVICE=empty) and of the
# patched verl, each built in a copy: their setup.py files write build/,
# *.egg-info and vllm/_version.py into the source tree, and the checkouts
# must stay as git_repo verified them (recipe/ runs from verl's). git_repo
# fetches the commit without tags, so setuptools-scm would number vLLM
# 0.1.dev1; vllm-ascend compares vLLM's version (vllm_version_is), hence the
# pretend version. vLLM's build dependencies (torch 2.8.0, which the run
# book's requirements/build.txt installs over torch 2.7.1) stay in pip's
# isolated build environment.
#
# kiln: vllm_wheel and verl_wheel are temp: their wheels only feed
# python_env.retool, so they leave the store once it is built from them and
# are built again (in minutes: neither compiles device code) only when it
# must be. vllm_ascend_wheel is kept: its kernels take long to compile.
#
# kiln: the verl_npu plugin's setup.py (inject_vllm_plugin, MindSpeed-RL at
# 679b564f) edits the installed vLLM's fp8_utils.py and fused_moe.py at
# install time: on every line holding "list" it writes "List", and it adds
# ", List" to their "from typing import Any, Callable" line. The copy below
# gets exactly that edit before the wheel is built, so the wheel holds what
# the run book's hosts run, in this node's key instead of in an install
# hook; a vLLM pin without either file fails here, naming it.
exec "vllm_wheel" {
  temp = true
  env = {
    VLLM_TARGET_DEVICE             = "empty"
    SETUPTOOLS_SCM_PRETEND_VERSION = "0.11.0"
  }
  command = <<-EOT
    set -eu
    cp -a ${git_repo.vllm.out}/. "$KILN_OUT/src"
    ${python_env.vllm_ascend_build.python} - "$KILN_OUT/src/vllm/model_executor/layers" <<'PY'
    import pathlib, sys
    for rel in ("quantization/utils/fp8_utils.py", "fused_moe/fused_moe.py"):
        path = pathlib.Path(sys.argv[1], rel)
        edited, changed = [], 0
        for line in path.read_text().splitlines(keepends=True):
            new = line
            if "from typing import Any, Callable" in line.strip() and "List" not in line.strip():
                new = line[:-1] + ", List\n"
            elif "list" in line:
                new = line.replace("list", "List")
            changed += new != line
            edited.append(new)
        path.write_text("".join(edited))
        print(f"kiln: verl_npu's edit of vllm/model_executor/layers/{rel}: {changed} lines")
    PY
    ${python_env.vllm_ascend_build.python} -m pip wheel --no-deps --extra-index-url ${var.torch_extra_index} \
      --wheel-dir "$KILN_OUT/dist" "$KILN_OUT/src"
    rm -rf "$KILN_OUT/src"
  EOT
}

exec "verl_wheel" {
  temp    = true
  command = <<-EOT
    set -eu
    cp -a ${git_repo.verl.out}/. "$KILN_OUT/src"
    ${python_env.vllm_ascend_build.python} -m pip wheel --no-deps --wheel-dir "$KILN_OUT/dist" "$KILN_OUT/src"
    rm -rf "$KILN_OUT/src"
  EOT
}

# ---------------------------------------------------------------- training environment

# kiln: one environment for SFT, merge and RL, with consistent pins. The run book's
# order fights itself: verl's requirements-npu.txt pins torchvision==0.20.1
# (which pulls torch 2.5.1), transformers==4.52.4 and ray==2.46.0; vLLM's
# requirements/build.txt installs torch 2.8.0; vllm-ascend wants torch 2.7.1,
# transformers<=4.57.1 and (dev) ray>=2.47.1; the last install wins. Here the
# torch stack comes first and every later step repeats its pins, so no
# resolver can move it, and constraints prove the result.
python_env "retool" {
  python               = var.python
  extra_index_urls     = [var.torch_extra_index]
  system_site_packages = var.use_image_torch

  install {
    packages = ["torch==2.7.1", "torch-npu==2.7.1", "torchvision==0.22.1", "numpy==1.26.4"]
  }

  install {
    wheels   = ["${exec.vllm_wheel.out}/dist/*.whl"]
    packages = ["torch==2.7.1", "numpy==1.26.4"]
  }

  install {
    wheels   = ["${exec.vllm_ascend_wheel.out}/dist/*.whl"]
    packages = ["torch==2.7.1", "torch-npu==2.7.1"]
  }

  # verl's requirements-npu.txt at d62da49, with four pins changed:
  # numpy <2.0.0 -> 1.26.4 (the run book's, installed before vLLM),
  # torchvision 0.20.1 -> 0.22.1 (matches torch 2.7.1), transformers
  # 4.52.4 -> 4.57.1 (the newest vllm-ascend accepts), ray 2.46.0 -> 2.47.1
  # (what vllm-ascend asks for; verl needs >=2.41); and torch and torch-npu
  # added at the first step's pins, so no resolver moves them.
  install {
    packages = [
      "accelerate", "codetiming", "datasets", "dill", "hydra-core", "numpy==1.26.4", "pandas",
      "peft>=0.15.2", "pyarrow>=15.0.0", "pybind11", "pylatexenc", "tensordict>=0.8.0,<=0.10.0,!=0.9.0",
      "transformers==4.57.1", "ray==2.47.1", "wandb", "mathruler", "torchdata", "einops", "qwen_vl_utils",
      "torchvision==0.22.1", "torch==2.7.1", "torch-npu==2.7.1",
    ]
  }

  # verl itself, patched, not editable: the environment's digest covers it.
  install {
    wheels  = ["${exec.verl_wheel.out}/dist/*.whl"]
    no_deps = true
  }

  # triton does not work on Ascend: vllm-ascend's and verl's Ascend
  # Dockerfiles both run "pip uninstall -y triton" after installing. Last,
  # so no step can bring it back; absent proves it.
  install {
    uninstall = ["triton"]
  }

  constraints = [
    "torch==2.7.1", "torch-npu==2.7.1", "torchvision==0.22.1", "numpy<2", "transformers==4.57.1",
    "ray==2.47.1", "verl==0.6.1", "vllm==0.11.0", "vllm-ascend",
  ]
  absent = ["triton"]
  # The device-less vLLM build and verl (installed without its dependencies)
  # can declare requirements that do not apply on Ascend; constraints above
  # are the pins that must hold, so pip check only warns.
  pip_check = "warn"
}

# ---------------------------------------------------------------- sandbox

# SandboxFusion before upstream renamed its Makefile targets (make run-online
# is gone on main since 7af6baef). The server runs uvicorn directly below.
git_repo "sandbox_fusion" {
  url     = "${var.github}/bytedance/SandboxFusion.git"
  commit  = "5e37f71a5f61bd7dddd1fa867b5cb7be01a1bbb6"
  patches = ["patches/sandboxfusion-runtime-venv.patch"]
}

# kiln: the run book edits pyproject.toml for Python 3.10 and runs poetry lock,
# which re-resolves every dependency. Python 3.11 satisfies the project as
# published, and poetry export turns its poetry.lock into exact pins.
python_env "poetry" {
  python = var.sandbox_python

  install {
    packages = ["poetry==1.8.5", "poetry-plugin-export==1.8.0"]
  }
}

exec "sandbox_requirements" {
  dir = git_repo.sandbox_fusion.out
  env = {
    POETRY_VIRTUALENVS_CREATE = "false"
    POETRY_NO_INTERACTION     = "1"
  }
  command = "${python_env.poetry.out}/bin/poetry export --format requirements.txt --without-hashes --output $KILN_OUT/requirements.txt"
}

python_env "sandbox" {
  python = var.sandbox_python

  install {
    requirements = ["${exec.sandbox_requirements.out}/requirements.txt"]
  }
}

# kiln: the Python that runs the model's code, from the runtime's requirements,
# without install-python-runtime.sh: that script removes ~/.condarc, sets a
# global pip index and needs a conda env named sandbox-runtime.
python_env "sandbox_runtime" {
  python = var.sandbox_runtime_python

  install {
    requirements = ["${git_repo.sandbox_fusion.out}/runtime/python/requirements.txt"]
    extra_args   = ["--ignore-requires-python"]
  }

  pip_check = "warn"
}

# kiln: the NLTK data install-python-runtime.sh downloads.
exec "sandbox_nltk_data" {
  command = "${python_env.sandbox_runtime.out}/bin/python -m nltk.downloader -d $KILN_OUT punkt stopwords"
}

# kiln: the server mounts docs/build as static files and fails at startup without
# it. The tree is copied so that docs/build is made here, not in the checkout.
exec "sandbox_tree" {
  command = <<-EOT
    set -eu
    cp -a ${git_repo.sandbox_fusion.out}/. "$KILN_OUT/"
    rm -rf "$KILN_OUT/.git"
    mkdir -p "$KILN_OUT/docs/build"
  EOT
}

# kiln: the code sandbox as a service, bound to var.sandbox_host. The readiness probe is SandboxFusion's
# health check; the post-start check is the run book's quick check.
service "sandbox" {
  dir     = exec.sandbox_tree.out
  command = ["${python_env.sandbox.out}/bin/uvicorn", "sandbox.server.server:app", "--host", var.sandbox_host, "--port", "${var.sandbox_port}"]
  url     = local.sandbox_url
  port    = var.sandbox_port
  env = {
    SANDBOX_CONFIG      = "local"
    SANDBOX_RUNTIME_BIN = "${python_env.sandbox_runtime.out}/bin"
    NLTK_DATA           = exec.sandbox_nltk_data.out
  }

  ready {
    url      = "${local.sandbox_url}/v1/ping"
    contains = "pong"
    timeout  = "120s"
  }

  check {
    url     = "${local.sandbox_url}/run_code"
    method  = "POST"
    headers = { "Content-Type" = "application/json" }
    body    = jsonencode({ code = "print(\"Hello, world!\")", language = "python" })
    json = {
      "status"                 = "Success"
      "run_result.status"      = "Finished"
      "run_result.return_code" = "0"
      "run_result.stdout"      = "Hello, world!\n"
    }
  }
}

# kiln: the recipe's tool configuration hard-codes http://localhost:8080/run_code;
# this copy names the sandbox above, and fails if the line was not found.
exec "tool_config" {
  command = <<-EOT
    set -eu
    sed 's#http://localhost:8080/run_code#${local.sandbox_url}/run_code#' \
      ${git_repo.verl.out}/recipe/retool/sandbox_fusion_tool_config.yaml > "$KILN_OUT/sandbox_fusion_tool_config.yaml"
    grep -q '${local.sandbox_url}/run_code' "$KILN_OUT/sandbox_fusion_tool_config.yaml"
  EOT
}

# ---------------------------------------------------------------- weights and data

# Each lands in OUT/ORG/NAME: the recipe derives data_source from the last two
# path elements, and only Maxwell-Jia/AIME_2024 gets the AIME mapping.
fetch "qwen2_5_7b_instruct" {
  huggingface {
    repo     = "Qwen/Qwen2.5-7B-Instruct"
    revision = "a09a35458c702b33eeacc393d103063234e8bc28"
    endpoint = var.hf_endpoint
  }
}

# kiln: the run book has the preprocess download it at run time; here it is
# pinned and fetched like the rest.
fetch "retool_sft" {
  huggingface {
    repo     = "JoeYing/ReTool-SFT"
    kind     = "dataset"
    revision = var.retool_sft_revision
    endpoint = var.hf_endpoint
  }
}

fetch "dapo_math_17k" {
  huggingface {
    repo     = "BytedTsinghua-SIA/DAPO-Math-17k"
    kind     = "dataset"
    revision = "65877096c24ffa7abc4e4fa5edb95cf3413a5674"
    endpoint = var.hf_endpoint
  }
}

fetch "aime_2024" {
  huggingface {
    repo     = "Maxwell-Jia/AIME_2024"
    kind     = "dataset"
    revision = var.aime_2024_revision
    endpoint = var.hf_endpoint
  }
}

# ---------------------------------------------------------------- SFT

# verl's preprocess reads recipe/retool/sandbox_fusion_tool_config.yaml
# relative to its working folder, loads "JoeYing/ReTool-SFT" (a local folder
# of that name comes before the hub) and writes ~/ReTool-SFT/data. kiln: it
# runs in a folder of links inside its own output, offline, with HOME = its output,
# so the parquet file lands in this node's output and nowhere else. It is
# temp: only sft_train reads it, and it is made again in a minute if needed.
# sft_train itself is resumable (its folder is how an interrupted run goes
# on), so it cannot be temp; var.checkpoints_to_keep bounds it instead.
exec "sft_preprocess" {
  temp = true
  env = {
    HOME                = self.out
    HF_HOME             = "${self.out}/.cache/huggingface"
    HF_DATASETS_OFFLINE = "1"
    HF_HUB_OFFLINE      = "1"
  }
  command = <<-EOT
    set -eu
    work="$KILN_OUT/work"
    mkdir -p "$work/recipe" "$work/JoeYing"
    ln -s ${git_repo.verl.out}/recipe/retool "$work/recipe/retool"
    ln -s ${fetch.retool_sft.out}/JoeYing/ReTool-SFT "$work/JoeYing/ReTool-SFT"
    cd "$work"
    ${local.python} recipe/retool/retool_sft_preprocess.py
    cd "$KILN_OUT"
    rm -rf "$work" "$KILN_OUT/.cache"
    test -s "$KILN_OUT/ReTool-SFT/data/train-00000-of-00001.parquet"
  EOT
}

# recipe/retool/run_qwen2_7b_sft.sh as a step; its overrides are upstream's.
# kiln: with what it lacks on Ascend: trainer.device=npu (the default is cuda at this commit), a master address
# and port (empty upstream), the data path the preprocess really writes
# (upstream reads $DATA_ROOT/dataset/wuxibin/ReTool-SFT/...), console logging
# only (wandb needs a login). 2000 rows, batch 32, sp 4 on 8 NPUs: 62 steps an
# epoch, 372 in 6 epochs. Resumable: an interrupted run continues from its
# last checkpoint in the same output folder (trainer.resume_mode=auto). It
# runs in its output folder because Hydra writes outputs/ where it runs.
exec "sft_train" {
  executor      = var.train_executor
  host          = host.a2
  toolchain     = toolchain.cann
  resources     = { npu = 8 }
  resumable     = true
  deterministic = false
  progress      = "step:(\\d+) - "
  total         = 372
  env_prepend   = { PYTHONPATH = git_repo.verl.out }
  env           = { WANDB_MODE = "disabled" }
  command       = <<-EOT
    set -eu
    cd "$KILN_OUT"
    data=${exec.sft_preprocess.out}/ReTool-SFT/data/train-00000-of-00001.parquet
    ${python_env.retool.out}/bin/torchrun --nnodes=1 --nproc_per_node=8 \
      --master-addr=${var.master_addr} --master-port=${var.master_port} --node-rank=0 \
      -m verl.trainer.fsdp_sft_trainer \
      data.train_files=$data data.val_files=$data \
      data.max_length=16384 data.train_batch_size=32 \
      data.multiturn.enable=true data.multiturn.messages_key=messages data.multiturn.tools_key=tools \
      data.micro_batch_size_per_gpu=4 \
      model.partial_pretrain=${fetch.qwen2_5_7b_instruct.out}/Qwen/Qwen2.5-7B-Instruct \
      model.strategy=fsdp \
      trainer.default_local_dir=$KILN_OUT/checkpoint \
      trainer.project_name=retool-sft trainer.experiment_name=qwen2.5-7b-instruct \
      trainer.logger='["console"]' trainer.total_epochs=6 trainer.save_freq=62 \
      trainer.max_ckpt_to_keep=${var.checkpoints_to_keep} \
      trainer.resume_mode=auto trainer.device=npu \
      ulysses_sequence_parallel_size=4 use_remove_padding=true
  EOT
}

# verl's model merger, as the run book runs it. kiln: on the last
# checkpoint, read from latest_checkpointed_iteration.txt
# (372 with the settings above, but not assumed). The run book writes the
# merged model into the checkpoint's own huggingface/ folder; here it goes to
# this node's output and the checkpoint stays as training left it.
exec "sft_merge" {
  toolchain   = toolchain.cann
  env_prepend = { PYTHONPATH = git_repo.verl.out }
  command     = <<-EOT
    set -eu
    ckpt=${exec.sft_train.out}/checkpoint
    step=$(cat "$ckpt/latest_checkpointed_iteration.txt")
    ${local.python} -m verl.model_merger merge --backend fsdp \
      --local_dir "$ckpt/global_step_$step" --target_dir "$KILN_OUT/huggingface"
  EOT
}

# ---------------------------------------------------------------- RL

# MindSpeed-RL's tests/verl_examples/retool/run_qwen2_7b_dapo_npu.sh as a
# step: its environment variables and every override below are upstream's.
# kiln: that script ends with "> $LOG_FILE 2>&1 &": it backgrounds training
# and exits 0 at once. Here training runs in the foreground, its output in
# kiln's log, and the model is the merged SFT checkpoint (the script's
# $HDFS_ROOT/checkpoint is not where the merge writes). The recipe's files
# and the tool configuration are given by absolute paths, and the verl
# checkout goes before CANN's PYTHONPATH for the tool class
# recipe.retool.retool.CustomSandboxFusionTool. The run is bounded by
# var.rl_total_steps (the script's single epoch over 1.7M DAPO rows would not
# end), and its checkpoints are the node's output: once the last step is
# saved the run is done and .kiln/out/exec.rl_train links it. Interrupted,
# the next apply resumes from the last checkpoint in the same folder.
exec "rl_train" {
  executor      = var.train_executor
  host          = host.a2
  toolchain     = toolchain.cann
  resources     = { npu = 8 }
  depends_on    = [service.sandbox]
  resumable     = true
  deterministic = false
  progress      = "step:(\\d+) - "
  total         = var.rl_total_steps
  env_prepend   = { PYTHONPATH = git_repo.verl.out }
  env = {
    VLLM_USE_V1                     = "1"
    TORCHDYNAMO_DISABLE             = "1"
    VLLM_ASCEND_ENABLE_NZ           = "0"
    TASK_QUEUE_ENABLE               = "1"
    VLLM_ENABLE_GRAPH_MODE          = "1"
    HCCL_OP_EXPANSION_MODE          = "AIV"
    VLLM_ASCEND_ENABLE_MLP_OPTIMIZE = "1"
    LD_PRELOAD                      = var.jemalloc
  }
  command = <<-EOT
    set -eu
    cd "$KILN_OUT"
    recipe=${git_repo.verl.out}/recipe/retool
    ${local.python} -m verl.trainer.main_ppo \
      hydra.run.dir="$KILN_OUT/hydra" \
      algorithm.adv_estimator=grpo \
      algorithm.use_kl_in_reward=False \
      algorithm.kl_ctrl.kl_coef=0.0 \
      data.train_files="['${fetch.dapo_math_17k.out}/BytedTsinghua-SIA/DAPO-Math-17k']" \
      data.val_files="['${fetch.aime_2024.out}/Maxwell-Jia/AIME_2024']" \
      data.return_raw_chat=True \
      data.train_batch_size=32 \
      data.max_prompt_length=2048 \
      data.max_response_length=20480 \
      data.filter_overlong_prompts=True \
      data.truncation='error' \
      data.custom_cls.path=$recipe/retool.py \
      data.custom_cls.name=CustomRLHFDataset \
      custom_reward_function.path=$recipe/retool.py \
      custom_reward_function.name=compute_score \
      actor_rollout_ref.model.path=${exec.sft_merge.out}/huggingface \
      actor_rollout_ref.model.use_remove_padding=True \
      actor_rollout_ref.model.enable_gradient_checkpointing=True \
      actor_rollout_ref.actor.use_kl_loss=False \
      actor_rollout_ref.actor.kl_loss_coef=0.0 \
      actor_rollout_ref.actor.clip_ratio_low=0.2 \
      actor_rollout_ref.actor.clip_ratio_high=0.28 \
      actor_rollout_ref.actor.clip_ratio_c=10.0 \
      actor_rollout_ref.actor.optim.lr=1e-6 \
      actor_rollout_ref.actor.use_dynamic_bsz=True \
      actor_rollout_ref.actor.ppo_mini_batch_size=16 \
      actor_rollout_ref.actor.ppo_max_token_len_per_gpu=22528 \
      actor_rollout_ref.actor.ulysses_sequence_parallel_size=4 \
      actor_rollout_ref.actor.fsdp_config.param_offload=True \
      actor_rollout_ref.actor.fsdp_config.optimizer_offload=True \
      actor_rollout_ref.actor.entropy_from_logits_with_chunking=True \
      actor_rollout_ref.actor.entropy_checkpointing=True \
      actor_rollout_ref.actor.use_torch_compile=False \
      actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=90112 \
      actor_rollout_ref.ref.entropy_from_logits_with_chunking=True \
      actor_rollout_ref.ref.entropy_checkpointing=True \
      actor_rollout_ref.ref.use_torch_compile=False \
      actor_rollout_ref.rollout.max_num_batched_tokens=22528 \
      actor_rollout_ref.rollout.name=vllm \
      actor_rollout_ref.rollout.mode=async \
      actor_rollout_ref.rollout.max_num_seqs=1024 \
      actor_rollout_ref.rollout.tensor_model_parallel_size=2 \
      actor_rollout_ref.rollout.multi_turn.enable=True \
      actor_rollout_ref.rollout.multi_turn.max_user_turns=16 \
      actor_rollout_ref.rollout.multi_turn.max_assistant_turns=16 \
      actor_rollout_ref.rollout.multi_turn.tool_config_path=${exec.tool_config.out}/sandbox_fusion_tool_config.yaml \
      actor_rollout_ref.rollout.multi_turn.format=hermes \
      actor_rollout_ref.rollout.gpu_memory_utilization=0.9 \
      actor_rollout_ref.rollout.n=16 \
      actor_rollout_ref.rollout.val_kwargs.top_p=0.6 \
      actor_rollout_ref.rollout.val_kwargs.temperature=1.0 \
      actor_rollout_ref.rollout.val_kwargs.n=30 \
      actor_rollout_ref.rollout.enable_chunked_prefill=True \
      actor_rollout_ref.rollout.enforce_eager=False \
      trainer.logger="['console']" \
      trainer.project_name=retool \
      trainer.experiment_name=qwen2.5-7b_dapo \
      trainer.n_gpus_per_node=8 \
      trainer.val_before_train=False \
      trainer.log_val_generations=20 \
      trainer.nnodes=1 \
      trainer.save_freq=100 \
      trainer.max_actor_ckpt_to_keep=${var.checkpoints_to_keep} \
      trainer.default_local_dir="$KILN_OUT" \
      trainer.resume_mode=auto \
      trainer.test_freq=20 \
      trainer.device=npu \
      trainer.total_epochs=1 \
      trainer.total_training_steps=${var.rl_total_steps}
    test -s "$KILN_OUT/latest_checkpointed_iteration.txt"
  EOT
}

output "sft_model" {
  value = "${exec.sft_merge.out}/huggingface"
}

output "rl_checkpoints" {
  value = exec.rl_train.out
}

output "sandbox_url" {
  value = local.sandbox_url
}
