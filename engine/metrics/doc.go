// Package metrics reads training metrics from a node's log lines and keeps
// them per run and step.
//
// A node declares what to read in a metrics block:
//
//	metrics {
//	  format   = "verl"                           // or "jsonl"
//	  patterns = ["iter (?P<step>\\d+) loss (?P<loss>\\S+)"]
//	  keys     = ["critic/*", "actor/entropy"]    // keep only these (globs)
//	}
//
// Formats. "verl" is what verl's console logger prints for each training
// step (verl/utils/logger/aggregate_logger.py, concat_dict_to_str): the line
// "step:N - key:value - key:value ...", each value a Python repr from
// pprint.pformat — ints, floats (nan, inf), booleans, and with numpy 2 the
// repr of a numpy scalar, np.float64(0.5). The line may carry a prefix (Ray
// prints "(TaskRunner pid=123) " before a remote actor's output, in colour
// on a terminal). "jsonl" is one JSON object per line with a numeric "step"
// (or the key named by step = "..."); nested objects flatten to "a/b" keys.
// Each pattern is a regular expression whose named groups are the values;
// a group named step is the step, and without one a pattern's matches are
// numbered 1, 2, 3... Values that do not parse as numbers are left out.
//
// Parsing is line by line, with carriage returns (progress bars) treated as
// line ends, and is cheap for lines that report nothing: a log is scanned
// at several hundred MB/s in bounded memory (a line longer than MaxLine is
// skipped, not buffered). Parsed samples are written one JSON line each
// ({"step":N,"t":unix seconds,"m":{key:value}}) by a Writer and read back
// into per-key series by ReadSeries, which ignores a torn last line, so a
// report can read the file of a node that is still running.
package metrics
