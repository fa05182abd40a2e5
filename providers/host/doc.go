// Package host implements the host node kind: the facts of the machine kiln
// runs on (CPU architecture, NPU count, Ascend driver, firmware and CANN
// versions) and the requirements a pipeline places on them.
//
// Facts are read at plan time by Probe, cheaply and without ever failing the
// plan: a missing npu-smi or version file leaves the fact empty (npus 0) and
// records the reason as the fact "NAME.reason". Requirements that the facts
// do not meet block the node, with one message naming every unmet
// requirement and why. Only the facts named in the require block enter the
// node's key, so a driver upgrade rebuilds only what declared a driver
// requirement; explain shows all facts.
//
// Devices: besides the count, Probe records the NPU devices by the ids
// ASCEND_RT_VISIBLE_DEVICES takes (the chips' logic ids from `npu-smi info
// -m`, or the NPU IDs of `info -l` when -m fails) as the fact "devices"
// ("0-2,4-7"), and leaves out the devices of cards whose Health column in
// the `npu-smi info` table is not OK, as "devices.excluded" ("3: health
// Warning"), in the form engine/pool reads back for the npu pool. These
// facts never enter a key: which card ran a node does not change its
// result.
//
// Requirements: npus is a minimum, cann and arch are exact, driver and
// firmware are version prefixes, files must exist (a library a run preloads,
// a device node: the loader only warns about a missing LD_PRELOAD, so a run
// would silently go without it), programs must be found on the node's PATH
// (the compilers a build runs). A file's presence, or where a program is
// found, does not enter the key;
// "<arch>" in its path stands for the machine's architecture. Relative fact paths are relative to the
// pipeline folder; the default npu-smi is looked up on kiln's PATH and then
// in NPUSmiDirs.
//
// Exports (npus, cann, driver, firmware, arch) are known at plan time. Since
// Kind.Exports has no context, a Host caches the last facts read for each
// distinct set of fact paths; Probe and Build always read afresh and refresh
// the cache. The cache is guarded by Host.mu; nothing else is shared.
// npu-smi runs in its own process group with a timeout; cancellation sends
// SIGTERM to the group, then SIGKILL after Grace.
package host
