# variants: a toy variant-calling workflow, the shape of a Snakemake one, with
# POSIX tools only (offline, seconds).
#
#   data/samples/*.fastq ─ map ─ sort ─┬─ index ─┐
#   (one chain per sample)             └─────────┴─ call ─┐
#   split (all calls, into var.regions shards) ────────────┘
#   annotate[*] (one per shard file split wrote) ─ merge ─ report
#
# Try: kiln plan, kiln apply, then edit one sample and plan again: only that
# sample's chain and the aggregates run. kiln apply -var regions=5 changes the
# number of shards; see README.md.

variable "regions" {
  type        = number
  default     = 3
  description = "How many shards split cuts the calls into."
}

locals {
  # sample name => its file, one instance of every per-sample step each.
  samples   = glob_wildcards("data/samples/{sample}.fastq")
  reference = "data/reference.txt"
}

# Align every read to the reference: the position with the fewest mismatches.
exec "map" {
  for_each = local.samples
  inputs   = [each.value, local.reference]
  command  = <<-EOT
    awk -v ref="$(cat ${local.reference})" '{
      best = -1
      for (p = 1; p <= length(ref) - length($0) + 1; p++) {
        mm = 0
        for (i = 1; i <= length($0); i++) if (substr(ref, p + i - 1, 1) != substr($0, i, 1)) mm++
        if (best < 0 || mm < best) { best = mm; pos = p }
      }
      print pos, $0, best
    }' ${each.value} > $KILN_OUT/aligned.txt
  EOT
}

# Sorted by position. A big intermediate in real life: temp = true removes it
# from the store once index and call have used it, and rebuilds it only if
# one of them must run again.
exec "sort" {
  for_each = local.samples
  temp     = true
  command  = "sort -n -k1,1 -k2,2 ${exec.map[each.key].out}/aligned.txt > $KILN_OUT/sorted.txt"
}

# Reads per 10-base bin.
exec "index" {
  for_each = local.samples
  command  = "awk '{ bin[int(($1 - 1) / 10)]++ } END { for (b in bin) print b * 10 + 1, bin[b] }' ${exec.sort[each.key].out}/sorted.txt | sort -n > $KILN_OUT/index.txt"
}

# One line per mismatched base: position, reference base, read base, sample.
exec "call" {
  for_each = local.samples
  inputs   = [local.reference]
  command  = <<-EOT
    test -s ${exec.index[each.key].out}/index.txt
    awk -v ref="$(cat ${local.reference})" -v s=${each.key} '{
      for (i = 1; i <= length($2); i++) {
        r = substr(ref, $1 + i - 1, 1); a = substr($2, i, 1)
        if (r != a) print $1 + i - 1, r, a, s
      }
    }' ${exec.sort[each.key].out}/sorted.txt > $KILN_OUT/calls.txt
  EOT
}

# All samples' calls, cut by position into var.regions shard files: how many
# there are is known only once this has run.
exec "split" {
  command = <<-EOT
    cat ${join(" ", [for s, c in exec.call : "${c.out}/calls.txt"])} | sort -n -k1,1 -k4,4 |
      awk -v n=${var.regions} -v out=$KILN_OUT '{ print > (out "/shard-" ($1 % n + 1) ".txt") }
        END { for (i = 1; i <= n; i++) printf "" >> (out "/shard-" i ".txt") }'
  EOT
}

# One instance per shard file split wrote; each shard's key holds the
# digest of its own file, so a shard that did not change stays up to date.
exec "annotate" {
  for_each = glob_wildcards("${exec.split.out}/shard-{region}.txt")
  command  = <<-EOT
    awk '{ t = ($2 $3 ~ /^(AG|GA|CT|TC)$/) ? "transition" : "transversion"; print $0, t }' ${each.value} > $KILN_OUT/annotated.txt
  EOT
}

exec "merge" {
  command = "cat ${join(" ", [for r, a in exec.annotate : "${a.out}/annotated.txt"])} | sort -n -k1,1 -k4,4 > $KILN_OUT/variants.txt"
}

exec "report" {
  command = <<-EOT
    {
      echo "# Variants"
      echo; echo "regions: ${var.regions}, samples: ${join(", ", keys(local.samples))}"
      echo; echo "## Per sample"; awk '{ n[$4]++ } END { for (s in n) print s, n[s] }' ${exec.merge.out}/variants.txt | sort
      echo; echo "## By kind"; awk '{ n[$5]++ } END { for (k in n) print k, n[k] }' ${exec.merge.out}/variants.txt | sort
    } > $KILN_OUT/report.md
  EOT
}

output "report" {
  value = "${exec.report.out}/report.md"
}
