// inv-test-scanner: a minimal scanner speaking Eraser's scanner contract (the side of
// pkg/scanners/template), for inv's tests. It judges nothing: the images it names are those
// whose names or IDs are listed in INV_TEST_SCANNER_VULNERABLE, and INV_TEST_SCANNER_MODE
// makes it misbehave on purpose. Standard library only; built static by scripts/test-scanner.mjs.
//
// Modes: ok (default), plain (Eraser's list without inv's extension), file (scanErase written as
// a file renamed into place, as a scanner without mkfifo would), crash, hang, garbage,
// oversize, silent (never answers), empty (opens scanErase and closes it without a byte).
// INV_TEST_SCANNER_EXTRA_IDS: image IDs named besides the matches (in use, unknown...).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

type image struct {
	ImageID string   `json:"image_id"`
	Names   []string `json:"names,omitempty"`
	Digests []string `json:"digests,omitempty"`
	Inv     *ext     `json:"inv,omitempty"`
}

type ext struct {
	Status          string   `json:"status"`
	CveCount        int      `json:"cveCount"`
	HighestSeverity string   `json:"highestSeverity"`
	Cves            []string `json:"cves"`
}

func logf(format string, a ...any) { fmt.Fprintf(os.Stderr, "test-scanner: "+format+"\n", a...) }

func die(format string, a ...any) {
	logf(format, a...)
	os.Exit(1)
}

func list(env string) []string {
	var out []string
	for _, s := range strings.Split(os.Getenv(env), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func main() {
	config := flag.String("config", "", "path to the configuration file")
	dir := flag.String("shared-dir", "/run/eraser.sh/shared-data", "the shared folder")
	flag.Parse()
	mode := os.Getenv("INV_TEST_SCANNER_MODE")
	if mode == "" {
		mode = "ok"
	}
	if *config != "" {
		b, err := os.ReadFile(*config)
		if err != nil {
			die("cannot read --config: %v", err)
		}
		// Eraser's shape: an EraserConfig whose components.scanner.config is a YAML string.
		if !strings.Contains(string(b), "components:") || !strings.Contains(string(b), "config: |") {
			die("--config is not in Eraser's shape:\n%s", b)
		}
		logf("config:\n%s", b)
	}
	logf("mode %s, node %s, runtime %s", mode, os.Getenv("NODE_NAME"), os.Getenv("ERASER_RUNTIME_NAME"))
	if _, err := os.Stat("/run/cri/cri.sock"); err == nil {
		logf("CRI socket mounted at /run/cri/cri.sock")
	}

	completePath := filepath.Join(*dir, "eraseCompleteScan")
	if err := syscall.Mkfifo(completePath, 0o644); err != nil {
		die("mkfifo %s: %v", completePath, err)
	}
	// ReceiveImages: wait for collectScan, read it whole.
	collect := filepath.Join(*dir, "collectScan")
	var f *os.File
	for {
		var err error
		if f, err = os.Open(collect); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		die("read collectScan: %v", err)
	}
	var all []image
	if err := json.Unmarshal(data, &all); err != nil {
		die("collectScan is not an image list: %v", err)
	}
	logf("received %d image(s)", len(all))

	want := map[string]bool{}
	for _, s := range list("INV_TEST_SCANNER_VULNERABLE") {
		want[s] = true
	}
	var found []image
	for _, img := range all {
		hit := want[img.ImageID]
		for _, n := range img.Names {
			hit = hit || want[n]
		}
		if hit {
			found = append(found, img)
		}
	}
	for _, id := range list("INV_TEST_SCANNER_EXTRA_IDS") {
		found = append(found, image{ImageID: id})
	}
	for i := range found {
		if mode != "plain" {
			found[i].Inv = &ext{Status: "vulnerable", CveCount: 3, HighestSeverity: "HIGH",
				Cves: []string{"CVE-2099-0001", "CVE-2099-0002", "CVE-2099-0003"}}
		}
	}
	answer, _ := json.Marshal(found)
	if found == nil {
		answer = []byte("[]")
	}

	scanErase := filepath.Join(*dir, "scanErase")
	switch mode {
	case "crash":
		die("crashing on purpose")
	case "hang", "silent":
		// A sleep, not select{}: with nothing left to wake it, Go would call that a deadlock and exit.
		logf("never answering on purpose (%s)", mode)
		for {
			time.Sleep(time.Hour)
		}
	case "garbage":
		answer = []byte("this is not json {")
	case "oversize":
		answer = []byte("[" + strings.Repeat(`{"image_id":"sha256:0"},`, 800_000) + `{"image_id":"x"}]`)
	case "empty":
		answer = nil
	}
	if mode == "file" {
		tmp := filepath.Join(*dir, ".scanErase.tmp")
		if err := os.WriteFile(tmp, answer, 0o644); err != nil {
			die("write %s: %v", tmp, err)
		}
		if err := os.Rename(tmp, scanErase); err != nil {
			die("rename: %v", err)
		}
	} else {
		// SendImages: mkfifo, open for writing (waits for the reader), write, close.
		if err := syscall.Mkfifo(scanErase, 0o644); err != nil {
			die("mkfifo %s: %v", scanErase, err)
		}
		w, err := os.OpenFile(scanErase, os.O_WRONLY, 0)
		if err != nil {
			die("open scanErase: %v", err)
		}
		if _, err := w.Write(answer); err != nil {
			logf("write scanErase: %v", err)
		}
		w.Close()
	}
	logf("answered %d image(s), %d bytes", len(found), len(answer))

	// Finish: wait for `complete`.
	c, err := os.Open(completePath)
	if err != nil {
		die("open eraseCompleteScan: %v", err)
	}
	msg, _ := io.ReadAll(c)
	c.Close()
	if string(msg) != "complete" {
		die("eraseCompleteScan said %q", msg)
	}
	logf("complete")
}
