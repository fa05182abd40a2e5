package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/kilnbuild/kiln/engine/remotecache"
)

func cacheFlags() (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("cache", flag.ContinueOnError)
	out := fs.String("out", "", "keygen: the file to write the secret key to (default NAME.key)")
	return fs, out
}

func init() {
	flagSets["cache"] = func() *flag.FlagSet { fs, _ := cacheFlags(); return fs }
	register(&command{name: "cache", summary: "make and read the keys that sign remote cache records",
		usage: "kiln cache keygen [-out FILE] NAME\nkiln cache pubkey FILE", run: runCache})
}

// runCache makes a signing key (keygen: the secret key to a file only its
// owner reads, the public key, for trusted_keys, on stdout) or prints the
// public key of a secret key file (pubkey).
func runCache(c *cli, args []string) int {
	fs, out := cacheFlags()
	pos, err := parse(fs, args)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln cache:", err)
		return 1
	}
	switch {
	case len(pos) == 2 && pos[0] == "keygen":
		return c.cacheKeygen(pos[1], *out)
	case len(pos) == 2 && pos[0] == "pubkey" && *out == "":
		k, err := remotecache.LoadSigningKey(pos[1])
		if err != nil {
			fmt.Fprintln(c.stderr, "kiln cache pubkey:", err)
			return 1
		}
		fmt.Fprintln(c.stdout, k.Public())
		return 0
	}
	fmt.Fprintln(c.stderr, "kiln cache: use kiln cache keygen [-out FILE] NAME, or kiln cache pubkey FILE")
	return 1
}

func (c *cli) cacheKeygen(name, out string) int {
	k, err := remotecache.GenerateKey(name)
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln cache keygen:", err)
		return 1
	}
	if out == "" {
		out = name + ".key"
	}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		fmt.Fprintf(c.stderr, "kiln cache keygen: %s exists; kiln never writes over a key (remove it, or give -out)\n", out)
		return 1
	}
	if err == nil {
		_, err = fmt.Fprintln(f, k)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintln(c.stderr, "kiln cache keygen:", err)
		return 1
	}
	fmt.Fprintf(c.stderr, "kiln: wrote the secret key to %s (keep it on the hosts that push, as KILN_CACHE_SIGNING_KEY); its public key, for trusted_keys:\n", out)
	fmt.Fprintln(c.stdout, k.Public())
	return 0
}
