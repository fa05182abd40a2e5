# The per-sample workflow of bench/fanout.sh and bench/fanout-forms.sh for Snakemake:
# samples found by a glob, four steps per sample and the merge.
SAMPLES = glob_wildcards("data/{sample}.fastq").sample

rule all:
    input: "out/merge"

rule map:
    input: "data/{s}.fastq"
    output: "out/map/{s}"
    shell: "cat {input} > {output}"

rule sort:
    input: "out/map/{s}"
    output: "out/sort/{s}"
    shell: "sort {input} > {output}"

rule index:
    input: "out/sort/{s}"
    output: "out/index/{s}"
    shell: "wc -l < {input} > {output}"

rule call:
    input: "out/sort/{s}", "out/index/{s}"
    output: "out/call/{s}"
    shell: "cat {input} > {output}"

rule merge:
    input: expand("out/call/{s}", s=SAMPLES)
    output: "out/merge"
    shell: "cat {input} > {output}"
