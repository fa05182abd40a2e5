package pyenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// lookupEnv returns the last value of key in env, as exec.Cmd would use it.
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// venvEnv is the environment for processes that run inside the venv: the
// base environment with the venv activated (VIRTUAL_ENV, its bin first on
// PATH), pip kept from asking questions, reading configuration files and
// checking its own version online, then extra (a step's env) on top.
func venvEnv(base []string, venv string, extra [][2]string) []string {
	env := append([]string(nil), base...)
	path := filepath.Join(venv, "bin")
	if p, ok := lookupEnv(base, "PATH"); ok && p != "" {
		path += string(os.PathListSeparator) + p
	}
	env = append(env, "VIRTUAL_ENV="+venv, "PATH="+path, "PIP_DISABLE_PIP_VERSION_CHECK=1")
	if _, ok := lookupEnv(base, "PIP_CONFIG_FILE"); !ok {
		// pip.conf of the machine would change what gets installed without
		// entering the node's key; index settings belong in the node.
		env = append(env, "PIP_CONFIG_FILE="+os.DevNull)
	}
	for _, kv := range extra {
		env = append(env, kv[0]+"="+kv[1])
	}
	return append(env, "PIP_NO_INPUT=1")
}

// findInterpreter resolves the python attribute: a path (absolute, or with a
// slash and relative to the pipeline folder) or a name searched on the PATH
// of env, not of kiln's own environment.
func findInterpreter(python string, env []string, root string) (string, error) {
	if strings.ContainsRune(python, '/') {
		p := python
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		if err := executable(p); err != nil {
			return "", fmt.Errorf("python = %q: %w; point it at an installed interpreter", python, err)
		}
		return p, nil
	}
	path, _ := lookupEnv(env, "PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, python)
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("python = %q: no such executable on PATH %q; install it, add its folder to PATH (a toolchain node can), or give an absolute path", python, path)
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", p)
	}
	return nil
}

// resolve makes a path from the configuration absolute against the
// pipeline folder.
func resolve(root, p string) string {
	if filepath.IsAbs(p) || root == "" {
		return p
	}
	return filepath.Join(root, p)
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool {
	if dir == "" {
		return false
	}
	p, dir = filepath.Clean(p), filepath.Clean(dir)
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}
