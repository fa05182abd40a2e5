package state

import (
	"encoding/json"
	"strconv"
	"time"
)

// decodeRecord decodes one record of a snapshot: by hand for the fields a
// record mostly holds, a value of any other field and any record it does
// not expect (an unknown or differently spelled key, a null, escapes in a
// time) by encoding/json, which then decodes the whole record as it always
// did. Records are most of a state file and the plan after an edit reads
// them all; encoding/json took three times as long. The record's strings
// share b's bytes (newScanShared): b must not change afterwards.
func decodeRecord(b []byte, r *Record) error {
	if decodeFields(b, r) == nil {
		return nil
	}
	*r = Record{}
	return json.Unmarshal(b, r)
}

func decodeFields(b []byte, r *Record) error {
	s := newScanShared(b)
	if !s.next('{') {
		return errScan
	}
	for first := true; !s.next('}'); first = false {
		if !first && !s.next(',') {
			return errScan
		}
		key, err := s.str()
		if err != nil || !s.next(':') {
			return errScan
		}
		if err := r.decodeField(s, key); err != nil {
			return err
		}
	}
	if !s.end() {
		return errScan
	}
	return nil
}

func (r *Record) decodeField(s *scan, key string) error {
	if field := r.stringField(key); field != nil {
		v, err := s.str()
		*field = v
		return err
	}
	var err error
	switch key {
	case "key_lines":
		r.KeyLines, err = s.lines()
	case "started":
		var raw []byte
		if raw, err = s.value(); err == nil {
			err = r.Started.UnmarshalJSON(raw)
		}
	case "duration_ns":
		var n string
		if n, err = s.number(); err == nil {
			var d int64
			d, err = strconv.ParseInt(n, 10, 64)
			r.Duration = time.Duration(d)
		}
	case "refs_scanned":
		switch {
		case s.literal("true"):
			r.RefsScanned = true
		case s.literal("false"):
			r.RefsScanned = false
		default:
			err = errScan
		}
	case "attrs":
		r.Attrs, err = s.stringMap()
	case "vars":
		r.Vars, err = s.stringMap()
	case "refs":
		r.Refs, err = s.strings()
	case "outputs", "resources", "devices", "segments", "failure":
		var raw []byte
		if raw, err = s.value(); err == nil {
			err = json.Unmarshal(raw, r.otherField(key))
		}
	default:
		err = errScan
	}
	return err
}

// stringField is the string field named key, nil for another.
func (r *Record) stringField(key string) *string {
	switch key {
	case "addr":
		return &r.Addr
	case "kind":
		return &r.Kind
	case "key":
		return &r.Key
	case "digest":
		return &r.Digest
	case "entry":
		return &r.Entry
	case "log":
		return &r.Log
	case "host":
		return &r.Host
	case "kiln_version":
		return &r.KilnVersion
	case "file":
		return &r.File
	}
	return nil
}

// otherField is the field named key that encoding/json decodes.
func (r *Record) otherField(key string) any {
	switch key {
	case "outputs":
		return &r.Outputs
	case "resources":
		return &r.Resources
	case "devices":
		return &r.Devices
	case "segments":
		return &r.Segments
	}
	return &r.Failure
}

// stringMap reads an object of strings.
func (s *scan) stringMap() (map[string]string, error) {
	if !s.next('{') {
		return nil, errScan
	}
	m := map[string]string{}
	for first := true; !s.next('}'); first = false {
		if !first && !s.next(',') {
			return nil, errScan
		}
		k, err := s.str()
		if err != nil || !s.next(':') {
			return nil, errScan
		}
		if m[k], err = s.str(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// strings reads an array of strings.
func (s *scan) strings() ([]string, error) {
	if !s.next('[') {
		return nil, errScan
	}
	out := []string{}
	for first := true; !s.next(']'); first = false {
		if !first && !s.next(',') {
			return nil, errScan
		}
		v, err := s.str()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
