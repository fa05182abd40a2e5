// Package pool describes the resource pools an apply runs against: how many
// units each holds and, for a device pool, which device ids, how they are
// grouped, which were left out and why, and the environment variable that
// tells a node's processes the ids it holds.
//
// A pool is assembled from, in increasing precedence: the defaults (cpu is
// the machine's CPU count, mem_mb its memory; npu takes the devices a host
// node reports), the
// pipeline's `pool "NAME"` blocks (Spec), and -resource NAME=VALUE (Given).
// A device pool has ids; its size is how many. A count given for a pool
// whose ids are known takes the first ids; a count given for a pool that
// has a variable (npu, gpu, or any pool block with env) but no known ids
// means the ids 0..N-1. Other pools are counted: they limit how many units
// run at once and hand out nothing.
//
// The devices a host reports unhealthy, and ids the host does not list at
// all, are excluded from the npu pool, each with its reason; a node asking
// for more than what remains is blocked with that reason.
//
// Everything here is plain data, computed once per plan or apply; nothing
// is shared or locked. Placement (which ids a node gets) belongs to the
// scheduler, engine/run/sched.
package pool
