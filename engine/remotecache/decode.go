package remotecache

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/kilnbuild/kiln/engine/human"
)

// maxString bounds one string of a record (a path, a symlink target, an
// attribute's value), so that decoding holds little more than one file
// entry at a time.
const maxString = 64 << 10

// readRecord decodes a record as it arrives, one field and one file entry
// at a time: at most maxRecord bytes, no string longer than maxString.
// Without files, reading stops where the file list starts. Before the file
// list, which kiln writes last, verify (when set) is given the record as
// read so far: an error from it ends the read, so a record no trusted key
// signed costs no more than its first fields, whatever it lists after.
// key is the key asked for, for messages.
func readRecord(r io.Reader, key string, files bool, verify func(*Record) error) (*Record, error) {
	dec := json.NewDecoder(&boundedJSON{r: r, left: maxRecord})
	rec := &Record{}
	fields := map[string]any{
		"format": &rec.Format, "key": &rec.Key, "digest": &rec.Digest, "tree": &rec.Tree,
		"kind": &rec.Kind, "addr": &rec.Addr, "host": &rec.Host, "deterministic": &rec.Deterministic,
		"built": &rec.Built, "attrs": &rec.Attrs, "sigs": &rec.Sigs,
	}
	verified := false
	err := func() error {
		if err := delim(dec, '{'); err != nil {
			return err
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return err
			}
			name, _ := t.(string)
			if verified && fields[name] != nil {
				return fmt.Errorf("field %q follows the file list: a signed record lists its files last", name)
			}
			switch {
			case name == "files":
				rec.clean()
				if verify != nil && rec.Format == "" {
					return &UntrustedError{Key: key, Reason: "its file list comes before the fields its signature covers, where kiln never writes it"}
				}
				if verify != nil {
					if err := verify(rec); err != nil {
						return err
					}
					verified = true
				}
				if !files {
					return nil // the rest, kiln writes nothing after the list, is not read
				}
				if err := readFiles(dec, rec); err != nil {
					return err
				}
			case fields[name] != nil:
				if err := dec.Decode(fields[name]); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			default:
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
			}
		}
		if err := delim(dec, '}'); err != nil {
			return err
		}
		rec.clean()
		if verify != nil && !verified {
			return verify(rec)
		}
		return nil
	}()
	if err != nil {
		var slow *SlowError
		var untrusted *UntrustedError
		if errors.As(err, &slow) || errors.As(err, &untrusted) || errors.Is(err, errTooLarge) || errors.Is(err, errTooManyFiles) || errors.Is(err, errLongString) {
			return nil, err
		}
		return nil, fmt.Errorf("decoding the cache record: %w", err)
	}
	return rec, nil
}

// readFiles reads the file list.
func readFiles(dec *json.Decoder, rec *Record) error {
	if err := delim(dec, '['); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	for n := 0; dec.More(); n++ {
		if n == maxFiles {
			return errTooManyFiles
		}
		var f File
		if err := dec.Decode(&f); err != nil {
			return fmt.Errorf("files: %w", err)
		}
		rec.Files = append(rec.Files, f)
	}
	return delim(dec, ']')
}

func delim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("want %q, found %v", want, t)
	}
	return nil
}

// maxFiles bounds the entries of a record (files, folders and symlinks):
// what kiln holds of a record, and checks, grows with them, not with its
// bytes.
const maxFiles = 30000

var (
	errTooManyFiles = fmt.Errorf("the record lists more than %d files, the most a cache record may", maxFiles)
	errTooLarge     = fmt.Errorf("the record is larger than %s, the most a cache record may be", human.Bytes(maxRecord))
	errLongString   = fmt.Errorf("the record holds a string longer than %s", human.Bytes(maxString))
)

// boundedJSON passes at most left bytes of JSON through, and no string
// longer than maxString: it follows strings and their escapes as the bytes
// go by, so the decoder never buffers more than that of one token.
type boundedJSON struct {
	r        io.Reader
	left     int64
	inString bool
	escaped  bool
	strLen   int
}

func (b *boundedJSON) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more than allowed tells a record at the bound from one
		// beyond it.
		var one [1]byte
		if n, _ := io.ReadFull(b.r, one[:]); n > 0 {
			return 0, errTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	for _, c := range p[:n] {
		switch {
		case !b.inString:
			if c == '"' {
				b.inString, b.strLen = true, 0
			}
		case b.escaped:
			b.escaped = false
			b.strLen++
		case c == '\\':
			b.escaped = true
		case c == '"':
			b.inString = false
		default:
			b.strLen++
		}
		if b.inString && b.strLen > maxString {
			return 0, errLongString
		}
	}
	return n, err
}

// clean keeps of the names a record gives for messages (the host that
// built it, the node's address there) what is printable, at most 255
// bytes, so a record cannot write to the terminal what it likes. A signed
// record whose names were not clean no longer verifies.
func (r *Record) clean() {
	r.Host, r.Addr = printable(r.Host), printable(r.Addr)
}

func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	if len(s) > 255 {
		s = strings.ToValidUTF8(s[:255], "")
	}
	return s
}
