package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/kilnbuild/kiln/engine/hash"
)

// A journal line is "<crc32c of the JSON, 8 hex digits> <JSON>\n": the state
// journal and a run's record (engine/history) are written as such lines, so
// a write torn by a crash is found by its checksum.

// MarshalLine encodes v as a journal line, newline included.
func MarshalLine(v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(body)+10)
	line = fmt.Appendf(line, "%08x ", hash.CRC(body))
	line = append(line, body...)
	return append(line, '\n'), nil
}

// UnmarshalLine checks the checksum of a journal line (without its newline)
// and decodes its JSON into v.
func UnmarshalLine(line []byte, v any) error {
	if len(line) < 10 || line[8] != ' ' {
		return errors.New("no checksum")
	}
	want, err := strconv.ParseUint(string(line[:8]), 16, 32)
	if err != nil {
		return errors.New("malformed checksum")
	}
	body := line[9:]
	if hash.CRC(body) != uint32(want) {
		return errors.New("checksum mismatch")
	}
	return json.Unmarshal(body, v)
}
