package service

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The test binary doubles as the service under test: run with helperEnv set
// it becomes a small SandboxFusion-shaped HTTP server (GET /v1/ping, POST
// /run_code running python3 -c), or misbehaves as the mode says.
const helperEnv = "KILN_SERVICE_HELPER"

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	os.Exit(runHelper(mode))
}

func runHelper(mode string) int {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, `fatal: sandbox config "missing" not found`)
		return 3
	case "unready":
		for i := 1; i <= 30; i++ {
			fmt.Fprintf(os.Stderr, "loading shard %02d/30\n", i)
		}
	case "serve":
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		return 2
	}
	if pidFile := os.Getenv("HELPER_CHILD_PIDFILE"); pidFile != "" {
		child := exec.Command("sleep", "300") // stays in the service's process group
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := os.WriteFile(pidFile, []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("HELPER_PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/ping", func(w http.ResponseWriter, r *http.Request) {
		if mode == "unready" {
			http.Error(w, "warming up", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, `"pong"`)
	})
	mux.HandleFunc("POST /run_code", runCode)
	fmt.Println("listening on", ln.Addr())
	fmt.Fprintln(os.Stderr, http.Serve(ln, mux))
	return 1
}

// runCode answers like SandboxFusion's POST /run_code.
func runCode(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Code     string `json:"code"`
		Language string `json:"language"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Language != "python" {
		http.Error(w, "bad request", http.StatusUnprocessableEntity)
		return
	}
	var stdout, stderr strings.Builder
	cmd := exec.Command(os.Getenv("HELPER_PYTHON"), "-c", req.Code)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	status, runStatus := "Success", "Finished"
	if runErr != nil {
		status = "Failed"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"status":         status,
		"message":        "",
		"compile_result": nil,
		"run_result": map[string]any{
			"status":         runStatus,
			"execution_time": 0.01,
			"return_code":    cmd.ProcessState.ExitCode(),
			"stdout":         stdout.String(),
			"stderr":         stderr.String(),
		},
		"executor_pod_name": nil,
		"files":             map[string]string{},
	})
}
