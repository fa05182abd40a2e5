package slurm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// Launch is what a command needs, inside a batch job, to start a program
// across the job's nodes: the nodes, the batch host's address and a port
// free there, for a launcher's rendezvous (torchrun's MASTER_ADDR and
// MASTER_PORT, a Ray head).
type Launch struct {
	JobID string
	Nodes []string // node names, the batch host first
	Head  string   // the batch host's address, as Slurm reaches it
	Port  int      // a TCP port that was free on the batch host
}

// JobEnv are the variables kiln sets for a command inside a batch job
// whose own environment is environ, and that do not depend on asking the
// cluster:
//
//   - SLURM_EXPORT_ENV=ALL: the job was submitted with --export=NONE, which
//     Slurm passes on to every srun step as SLURM_EXPORT_ENV=NONE; the
//     steps would start with an empty environment (no PATH, no KILN_OUT).
//     With ALL each step has the command's environment.
//   - KILN_CPUS: the CPUs Slurm gave each task (SLURM_CPUS_PER_TASK), when
//     the job asked for them.
//
// Outside a batch job (no SLURM_JOB_ID) it is empty.
func JobEnv(environ []string) []string {
	get := lookup(environ)
	if get("SLURM_JOB_ID") == "" {
		return nil
	}
	env := []string{"SLURM_EXPORT_ENV=ALL"}
	if n, err := strconv.Atoi(get("SLURM_CPUS_PER_TASK")); err == nil && n > 0 {
		env = append(env, "KILN_CPUS="+strconv.Itoa(n))
	}
	return env
}

// LaunchOf asks the cluster where the batch job whose environment is
// environ runs; ok is false outside a batch job.
func (c *Cluster) LaunchOf(ctx context.Context, environ []string) (l Launch, ok bool, err error) {
	get := lookup(environ)
	l.JobID = get("SLURM_JOB_ID")
	if l.JobID == "" {
		return Launch{}, false, nil
	}
	list := get("SLURM_JOB_NODELIST")
	if list == "" {
		list = get("SLURM_NODELIST")
	}
	out, err := c.run(ctx, "scontrol", "show", "hostnames", list)
	if err != nil {
		return Launch{}, true, fmt.Errorf("expanding the job's node list %q: %w", list, err)
	}
	l.Nodes = strings.Fields(out)
	self := get("SLURMD_NODENAME")
	if self == "" && len(l.Nodes) > 0 {
		self = l.Nodes[0]
	}
	l.Nodes = batchFirst(l.Nodes, self)
	if l.Head, err = c.nodeAddr(ctx, self); err != nil {
		return Launch{}, true, err
	}
	if l.Port, err = freePort(); err != nil {
		return Launch{}, true, fmt.Errorf("finding a free port for the job's head: %w", err)
	}
	return l, true, nil
}

// Env are the variables of l: KILN_NODES (space-separated node names, the
// batch host first), KILN_NODE_COUNT, MASTER_ADDR and MASTER_PORT.
func (l Launch) Env() []string {
	return []string{
		"KILN_NODES=" + strings.Join(l.Nodes, " "),
		"KILN_NODE_COUNT=" + strconv.Itoa(len(l.Nodes)),
		"MASTER_ADDR=" + l.Head,
		"MASTER_PORT=" + strconv.Itoa(l.Port),
	}
}

// nodeAddr is the address Slurm reaches node at (its NodeAddr).
func (c *Cluster) nodeAddr(ctx context.Context, node string) (string, error) {
	out, err := c.run(ctx, "scontrol", "show", "node", "-o", node)
	if err != nil {
		return "", fmt.Errorf("asking Slurm for the address of %s: %w", node, err)
	}
	for _, f := range strings.Fields(out) {
		if a, ok := strings.CutPrefix(f, "NodeAddr="); ok && a != "" {
			return a, nil
		}
	}
	return "", fmt.Errorf("scontrol show node %s names no NodeAddr", node)
}

func batchFirst(nodes []string, self string) []string {
	out := []string{self}
	for _, n := range nodes {
		if n != self {
			out = append(out, n)
		}
	}
	if len(out) > len(nodes) && len(nodes) > 0 {
		return nodes // self is not one of them: keep Slurm's order
	}
	return out
}

// freePort is a TCP port free on this host, outside the kernel's range of
// ephemeral ports: outgoing connections (srun's own, a test's) take theirs
// from that range, and one could take a port from it between this check
// and the head binding it ("Address already in use" in torchrun). Where
// the range leaves no room below it, any free port will do.
func freePort() (int, error) {
	if ephemeral := ephemeralLow(); ephemeral > lowestHeadPort {
		for range 64 {
			port := lowestHeadPort + rand.IntN(ephemeral-lowestHeadPort)
			if l, err := net.Listen("tcp", ":"+strconv.Itoa(port)); err == nil {
				l.Close()
				return port, nil
			}
		}
	}
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// lowestHeadPort is the lowest port freePort picks: above the well-known
// and the commonly configured ones.
const lowestHeadPort = 20000

// ephemeralLow is the first port of this host's ephemeral range (Linux's
// default, 32768, where it cannot be read).
func ephemeralLow() int {
	b, _ := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if f := strings.Fields(string(b)); len(f) > 0 {
		if low, err := strconv.Atoi(f[0]); err == nil {
			return low
		}
	}
	return 32768
}

func lookup(environ []string) func(string) string {
	return func(name string) string {
		v := ""
		for _, kv := range environ {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
}
