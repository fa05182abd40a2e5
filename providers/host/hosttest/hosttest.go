// Package hosttest makes a fake npu-smi for tests: a shell script that
// answers `npu-smi info -l`, `info -m` and `info` the way the real one does
// on an Ascend host, with the cards and health a test asks for.
package hosttest

import (
	"fmt"
	"strings"
)

// NPUSmi is a fake npu-smi, a shell script, for an Atlas 800T A2 with n
// 910B3 cards (NPU IDs 0..n-1), one chip each, answering `info -l`,
// `info -m` and `info` as the real one prints them (npu-smi 24.1). health
// gives a card's Health column (default OK).
func NPUSmi(n int, health map[int]string) string {
	cards := make([]int, n)
	for i := range cards {
		cards[i] = i
	}
	return NPUSmiCards(cards, health, nil)
}

// NPUSmiCards is NPUSmi for the cards with these NPU IDs; logic, when set,
// gives a card's Chip Logic ID (default: its NPU ID), as in a container
// that holds cards 4-7, whose chips are its devices 0-3.
func NPUSmiCards(cards []int, health map[int]string, logic map[int]int) string {
	n := len(cards)
	var list, chips, table strings.Builder
	fmt.Fprintf(&list, "\tTotal Count                    : %d\n\n", n)
	chips.WriteString("\tNPU ID                         Chip ID                        Chip Logic ID                  Chip Name                     \n")
	table.WriteString("+------------------------------------------------------------------------------------------------+\n")
	table.WriteString("| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |\n")
	table.WriteString("+---------------------------+---------------+----------------------------------------------------+\n")
	table.WriteString("| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n")
	table.WriteString("| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n")
	table.WriteString("+===========================+===============+====================================================+\n")
	for _, card := range cards {
		fmt.Fprintf(&list, "\tNPU ID                         : %d\n\tProduct Name                   : IT21PMAB\n\tSerial Number                  : 033GPN10N90001%02d\n\tChip Count                     : 1\n\n", card, card)
		id, ok := logic[card]
		if !ok {
			id = card
		}
		fmt.Fprintf(&chips, "\t%-31d0                              %-31dAscend 910B3\n", card, id)
		fmt.Fprintf(&chips, "\t%-31d1                              -                              Mcu                           \n", card)
		state := health[card]
		if state == "" {
			state = "OK"
		}
		fmt.Fprintf(&table, "| %-5d 910B3               | %-13s | 88.9        39                0    / 0             |\n", card, state)
		fmt.Fprintf(&table, "| 0                         | 0000:%02X:00.0  | 0           0    / 0          2858 / 65536         |\n", 0xC1+card)
		table.WriteString("+===========================+===============+====================================================+\n")
	}
	table.WriteString("+---------------------------+---------------+----------------------------------------------------+\n")
	table.WriteString("| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |\n")
	table.WriteString("+===========================+===============+====================================================+\n")
	for _, card := range cards {
		fmt.Fprintf(&table, "| No running processes found in NPU %-61d|\n", card)
		table.WriteString("+===========================+===============+====================================================+\n")
	}
	return "#!/bin/sh\ncase \"$*\" in\n" +
		"\"info -l\") cat <<'OUT'\n" + list.String() + "OUT\n;;\n" +
		"\"info -m\") cat <<'OUT'\n" + chips.String() + "OUT\n;;\n" +
		"info) cat <<'OUT'\n" + table.String() + "OUT\n;;\n" +
		"*) echo \"usage: npu-smi info [-l|-m]\" >&2; exit 2;;\nesac\n"
}
