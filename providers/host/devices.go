package host

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kilnbuild/kiln/engine/pool"
)

// readDevices finds the NPU devices, by the ids ASCEND_RT_VISIBLE_DEVICES
// takes, and leaves out those on a card npu-smi reports unhealthy.
//
// Ids are the chips' logic ids from `npu-smi info -m` (NPU ID, Chip ID,
// Chip Logic ID, Chip Name; an Mcu row has "-" and is not a device): on a
// 910B card with one chip the logic id is the card's NPU ID, on a two-die
// card or in a container with some cards they differ. When -m fails, the
// NPU IDs of `npu-smi info -l` stand in. Health is the Health column of the
// card rows of the `npu-smi info` table; anything but OK excludes the
// card's devices. When the table cannot be read the devices are kept and
// the fact devices.reason says health is unknown.
func (h *Host) readDevices(ctx context.Context, path, list string, f *facts) {
	byCard, err := h.logicIDs(ctx, path)
	if err != nil {
		byCard = map[int][]int{}
		for _, card := range listedCards(list) {
			byCard[card] = []int{card}
		}
	}
	health, herr := h.health(ctx, path)
	var usable []int
	for _, card := range slices.Sorted(maps.Keys(byCard)) {
		state, known := health[card]
		for _, id := range byCard[card] {
			if known && state != "OK" {
				f.Excluded = append(f.Excluded, pool.Exclusion{ID: id, Why: "health " + state})
				continue
			}
			usable = append(usable, id)
		}
	}
	slices.SortFunc(f.Excluded, func(a, b pool.Exclusion) int { return a.ID - b.ID })
	ids, derr := pool.NewIDs(usable...)
	switch {
	case derr != nil:
		f.Excluded = nil
		f.Reasons["devices"] = fmt.Sprintf("npu-smi listed device ids kiln cannot use: %v", derr)
		return
	case herr != nil:
		f.Reasons["devices"] = "health unknown: " + herr.Error()
	}
	f.Devices = ids
}

var cardID = regexp.MustCompile(`(?m)^\s*NPU ID\s*:\s*(\d+)\s*$`)

// listedCards are the NPU IDs of `npu-smi info -l`.
func listedCards(list string) []int {
	var out []int
	for _, m := range cardID.FindAllStringSubmatch(list, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// logicIDs reads `npu-smi info -m`: the logic ids of each card's chips.
func (h *Host) logicIDs(ctx context.Context, path string) (map[int][]int, error) {
	out, err := h.npuSmi(ctx, path, "info", "-m")
	if err != nil {
		return nil, err
	}
	byCard := map[int][]int{}
	for line := range strings.Lines(out) {
		fields := strings.Fields(line)
		if len(fields) < 3 {
			continue
		}
		card, err1 := strconv.Atoi(fields[0])
		_, err2 := strconv.Atoi(fields[1])
		logic, err3 := strconv.Atoi(fields[2])
		if err1 != nil || err2 != nil || err3 != nil {
			continue // the header, or a chip that is not a device (Mcu: "-")
		}
		byCard[card] = append(byCard[card], logic)
	}
	if len(byCard) == 0 {
		return nil, fmt.Errorf("`%s info -m` listed no chips", path)
	}
	return byCard, nil
}

var healthWord = regexp.MustCompile(`^[A-Za-z]+$`)

// health reads the card rows of the `npu-smi info` table, "| 0  910B3 | OK
// | ...", up to the process table: NPU ID → Health.
func (h *Host) health(ctx context.Context, path string) (map[int]string, error) {
	out, err := h.npuSmi(ctx, path, "info")
	if err != nil {
		return nil, err
	}
	health := map[int]string{}
	for line := range strings.Lines(out) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 4 {
			continue
		}
		if strings.Contains(cells[2], "Process id") {
			break
		}
		first, state := strings.Fields(cells[1]), strings.TrimSpace(cells[2])
		if len(first) < 2 || !healthWord.MatchString(state) {
			continue // a chip row (its second cell is a bus id) or a header
		}
		if card, err := strconv.Atoi(first[0]); err == nil {
			health[card] = state
		}
	}
	if len(health) == 0 {
		return nil, fmt.Errorf("`%s info` showed no NPU rows with a Health column", path)
	}
	return health, nil
}
