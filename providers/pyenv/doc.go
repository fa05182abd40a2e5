// Package pyenv is the python_env node kind: a virtualenv built by ordered
// install steps, each one pip invocation (requirements files, pinned
// packages, editable checkouts, local wheels), then checked against the
// node's constraints.
//
// The kind exists to settle version fights between projects installed into
// one environment (verl pins torchvision 0.20.1, vllm-ascend wants torch
// 2.7.1, both pin ray): steps run in the order written, so a later step's
// pins win, and constraints prove after the fact that they did. A violation
// names the package, the installed and the required version and the step
// that last installed or removed it, found by listing the venv after every
// step. A step may instead uninstall distributions (uninstall = ["triton"],
// pip uninstall --yes; one not installed is skipped), and absent lists
// distributions that must not be installed once every step ran, checked and
// reported the same way. pip check runs too; pip_check = "error" (the default) fails the build
// on its complaints, "warn" logs them and keeps them in Result.Attrs, "off"
// skips it.
//
// The venv is created in place in Build.Dir, so the absolute paths pip
// writes into scripts stay valid. Every process runs in its own process
// group with Build.Env, the venv activated (VIRTUAL_ENV, its bin first on
// PATH, so build backends that call python find the venv's) and pip kept
// from prompting and from reading pip.conf (PIP_CONFIG_FILE=/dev/null unless
// the environment sets it): index settings belong in the node, where they
// enter the key. Relative paths in the configuration are relative to the
// pipeline folder.
//
// The digest is a hash of the interpreter's sys.version and the sorted
// pip freeze --all entries, with paths under the state folder and the
// pipeline folder written as $KILN_STATE and $KILN_ROOT, so the same
// distributions give the same digest in any output folder. The normalised
// freeze is kept in Result.Attrs["freeze"]; Verify freezes again and names
// what was added, removed or changed.
//
// The interpreter must be Python 3.8 or newer (importlib.metadata lists
// what is installed after each step). Probe looks for it at plan time on
// the PATH the build searches (the node's, or kiln's while a toolchain is
// still to be built) and runs it once (with the venv and ensurepip
// modules), so a missing interpreter, or a pyenv shim for a version that is
// not selected, blocks the node in the plan with what is wrong. Its
// major.minor version is a key line (python.version): a venv made with
// 3.11 does not run on 3.12, so another minor version rebuilds it.
//
// system_site_packages = true makes the venv with --system-site-packages, so
// it sees the interpreter's own site-packages (a vendor image's torch and
// torch_npu) and pip leaves what they satisfy alone. Probe then lists every
// distribution the interpreter sees (python -I: no PYTHONPATH, no user
// site) and keys each version (python.system_site NAME), so an image with
// another torch rebuilds the venv and the plan names the package; pip
// freeze --all lists them too, so they are in the digest.
//
// Nothing here holds state between calls; a PythonEnv may build several
// nodes at once.
package pyenv
