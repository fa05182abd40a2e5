package hash

import (
	"encoding/binary"
	"hash/crc32"
)

// kiln's own binary files (the stat cache, the memo (engine/memo)) end
// in a CRC-32C of everything before it, little-endian, and its journal
// lines carry one in hex: a torn or damaged file is refused whole, never
// read in part.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC is the CRC-32C of b.
func CRC(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// WithCRC appends b's CRC to b.
func WithCRC(b []byte) []byte { return binary.LittleEndian.AppendUint32(b, CRC(b)) }

// CheckCRC returns data without the CRC WithCRC appended; ok is false
// when data is too short or its CRC does not match.
func CheckCRC(data []byte) (body []byte, ok bool) {
	if len(data) < 4 {
		return nil, false
	}
	body = data[:len(data)-4]
	return body, CRC(body) == binary.LittleEndian.Uint32(data[len(data)-4:])
}
