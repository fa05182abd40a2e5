package fetch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kilnbuild/kiln/engine/human"
	"github.com/kilnbuild/kiln/engine/kind"
	"github.com/zclconf/go-cty/cty"
)

// hubListing is the part of the hub's revision API answer fetch reads.
type hubListing struct {
	SHA      string    `json:"sha"`
	Siblings []hubFile `json:"siblings"`
}

type hubFile struct {
	Name   string `json:"rfilename"`
	Size   int64  `json:"size"`
	BlobID string `json:"blobId"` // git blob id, checked for files outside LFS
	LFS    *struct {
		SHA256 string `json:"sha256"`
		Size   int64  `json:"size"`
	} `json:"lfs"`
}

func (f hubFile) size() int64 {
	if f.LFS != nil && f.LFS.Size > 0 {
		return f.LFS.Size
	}
	return f.Size
}

// maxListingBytes bounds the revision API answer.
const maxListingBytes = 64 << 20

// buildHuggingFace downloads the matching files of a hub repo at a pinned
// revision into b.Dir/ORG/NAME.
func (f *Fetch) buildHuggingFace(ctx context.Context, b *kind.Build, c *config) (*kind.Result, error) {
	h := c.hf
	token := lookupEnv(b.Env, h.tokenEnv)
	headers := map[string]string{}
	for k, v := range c.headers {
		headers[k] = v
	}
	if token != "" {
		headers["Authorization"] = "Bearer " + token
	} else if h.tokenEnv != "" {
		fmt.Fprintf(b.Log, "%s is not set; asking the hub without a token\n", h.tokenEnv)
	}
	fmt.Fprintf(b.Log, "listing %s %s at %s on %s\n", h.kindName(), h.repo(), h.revision+h.ref, h.endpoint)
	listing, err := f.listHub(ctx, h, request{url: h.listURL(), headers: headers, secret: token, stall: c.stallTimeout})
	if err != nil {
		return nil, err
	}
	if h.ref != "" {
		fmt.Fprintf(b.Log, "revision %s is commit %s; kiln.lock.hcl pins it\n", h.ref, h.revision)
	}
	files, err := selectFiles(h, listing)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, hf := range files {
		total += hf.size()
	}
	fmt.Fprintf(b.Log, "%d of %d files match, %s\n", len(files), len(listing.Siblings), human.Bytes(total))
	if c.maxBytes > 0 && total > c.maxBytes {
		return nil, fmt.Errorf("%s %s at %s: the %d matching files hold %d bytes, more than max_bytes = %d; narrow files or raise max_bytes", h.kindName(), h.repo(), h.revision, len(files), total, c.maxBytes)
	}

	root := filepath.Join(b.Dir, h.org, h.name)
	var manifest strings.Builder
	var used int64
	for _, hf := range files {
		r := request{url: h.resolveURL(hf.Name), headers: headers, secret: token, stall: c.stallTimeout, label: hf.Name}
		if c.maxBytes > 0 {
			r.limit = c.maxBytes - used
		}
		sum, size, err := f.fetchHubFile(ctx, b, r, hf, filepath.Join(root, filepath.FromSlash(hf.Name)))
		if err != nil {
			return nil, err
		}
		used += size
		fmt.Fprintf(&manifest, "%s  %s\n", sum, hf.Name)
	}

	sum := "sha256:" + sha256Hex(manifest.String())
	attrs := map[string]string{"checksum": sum, "revision": h.revision}
	if h.ref != "" {
		attrs["ref"] = h.ref
	}
	return &kind.Result{
		Attrs: attrs,
		Exports: map[string]cty.Value{
			"path":     cty.StringVal(filepath.Join(b.Out, h.org, h.name)),
			"checksum": cty.StringVal(sum),
		},
	}, nil
}

// fetchHubFile downloads one repo file, checks it against the hub's sha256
// when the hub lists one, and moves it to dst.
func (f *Fetch) fetchHubFile(ctx context.Context, b *kind.Build, r request, hf hubFile, dst string) (string, int64, error) {
	p, err := openPartial(ctx, b.State, r.url)
	if err != nil {
		return "", 0, fmt.Errorf("fetch %s: %w", r.url, err)
	}
	defer p.release()
	size, err := f.download(ctx, b, p, r)
	if err != nil {
		return "", 0, err
	}
	got, err := fileSHA256(p.path)
	if err != nil {
		return "", 0, fmt.Errorf("verify the download of %s: %w", r.url, err)
	}
	if hf.LFS != nil && hf.LFS.SHA256 != "" && !strings.EqualFold(hf.LFS.SHA256, got) {
		p.discard()
		return "", 0, fmt.Errorf("checksum mismatch for %s: the hub lists sha256:%s, got sha256:%s; the download was deleted, run again (a mirror endpoint may serve other content)", r.url, strings.ToLower(hf.LFS.SHA256), got)
	}
	if hf.LFS == nil && hf.BlobID != "" {
		blob, err := gitBlobID(p.path)
		if err != nil {
			return "", 0, fmt.Errorf("verify the download of %s: %w", r.url, err)
		}
		if !strings.EqualFold(hf.BlobID, blob) {
			p.discard()
			return "", 0, fmt.Errorf("checksum mismatch for %s: the hub lists git blob %s, got %s; the download was deleted, run again (a mirror endpoint may serve other content)", r.url, strings.ToLower(hf.BlobID), blob)
		}
	}
	if err := p.publish(dst); err != nil {
		return "", 0, err
	}
	return got, size, nil
}

// listHub asks the hub for the files of the revision, or of the ref: the
// answer then names the commit the ref points at, which becomes h.revision,
// so every file is downloaded from that one commit even if the ref moves.
func (f *Fetch) listHub(ctx context.Context, h *hfConfig, r request) (*hubListing, error) {
	var l hubListing
	if err := f.hubJSON(ctx, h, r, "list the files of", &l); err != nil {
		return nil, err
	}
	if h.ref != "" {
		if !commitRE.MatchString(l.SHA) {
			return nil, fmt.Errorf("list the files of %s %s: the hub's answer for revision %s names no commit (sha %q); check the endpoint", h.kindName(), h.repo(), h.ref, l.SHA)
		}
		h.revision = l.SHA
		return &l, nil
	}
	if l.SHA != "" && l.SHA != h.revision {
		return nil, fmt.Errorf("list the files of %s %s: asked for revision %s, the hub answered for %s; check the endpoint", h.kindName(), h.repo(), h.revision, l.SHA)
	}
	return &l, nil
}

// resolveHubRef asks the hub which commit h.ref names, without listing or
// downloading anything (kiln lock).
func (f *Fetch) resolveHubRef(ctx context.Context, h *hfConfig, r request) (string, error) {
	var answer struct {
		SHA string `json:"sha"`
	}
	if err := f.hubJSON(ctx, h, r, "resolve revision "+h.ref+" of", &answer); err != nil {
		return "", err
	}
	if !commitRE.MatchString(answer.SHA) {
		return "", fmt.Errorf("resolve revision %s of %s %s: the hub answered no commit (sha %q); check the endpoint and that the branch or tag exists", h.ref, h.kindName(), h.repo(), answer.SHA)
	}
	return answer.SHA, nil
}

// hubJSON asks the hub's API at r.url and decodes its JSON answer into v.
// The answer must arrive within r.stall as a whole.
func (f *Fetch) hubJSON(ctx context.Context, h *hfConfig, r request, what string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, r.stall)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", r.url, err)
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.httpClient().Do(req)
	if err != nil {
		return fmt.Errorf("%s %s %s: %s", what, h.kindName(), h.repo(), redact(err.Error(), r.secret))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			hint = "; a gated or private repo needs a token: set token_env to the name of a variable holding it"
		}
		return fmt.Errorf("%s %s %s: %w%s", what, h.kindName(), h.repo(), statusError(r, resp), hint)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxListingBytes+1))
	if err != nil {
		return fmt.Errorf("%s %s %s: read %s: %s", what, h.kindName(), h.repo(), r.url, redact(err.Error(), r.secret))
	}
	if len(body) > maxListingBytes {
		return fmt.Errorf("%s %s %s: the answer of %s is larger than %d bytes", what, h.kindName(), h.repo(), r.url, maxListingBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s %s %s: %s is not the hub's JSON: %w", what, h.kindName(), h.repo(), r.url, err)
	}
	return nil
}

// selectFiles keeps the listed files that match the patterns, sorted by
// name, refusing names that would land outside ORG/NAME.
func selectFiles(h *hfConfig, l *hubListing) ([]hubFile, error) {
	globs, err := newGlobSet(h.files)
	if err != nil {
		return nil, err
	}
	var files []hubFile
	for _, hf := range l.Siblings {
		if !globs.match(hf.Name) {
			continue
		}
		if !safeRelPath(hf.Name) {
			return nil, fmt.Errorf("%s %s lists the file name %q, which is not a plain relative path; refusing it", h.kindName(), h.repo(), hf.Name)
		}
		files = append(files, hf)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s %s at %s: none of its %d files matches files = %q; check the patterns (\"*\" also matches \"/\")", h.kindName(), h.repo(), h.revision, len(l.Siblings), h.files)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
}

// safeRelPath reports whether name is a clean relative path without "..".
func safeRelPath(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || path.Clean(name) != name {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." || part == "." {
			return false
		}
	}
	return true
}

func (h *hfConfig) kindName() string {
	if h.dataset {
		return "dataset"
	}
	return "model"
}

// listURL is the revision API address of the repo at its revision, or at
// its ref while that is not resolved, listing the files with their blobs.
func (h *hfConfig) listURL() string { return h.revisionURL() + "?blobs=true" }

// revisionURL is the revision API address of the repo at its revision, or
// at its ref while that is not resolved; it answers {"sha": ...}.
func (h *hfConfig) revisionURL() string {
	at := h.revision
	if at == "" {
		at = url.PathEscape(h.ref) // refs/pr/1 is asked for as refs%2Fpr%2F1
	}
	return fmt.Sprintf("%s/api/%ss/%s/revision/%s", h.endpoint, h.kindName(), h.repo(), at)
}

// resolveURL is the download address of one file of the repo.
func (h *hfConfig) resolveURL(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	prefix := ""
	if h.dataset {
		prefix = "/datasets"
	}
	return fmt.Sprintf("%s%s/%s/resolve/%s/%s", h.endpoint, prefix, h.repo(), h.revision, strings.Join(parts, "/"))
}

// lookupEnv reads a variable from the build's environment first (the last
// entry wins, as for a process), then from kiln's own.
func lookupEnv(env []string, name string) string {
	if name == "" {
		return ""
	}
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return os.Getenv(name)
}
