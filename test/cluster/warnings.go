package main

import (
	"encoding/json"
	"net/http"
	"os"
	"sync"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apiserver/pkg/endpoints/responsewriter"
)

// A warningRecorder appends one JSON line per Warning header the API server returns to a file
// in the cluster's folder (method, path, user agent, status, warning text). The tests fail on
// any line they do not expect (test/support/api-warnings.ts): a deprecated API inv calls or a
// manifest field a release frowns on shows up here, on every Kubernetes version tested, even
// when the client that caused it ignores or hides warnings (kubectl, Helm, client libraries).
type warningRecorder struct {
	mu   sync.Mutex
	file *os.File
}

type warningLine struct {
	Time      string `json:"time"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	Query     string `json:"query,omitempty"`
	UserAgent string `json:"userAgent"`
	Status    int    `json:"status"`
	Warning   string `json:"warning"`
}

func newWarningRecorder(path string) (*warningRecorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	return &warningRecorder{file: f}, nil
}

func (rec *warningRecorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ww := &warningWriter{ResponseWriter: w, rec: rec, req: r}
		h.ServeHTTP(responsewriter.WrapForHTTP1Or2(ww), r)
		// A handler that wrote nothing: net/http sends the headers after it returns.
		ww.check(http.StatusOK)
	})
}

func (rec *warningRecorder) record(r *http.Request, status int, warnings []string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	texts := warnings
	if parsed, errs := utilnet.ParseWarningHeaders(warnings); len(errs) == 0 {
		texts = texts[:0:0]
		for _, p := range parsed {
			texts = append(texts, p.Text)
		}
	}
	for _, text := range texts {
		line, _ := json.Marshal(warningLine{
			Time: time.Now().UTC().Format(time.RFC3339Nano), Method: r.Method, Path: r.URL.Path,
			Query: r.URL.RawQuery, UserAgent: r.UserAgent(), Status: status, Warning: text,
		})
		rec.file.Write(append(line, '\n')) //nolint:errcheck // best effort, like a log
	}
}

// warningWriter looks at the headers once, when they are sent: the filters inside (timeouts,
// the warning recorder) have copied theirs into this writer's by then.
type warningWriter struct {
	http.ResponseWriter
	rec     *warningRecorder
	req     *http.Request
	checked bool
}

func (w *warningWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *warningWriter) check(status int) {
	if w.checked {
		return
	}
	w.checked = true
	if ws := w.ResponseWriter.Header().Values("Warning"); len(ws) > 0 {
		w.rec.record(w.req, status, ws)
	}
}

func (w *warningWriter) WriteHeader(status int) {
	if status >= 200 {
		w.check(status)
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *warningWriter) Write(b []byte) (int, error) {
	w.check(http.StatusOK)
	return w.ResponseWriter.Write(b)
}
