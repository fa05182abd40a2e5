# A pipeline for kiln report's browser test: nodes that log metrics in the
# three ways kiln reads them, one that holds NPUs, one that fails and one
# skipped after it.

exec "prepare" {
  command = "echo preparing; printf 'a\\nb\\n' > $KILN_OUT/data"
}

# verl's console logger, behind Ray's actor prefix.
exec "train" {
  resources = { npu = 2 }
  command   = <<-EOT
    cat ${exec.prepare.out}/data > /dev/null
    for s in 1 2 3 4 5 6; do
      echo "(TaskRunner pid=7) step:$s - critic/score/mean:np.float64(0.$s) - actor/entropy:$((7 - s)).25 - perf/throughput:1$s$s"
      echo "(WorkerDict pid=8) INFO rollout $s done"
    done
  EOT

  metrics {
    format = "verl"
  }
}

exec "evaluate" {
  command = <<-EOT
    test -d ${exec.train.out}
    for s in 2 4 6; do echo "{\"step\": $s, \"eval\": {\"acc\": 0.$s, \"f1\": 0.$((s + 1))}}"; done
  EOT

  metrics {
    format = "jsonl"
  }
}

exec "custom" {
  depends_on = [exec.prepare]
  command    = "for i in 10 20 30 40 50; do echo \"iter $i loss=0.$((60 - i))\"; done"

  metrics {
    patterns = ["iter (?P<step>\\d+) loss=(?P<loss>\\S+)"]
  }
}

exec "broken" {
  depends_on = [exec.custom]
  command    = "echo 'something went wrong' >&2; exit 3"
}

exec "after_broken" {
  command = "cat ${exec.broken.out}/x"
}
