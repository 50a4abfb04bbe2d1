package ui

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"
)

// staticFile is an embedded asset ready to serve. Embedded files have no
// modification time, so the ETag of their content is what lets a reload
// revalidate instead of fetching form-js's 1.2 MB again; their gzip form
// (a quarter of the bytes) is made on first request.
type staticFile struct {
	name string
	body []byte
	etag string // of the identity form; the gzip form's ends in -gz

	gzipOnce sync.Once
	gzipped  []byte
}

// staticFiles are the assets by their path below the UI's path.
type staticFiles map[string]*staticFile

// add reads the files of fsys into s, below prefix.
func (s staticFiles) add(prefix string, fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		s[prefix+path] = &staticFile{name: path, body: body, etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
		return nil
	})
}

// serve answers the asset at path (404 when there is none: folders are not
// listed), gzipped when the client takes it and it is worth it.
func (s staticFiles) serve(w http.ResponseWriter, r *http.Request, path string) {
	f := s[path]
	if f == nil {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-cache") // the assets change with the binary only: revalidate
	h.Set("Vary", "Accept-Encoding")
	body, etag := f.body, f.etag
	if len(f.body) > 1024 && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		body, etag = f.gzip(), strings.TrimSuffix(f.etag, `"`)+`-gz"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, f.name, time.Time{}, bytes.NewReader(body))
}

func (f *staticFile) gzip() []byte {
	f.gzipOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression) // a valid level: no error
		_, _ = zw.Write(f.body)                                // a bytes.Buffer does not fail
		_ = zw.Close()
		f.gzipped = b.Bytes()
	})
	return f.gzipped
}
