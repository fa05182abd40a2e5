package render

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/run"
)

// outsideShown bounds the files outside the pipeline folder a trace lists
// by name; the trace file beside the log has them all.
const outsideShown = 12

// Traces writes what each traced run (kiln apply -trace) read and ran:
// the undeclared files inside the pipeline folder first, with the inputs
// line that declares them, then the rest.
func Traces(w io.Writer, res *run.Result, root string) {
	for _, n := range res.Nodes {
		switch t := n.Trace; {
		case t == nil:
		case t.Reported:
			reportedReads(w, t)
		default:
			traceText(w, t, root)
		}
	}
}

// reportedReads says what a node with sandbox = "report" read in the
// pipeline folder without declaring it, and nothing when it read nothing
// so.
func reportedReads(w io.Writer, t *run.TraceReport) {
	switch {
	case t.Err != nil:
		fmt.Fprintf(w, "\n%s (sandbox = \"report\"): its reads were not traced: %v\n", t.Addr, t.Err)
	case len(t.Undeclared) > 0:
		fmt.Fprintf(w, "\n%s (sandbox = \"report\") read %s in the pipeline folder that it does not declare: %s\n  declare them, so that a change to one reruns the node, then seal it (remove sandbox = \"report\"):\n    %s\n",
			t.Addr, human.Count(len(t.Undeclared), "file"), strings.Join(t.Undeclared, ", "), t.Suggestion())
	}
}

func traceText(w io.Writer, t *run.TraceReport, root string) {
	fmt.Fprintf(w, "\nTrace of %s:\n", t.Addr)
	if t.Err != nil {
		fmt.Fprintf(w, "  no trace: %v\n", t.Err)
		return
	}
	if len(t.Undeclared) > 0 {
		fmt.Fprintf(w, "  read %s in the pipeline folder that it does not declare:\n", human.Count(len(t.Undeclared), "file"))
		for _, p := range t.Undeclared {
			fmt.Fprintf(w, "    %s\n", p)
		}
		fmt.Fprintf(w, "  declare them, so that a change to one reruns the node:\n    %s\n", t.Suggestion())
	} else {
		fmt.Fprintln(w, "  read nothing in the pipeline folder that it does not declare")
	}
	if len(t.Declared) > 0 {
		fmt.Fprintf(w, "  read %s of its inputs\n", human.Count(len(t.Declared), "file"))
	}
	if len(t.Upstream) > 0 {
		var parts []string
		for _, a := range slices.Sorted(maps.Keys(t.Upstream)) {
			parts = append(parts, fmt.Sprintf("%s (%s)", a, human.Count(t.Upstream[a], "file")))
		}
		fmt.Fprintf(w, "  read the results of %s\n", strings.Join(parts, ", "))
	}
	var system, other []string
	for _, p := range t.Outside {
		if isSystem(p) {
			system = append(system, p)
		} else {
			other = append(other, p)
		}
	}
	if len(other) > 0 {
		fmt.Fprintf(w, "  read %s outside the pipeline folder (data sets, caches: a change to one reruns nothing):\n", human.Count(len(other), "file"))
		for i, p := range other {
			if i == outsideShown {
				fmt.Fprintf(w, "    ... and %d more\n", len(other)-outsideShown)
				break
			}
			fmt.Fprintf(w, "    %s\n", p)
		}
	}
	if len(system) > 0 {
		fmt.Fprintf(w, "  read %s of the system (%s)\n", human.Count(len(system), "file"), strings.Join(systemFolders, ", "))
	}
	if len(t.Programs) > 0 {
		fmt.Fprintf(w, "  ran %s\n", strings.Join(t.Programs, ", "))
	}
	if len(t.Written) > 0 {
		fmt.Fprintf(w, "  wrote outside its result: %s\n", strings.Join(t.Written, ", "))
	}
	if t.Log != "" {
		rel, err := filepath.Rel(root, t.Log)
		if err != nil {
			rel = t.Log
		}
		fmt.Fprintf(w, "  every call: %s\n", rel)
	}
}

// systemFolders hold the files of the system itself: libraries, locales,
// configuration, kernel views.
var systemFolders = []string{"/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev"}

func isSystem(p string) bool {
	for _, f := range systemFolders {
		if p == f || strings.HasPrefix(p, f+"/") {
			return true
		}
	}
	return false
}
