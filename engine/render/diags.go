package render

import (
	"io"

	"github.com/hashicorp/hcl/v2"
)

// Diagnostics writes diagnostics with file, line, column and the source
// snippet, wrapped to width (0: no wrapping).
func Diagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, width uint, colour bool) {
	if len(diags) == 0 {
		return
	}
	dw := hcl.NewDiagnosticTextWriter(w, files, width, colour)
	_ = dw.WriteDiagnostics(diags)
}
