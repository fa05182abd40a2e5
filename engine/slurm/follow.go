package slurm

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// Follow copies what a job appends to its output file to a writer, a
// piece at a time: each Copy sends the bytes written since the last one.
// A file that does not exist yet (the job pends) is not an error.
type Follow struct {
	Path string
	off  int64
}

// Copy writes the new bytes of the file to w.
func (f *Follow) Copy(w io.Writer) error {
	file, err := os.Open(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer file.Close()
	if fi, err := file.Stat(); err == nil && fi.Size() < f.off {
		f.off = 0 // truncated: a requeued job starts its file anew
	}
	if _, err := file.Seek(f.off, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(w, file)
	f.off += n
	return err
}
