# kiln quickstart: a fan-out and a join over a word list, with POSIX tools only.
#
#   normalize ──┬── letters ──┐
#               ├── longest ──┼── report
#               └── stats ────┘
#
# Try: kiln plan, kiln apply, then edit data/words.txt and plan again.

variable "top" {
  type        = number
  default     = 3
  description = "How many of the longest words the report lists."

  validation {
    condition     = var.top > 0
    error_message = "top must be at least 1."
  }
}

locals {
  tools = "POSIX sh, tr, sort, awk"
}

# Lower-case every word, one per line, sorted and without duplicates. An edit
# that only changes case or repeats a word leaves this output byte-identical,
# so nothing downstream runs again (early cutoff).
exec "normalize" {
  inputs  = ["data/words.txt"]
  command = "tr 'A-Z' 'a-z' < data/words.txt | tr -s ' \\t' '\\n\\n' | sed '/^$/d' | sort -u > $KILN_OUT/words.txt"
}

exec "letters" {
  command = "cut -c1 ${exec.normalize.out}/words.txt | sort | uniq -c | awk '{print $2, $1}' > $KILN_OUT/letters.txt"
}

exec "longest" {
  command = "awk '{print length($0), $0}' ${exec.normalize.out}/words.txt | sort -k1,1nr -k2 | head -n ${var.top} | cut -d' ' -f2 > $KILN_OUT/longest.txt"
}

exec "stats" {
  command = ["sh", "-c", "printf 'words %s\\n' \"$(wc -l < $IN)\" > $KILN_OUT/stats.txt"]
  env     = { IN = "${exec.normalize.out}/words.txt" }
}

exec "report" {
  command = <<-EOT
    {
      echo "# Word report (made with ${local.tools})"
      echo; echo "## Totals";  cat ${exec.stats.out}/stats.txt
      echo; echo "## Longest"; cat ${exec.longest.out}/longest.txt
      echo; echo "## By first letter"; cat ${exec.letters.out}/letters.txt
    } > ${self.out}/report.md
  EOT
}

output "report" {
  value = "${exec.report.out}/report.md"
}
