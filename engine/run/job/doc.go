// Package job is the contract between a kiln that hands one node to another
// process — a Slurm batch job on a compute node — and the `kiln job run`
// that executes it there: the Spec the submitting kiln writes and the
// Result the job writes back, both small JSON files in the job's folder on
// a filesystem both see.
//
// A Spec is a node already decided and evaluated: its kind, its key, its
// configuration as typed JSON, the output folder of the run ($KILN_OUT),
// the environment the local executor would give it. The job never loads
// the pipeline or evaluates the DAG again; it runs the kind's Build once
// with exactly that, hashes the outputs where they lie and writes a Result
// with the digest, so the submitting host never reads the outputs back.
//
// A Spec may hold secrets (an environment variable a node names): it is
// written with mode 0600. Results are written atomically: a Result file
// that exists is complete.
package job
