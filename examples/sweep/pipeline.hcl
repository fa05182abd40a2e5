# kiln sweep: a training run as an ML engineer runs one, with the standard
# library only. prep splits the data; train fits a line by SGD, logging its
# losses, checkpointing and resuming; evaluate reads the model.
#
#   prep ── train ── evaluate
#
# A sweep and its comparison:
#
#   for lr in 0.02 0.05 0.1; do kiln apply -var lr=$lr examples/sweep; done
#   kiln runs examples/sweep                # the runs, what differs, final and best losses
#   kiln metrics diff 1 3 examples/sweep    # as dvc metrics diff
#   kiln report -runs 3 examples/sweep      # the curves of the three runs on one chart
#   kiln apply -var lr=0.02 examples/sweep  # back to the first: restored, not retrained

variable "lr" {
  type        = number
  default     = 0.05
  description = "The learning rate."
}

variable "steps" {
  type    = number
  default = 40
}

variable "step_delay" {
  type        = number
  default     = 0
  description = "Seconds per training step: 0.5 gives time to press Ctrl-C and watch it resume."
}

variable "preempt_at" {
  type        = number
  default     = 0
  description = "Exit at this step on the first attempt, as a preempted job does (0: never); the retry resumes."
}

exec "prep" {
  inputs  = ["prep.py", "data/points.csv"]
  command = "python3 prep.py data/points.csv"
}

exec "train" {
  inputs = ["train.py"]
  # The trainer resumes from $KILN_OUT/ckpt.json when KILN_RESUME=1: an
  # interrupted run (Ctrl-C, a killed trainer, a killed kiln) or a retry
  # runs again in the same folder, and its result is all its segments' work.
  resumable = true
  retries   = 1
  # Training on accelerators is not bitwise reproducible: the lock keeps its
  # key, not its digest, so each run leaves kiln.lock.hcl as it was.
  deterministic = false
  command       = "python3 train.py ${exec.prep.out} --lr ${var.lr} --steps ${var.steps} --step-delay ${var.step_delay} --preempt-at ${var.preempt_at}"

  metrics {
    format = "verl" # "step:N - train/loss:X - val/loss:Y"
  }
}

exec "evaluate" {
  command = "python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(\"val_loss\", m[\"val_loss\"])' ${exec.train.out}/model.json > $KILN_OUT/eval.txt"
}
