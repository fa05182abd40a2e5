// Package report renders a recorded run (engine/history) for people: one
// self-contained HTML page — a Gantt timeline coloured by action with the
// critical path and queue time, a table of nodes, the DAG as a layered
// SVG, and metric curves per node — or Markdown for a pull request.
//
// The page needs nothing but itself: inline CSS and SVG, no script, no
// font or image from anywhere, so it opens from disk and can be mailed or
// attached. Colours are engine/graph's classes, as kiln graph paints a
// plan. Text from the run (addresses, reasons, errors, metric names) is
// escaped everywhere: as HTML in the page, and in the Markdown through
// render.MarkdownCode and render.MarkdownText, so that a pull request shows
// a for_each key or metric name holding <script> as that text. Output is deterministic for a given run.
//
// Times. A node's queue time runs from when its dependencies in the run had
// all finished (history.Run.Ready) to when the scheduler gave it a slot and
// its resources; its run time from when its command began to when it ended
// (from its turn, for a node that ran no command). Between its turn and its
// command — deciding, hashing inputs, waiting for a run of the same key —
// it is drawn lighter (history.Result.Began is when the command itself
// began); for a node of a batch executor (Slurm) that stretch is its
// submission and its wait in the cluster's queue, drawn as a queue of its
// own and counted in its queued time. The critical path is
// walked back from the node that ended last, each step to the dependency
// that ended last: the chain that decided when the run ended. NPU-hours are
// a node's npu resource times its machines (a Slurm job's nodes) times
// its run time.
//
// Large runs. The timeline and the DAG show every node of runs up to
// maxDrawn nodes; beyond that, only the nodes that did something (ran,
// restored, failed), and say how many they leave out. Curves with more
// points than maxCurvePoints are reduced to the minimum and maximum of each
// pixel column, and their points are drawn only up to maxDots.
package report
