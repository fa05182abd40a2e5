package nginxtest

import (
	"bytes"
	"fmt"
	"os"

	"google.golang.org/protobuf/encoding/protowire"
)

// Record returns kiln's JSON record of key as the server holds it: the
// /ac/ entry itself when it is one (as kiln wrote them before), else the
// CAS blob its ActionResult names as kiln/record.json (output_files = 2,
// OutputFile.path = 1, OutputFile.digest = 2, Digest.hash = 1). It is for
// tests that change what a server serves.
func (s *Server) Record(key string) ([]byte, error) {
	b, err := os.ReadFile(s.RecordPath(key))
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(b, []byte("{")) {
		return b, nil
	}
	for _, file := range fieldsOf(b, 2) {
		if path := fieldsOf(file, 1); len(path) == 1 && string(path[0]) == "kiln/record.json" {
			for _, d := range fieldsOf(file, 2) {
				for _, hash := range fieldsOf(d, 1) {
					return os.ReadFile(s.BlobPath(string(hash)))
				}
			}
		}
	}
	return nil, fmt.Errorf("the entry of %s names no kiln/record.json", key)
}

// fieldsOf returns the length-delimited fields numbered num of the
// message b.
func fieldsOf(b []byte, num protowire.Number) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return out
		}
		b = b[l:]
		l = protowire.ConsumeFieldValue(n, typ, b)
		if l < 0 {
			return out
		}
		if n == num && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b)
			out = append(out, v)
		}
		b = b[l:]
	}
	return out
}
