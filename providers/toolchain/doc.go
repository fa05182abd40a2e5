// Package toolchain implements the toolchain node kind: an environment
// captured from setup scripts (CANN's set_env.sh and friends), guarded by a
// version probe that must match the declared version.
//
// At plan time Probe only stats and hashes the setup scripts and reads the
// version (a key=value file, or a command and a regular expression); it never
// sources anything. A missing script or a version mismatch blocks the node
// with a message that names the file and what to install, and so does a PATH
// without the bash Build sources them with. The found version
// and the sha256 of every setup script enter the node's key, so an upgraded
// toolkit rebuilds the toolchain and everything that uses it.
//
// Build sources the scripts in order with bash (set -e) in the node's base
// environment, applies env_extra as plain assignments, and keeps only the
// variables whose value differs from the base environment; variables a script
// unsets are not represented. Bash's own bookkeeping variables (_, SHLVL, PWD,
// OLDPWD) and exported shell functions are dropped. The result is written as
// sorted JSON to env.json in the output folder and to Result.Attrs["env"];
// EnvFromAttrs turns that attribute back into a K=V list for the engine to
// inject into other nodes' processes. Only the top-level setup scripts are
// hashed: files they source in turn enter the key through the version.
//
// Paths (setup scripts, probe.file) are relative to the pipeline folder. The
// placeholders "<arch>" and "${arch}" (written $${arch} in HCL) in probe.file
// stand for the machine's architecture as uname -m prints it.
//
// The kind holds no mutable state and needs no locking. Processes run in their
// own process group; cancellation sends SIGTERM to the group, then SIGKILL
// after Grace.
package toolchain
