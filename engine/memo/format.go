package memo

import (
	"encoding/binary"
	"errors"
	"maps"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/kilnbuild/kiln/engine/config"
	"github.com/kilnbuild/kiln/engine/hash"
)

// The memo is read by every no-op plan, so it is a plain binary encoding
// rather than gob, whose decoding of 100,000 nodes cost a fifth of such a
// plan: the format string, then every field in order —
// strings and counts as uvarints (a string's length, then its bytes),
// stamps as five little-endian uint64s, digests as their 32 bytes, flags
// as one byte — and a CRC-32C
// of all of it. Decoding allocates one string for the whole file and
// slices every string out of it. A file that does not decode exactly
// (short, long, a bad checksum, another format) is no memo.

var errMemo = errors.New("not a memo of this format")

// A writer appends the encoding to b or, sizing, only counts its bytes in
// n. encode sizes the file first and makes its buffer once: a buffer of
// megabytes grown by append allocates several times its size, and the
// memo is written at an apply's end, where its peak memory is.
type writer struct {
	b      []byte
	n      int
	sizing bool
}

func (w *writer) uint(v uint64) {
	if w.sizing {
		w.n += (bits.Len64(v|1) + 6) / 7
		return
	}
	w.b = binary.AppendUvarint(w.b, v)
}

func (w *writer) raw(s string) {
	if w.sizing {
		w.n += len(s)
		return
	}
	w.b = append(w.b, s...)
}

func (w *writer) str(s string) { w.uint(uint64(len(s))); w.raw(s) }

func (w *writer) byte(c byte) {
	if w.sizing {
		w.n++
		return
	}
	w.b = append(w.b, c)
}

func (w *writer) flag(v bool) {
	if v {
		w.byte(1)
	} else {
		w.byte(0)
	}
}

func (w *writer) stamp(s hash.Stamp) {
	if w.sizing {
		w.n += 5 * 8
		return
	}
	for _, v := range [...]uint64{s.Dev, s.Ino, uint64(s.Size), uint64(s.Mtime), uint64(s.Ctime)} {
		w.b = binary.LittleEndian.AppendUint64(w.b, v)
	}
}

func (w *writer) strs(ss []string) {
	w.uint(uint64(len(ss)))
	for _, s := range ss {
		w.str(s)
	}
}

func (w *writer) files(fs []File) {
	w.uint(uint64(len(fs)))
	for _, f := range fs {
		w.str(f.Path)
		w.str(f.Digest)
	}
}

func (w *writer) stamps(ss []hash.Stamp) {
	w.uint(uint64(len(ss)))
	for _, s := range ss {
		w.stamp(s)
	}
}

// encode returns the file content of c; false when c holds what the
// format does not keep (a listing entry with a size, mode or digest).
func encode(c *Memo) ([]byte, bool) {
	size := &writer{sizing: true}
	if !size.memo(c) {
		return nil, false
	}
	w := &writer{b: make([]byte, 0, size.n+4)} // and the CRC
	w.memo(c)
	return hash.WithCRC(w.b), true
}

// memo writes c; false when c holds what the format does not keep.
func (w *writer) memo(c *Memo) bool {
	w.str(c.Format)
	w.str(c.Config)
	w.str(c.Shared)
	w.str(c.Lineage)
	w.uint(c.Serial)
	w.stamp(c.State)
	w.uint(uint64(len(c.Reads)))
	for _, r := range c.Reads {
		w.str(r.Path)
		w.str(r.What)
		w.str(r.Seen)
		w.str(r.Pattern)
	}
	w.files(c.Env)
	w.uint(uint64(len(c.Sources)))
	for _, src := range c.Sources {
		w.str(src.Path)
		w.raw(string(src.Digest[:]))
		w.stamp(src.Stamp)
	}
	w.flag(c.Links != nil)
	if c.Links != nil {
		w.stamp(*c.Links)
	}
	w.str(c.Replans)
	w.uint(uint64(len(c.Order)))
	for _, v := range c.Order {
		w.uint(uint64(v))
	}
	w.uint(uint64(len(c.Nodes)))
	for _, n := range c.Nodes {
		w.str(n.Addr)
		w.str(n.Kind)
		w.str(n.Config)
		w.str(n.Full)
		w.str(n.Value)
		w.uint(uint64(len(n.Exports)))
		for _, e := range n.Exports {
			w.str(e.Name)
			w.str(e.Type)
			w.str(e.Value)
		}
		w.str(n.Link)
		w.str(n.Entry)
		w.str(n.Digest)
		w.files(n.Inputs)
		w.uint(uint64(n.KeyFiles))
		w.uint(uint64(len(n.Globs)))
		for _, g := range n.Globs {
			w.str(g.Pattern)
			w.strs(g.Matches)
		}
		w.strs(n.Outputs)
		w.uint(uint64(len(n.Programs)))
		for _, p := range n.Programs {
			w.str(p.Name)
			w.str(p.Dir)
			w.str(p.Path)
			w.str(p.Line)
		}
		w.flag(n.Listing != nil)
		if l := n.Listing; l != nil {
			w.stamp(hash.Stamp{Dev: l.Dev, Ino: l.Ino, Size: l.Size, Mtime: l.Mtime, Ctime: l.Ctime})
			w.uint(uint64(len(l.Entries)))
			for _, e := range l.Entries {
				if e.Exec || e.Size != 0 || e.Digest != (hash.Digest{}) || !listedKind(e.Kind) {
					return false
				}
				w.str(e.Path)
				w.byte(e.Kind)
				w.str(e.Target)
			}
		}
		w.flag(n.Sealed)
		w.stamps(n.Seal)
		w.stamps(n.InputSeals)
		w.uint(uint64(len(n.Deps)))
		for _, d := range n.Deps {
			w.uint(uint64(d))
		}
		w.uint(uint64(len(n.Resources)))
		for _, name := range slices.Sorted(maps.Keys(n.Resources)) {
			w.str(name)
			w.uint(uint64(n.Resources[name]))
		}
		w.flag(n.Resumable)
		w.flag(n.Rekeyable)
	}
	return true
}

type reader struct {
	s   string // the whole body: strings are sliced out of it
	off int
	err error
}

func (r *reader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	// binary.Uvarint on a string without copying it.
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.off >= len(r.s) {
			break
		}
		b := r.s[r.off]
		r.off++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			if b == 0 && shift > 0 || shift == 63 && b > 1 {
				break // not as binary.AppendUvarint writes it
			}
			return v
		}
	}
	r.err = errMemo
	return 0
}

// count reads a count of items of at least min bytes each, refusing one
// the rest of the file cannot hold.
func (r *reader) count(min int) int {
	n := r.uint()
	if r.err == nil && n > uint64((len(r.s)-r.off)/min) {
		r.err = errMemo
		return 0
	}
	return int(n)
}

// index reads a node index.
func (r *reader) index() int32 {
	v := r.uint()
	if v > 1<<31-1 {
		r.err = errMemo
		return 0
	}
	return int32(v)
}

func (r *reader) str() string {
	n := r.count(1)
	if r.err != nil {
		return ""
	}
	s := r.s[r.off : r.off+n]
	r.off += n
	return s
}

// bytes reads n raw bytes (a digest); nil after an error.
func (r *reader) bytes(n int) string {
	if r.err != nil || len(r.s)-r.off < n {
		r.err = errMemo
		return ""
	}
	s := r.s[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) byte() byte {
	if r.err != nil || r.off >= len(r.s) {
		r.err = errMemo
		return 0
	}
	b := r.s[r.off]
	r.off++
	return b
}

func (r *reader) flag() bool {
	switch r.byte() {
	case 0:
		return false
	case 1:
		return true
	}
	r.err = errMemo
	return false
}

func (r *reader) u64() uint64 {
	if r.err != nil || len(r.s)-r.off < 8 {
		r.err = errMemo
		return 0
	}
	s := r.s[r.off : r.off+8]
	r.off += 8
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func (r *reader) stamp() hash.Stamp {
	return hash.Stamp{Dev: r.u64(), Ino: r.u64(), Size: int64(r.u64()), Mtime: int64(r.u64()), Ctime: int64(r.u64())}
}

func (r *reader) strs() []string {
	n := r.count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

func (r *reader) files() []File {
	n := r.count(2)
	if n == 0 {
		return nil
	}
	out := make([]File, n)
	for i := range out {
		out[i] = File{Path: r.str(), Digest: r.str()}
	}
	return out
}

func (r *reader) stamps() []hash.Stamp {
	n := r.count(40)
	if n == 0 {
		return nil
	}
	out := make([]hash.Stamp, n)
	for i := range out {
		out[i] = r.stamp()
	}
	return out
}

// decode parses a memo written by encode for this format of kiln; false
// for anything else.
func decode(data []byte) (*Memo, bool) {
	body, ok := hash.CheckCRC(data)
	if !ok || len(body) == 0 {
		return nil, false
	}
	// The format first, before allocating anything for the rest.
	head := &reader{s: string(body[:min(len(body), 64)])}
	if head.str() != Format || head.err != nil {
		return nil, false
	}
	// The strings of the memo are slices of the file's bytes,
	// which are never written to again.
	r := &reader{s: unsafe.String(&body[0], len(body))}
	c := &Memo{Format: r.str(), Config: r.str(), Shared: r.str(), Lineage: r.str(), Serial: r.uint(), State: r.stamp()}
	if n := r.count(4); n > 0 {
		c.Reads = make([]config.FileRead, n)
		for i := range c.Reads {
			c.Reads[i] = config.FileRead{Path: r.str(), What: r.str(), Seen: r.str(), Pattern: r.str()}
		}
	}
	c.Env = r.files()
	if n := r.count(1 + 32 + 40); n > 0 {
		c.Sources = make([]Source, n)
		for i := range c.Sources {
			src := &c.Sources[i]
			src.Path = r.str()
			copy(src.Digest[:], r.bytes(len(src.Digest)))
			src.Stamp = r.stamp()
		}
	}
	if r.flag() {
		s := r.stamp()
		c.Links = &s
	}
	c.Replans = r.str()
	if n := r.count(1); n > 0 {
		c.Order = make([]int32, n)
		for i := range c.Order {
			c.Order[i] = r.index()
		}
	}
	n := r.count(16)
	c.Nodes = make([]Node, n)
	// One array for the nodes' listings, the most common pointer.
	listings := make([]hash.Listing, 0, n)
	for i := range c.Nodes {
		if !r.node(&c.Nodes[i], &listings) {
			return nil, false
		}
	}
	if !indexesHold(c) {
		return nil, false
	}
	if r.err != nil || r.off != len(r.s) {
		return nil, false
	}
	return c, true
}

// node reads one node of the memo into q, its listing into listings.
func (r *reader) node(q *Node, listings *[]hash.Listing) bool {
	q.Addr, q.Kind, q.Config, q.Full, q.Value = r.str(), r.str(), r.str(), r.str(), r.str()
	if k := r.count(3); k > 0 {
		q.Exports = make([]Export, k)
		for j := range q.Exports {
			q.Exports[j] = Export{Name: r.str(), Type: r.str(), Value: r.str()}
		}
	}
	q.Link, q.Entry, q.Digest = r.str(), r.str(), r.str()
	q.Inputs = r.files()
	k := r.uint()
	if k > uint64(len(q.Inputs)) {
		return false
	}
	q.KeyFiles = int(k)
	if k := r.count(2); k > 0 {
		q.Globs = make([]Glob, k)
		for j := range q.Globs {
			q.Globs[j] = Glob{Pattern: r.str(), Matches: r.strs()}
		}
	}
	q.Outputs = r.strs()
	if k := r.count(4); k > 0 {
		q.Programs = make([]Program, k)
		for j := range q.Programs {
			q.Programs[j] = Program{Name: r.str(), Dir: r.str(), Path: r.str(), Line: r.str()}
		}
	}
	if r.flag() {
		s := r.stamp()
		*listings = append(*listings, hash.Listing{Dev: s.Dev, Ino: s.Ino, Size: s.Size, Mtime: s.Mtime, Ctime: s.Ctime})
		l := &(*listings)[len(*listings)-1]
		if k := r.count(3); k > 0 {
			l.Entries = make([]hash.Entry, k)
			for j := range l.Entries {
				l.Entries[j] = hash.Entry{Path: r.str(), Kind: r.byte(), Target: r.str()}
				if !listedKind(l.Entries[j].Kind) {
					return false
				}
			}
		}
		q.Listing = l
	}
	q.Sealed = r.flag()
	q.Seal = r.stamps()
	q.InputSeals = r.stamps()
	if k := r.count(1); k > 0 {
		q.Deps = make([]int32, k)
		for j := range q.Deps {
			q.Deps[j] = r.index()
		}
	}
	if k := r.count(2); k > 0 {
		q.Resources = make(map[string]int64, k)
		for range k {
			q.Resources[r.str()] = int64(r.uint())
		}
	}
	q.Resumable, q.Rekeyable = r.flag(), r.flag()
	return r.err == nil
}

// indexesHold reports whether every node index in m (its order, each
// node's upstreams) names one of its nodes.
func indexesHold(m *Memo) bool {
	for _, v := range m.Order {
		if int(v) >= len(m.Nodes) {
			return false
		}
	}
	for _, q := range m.Nodes {
		for _, d := range q.Deps {
			if int(d) >= len(m.Nodes) {
				return false
			}
		}
	}
	return true
}

// listedKind: a listing holds files, symlinks and (never, as ListFolder
// refuses them) folders.
func listedKind(k byte) bool { return k == 'f' || k == 'l' || k == 'd' }
