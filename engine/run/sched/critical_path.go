package sched

import "math"

// CriticalPath returns, for each task, the length of the longest path from
// it to any sink (a task nothing depends on), counting the task's own weight
// and that of every task on the path. Pass the result as Task.Priority so
// the longest chains start first. A nil weight counts 1 per task; negative
// weights count 0. Out-of-range dependencies are ignored, and a task on or
// behind a cycle gets the best length its acyclic dependents give, or its own
// weight. Sums saturate at math.MaxInt.
func CriticalPath(tasks []Task, weight func(i int) int64) []int {
	n := len(tasks)
	dependents := dependentsOf(tasks)
	length := make([]int64, n)
	unfinished := make([]int, n) // dependents whose length is not known yet
	var queue []int
	for i := range tasks {
		unfinished[i] = len(dependents[i])
		if unfinished[i] == 0 {
			queue = append(queue, i)
		}
	}
	settled := make([]bool, n)
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		settle(i, dependents, settled, length, weight)
		settled[i] = true
		for _, d := range tasks[i].Deps {
			if d < 0 || d >= n {
				continue
			}
			unfinished[d]--
			if unfinished[d] == 0 {
				queue = append(queue, d)
			}
		}
	}
	out := make([]int, n)
	for i := range tasks {
		if !settled[i] {
			settle(i, dependents, settled, length, weight) // on or behind a cycle
		}
		out[i] = int(min(length[i], int64(math.MaxInt)))
	}
	return out
}

// settle sets length[i] from its own weight and the lengths of its settled
// dependents.
func settle(i int, dependents [][]int, settled []bool, length []int64, weight func(int) int64) {
	w := int64(1)
	if weight != nil {
		w = max(weight(i), 0)
	}
	var longest int64
	for _, d := range dependents[i] {
		if settled[d] {
			longest = max(longest, length[d])
		}
	}
	if longest > math.MaxInt64-w {
		length[i] = math.MaxInt64
		return
	}
	length[i] = w + longest
}
