// Command trivy-testdb writes a small vulnerability database in Trivy's own format from YAML
// fixtures, the way Trivy's tests do (internal/dbtest: bolt-fixtures loads the YAML into a bbolt
// file, then trivy-db opens it). It then reads every advisory and vulnerability back through
// trivy-db's own accessors, so a fixture that Trivy could not use fails here, not in a scan.
//
//	trivy-testdb -cache-dir DIR fixture.yaml...
//
// writes DIR/db/trivy.db and DIR/db/metadata.json: the layout of Trivy's --cache-dir, used with
// --skip-db-update (and served by `trivy server` the same way).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	fixtures "github.com/aquasecurity/bolt-fixtures"
	trivydb "github.com/aquasecurity/trivy-db/pkg/db"
	"github.com/aquasecurity/trivy-db/pkg/metadata"
	bolt "go.etcd.io/bbolt"
)

func main() {
	cacheDir := flag.String("cache-dir", "", "Trivy cache folder to write db/ into")
	flag.Parse()
	if *cacheDir == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: trivy-testdb -cache-dir DIR fixture.yaml...")
		os.Exit(2)
	}
	if err := build(*cacheDir, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "trivy-testdb:", err)
		os.Exit(1)
	}
}

func build(cacheDir string, files []string) error {
	dbDir := filepath.Join(cacheDir, "db")
	if err := os.MkdirAll(dbDir, 0o755); err != nil {
		return err
	}
	dbPath := trivydb.Path(dbDir)
	_ = os.Remove(dbPath)
	loader, err := fixtures.New(dbPath, files)
	if err != nil {
		return fmt.Errorf("open %s: %w", dbPath, err)
	}
	if err := loader.Load(); err != nil {
		_ = loader.Close()
		return fmt.Errorf("load fixtures: %w", err)
	}
	if err := loader.Close(); err != nil {
		return err
	}
	if err := verify(dbDir); err != nil {
		return err
	}
	// A NextUpdate far ahead: Trivy then has no reason to want a newer DB. Version is the schema
	// this trivy-db writes, which Trivy checks against its own.
	now := time.Now().UTC()
	return metadata.NewClient(dbDir).Update(metadata.Metadata{
		Version:      trivydb.SchemaVersion,
		NextUpdate:   now.AddDate(10, 0, 0),
		UpdatedAt:    now,
		DownloadedAt: now,
	})
}

// verify reads each advisory and each vulnerability through trivy-db's accessors.
func verify(dbDir string) error {
	if err := trivydb.Init(dbDir); err != nil {
		return fmt.Errorf("trivy-db cannot open the result: %w", err)
	}
	defer trivydb.Close()
	dbc := trivydb.Config{}
	var ids []string
	sources := map[string][]string{}
	err := dbc.Connection().View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			switch string(name) {
			case "vulnerability":
				return b.ForEach(func(k, _ []byte) error { ids = append(ids, string(k)); return nil })
			case "data-source", "vulnerability-id":
				return nil
			}
			return b.ForEach(func(k, v []byte) error {
				if v == nil {
					sources[string(name)] = append(sources[string(name)], string(k))
				}
				return nil
			})
		})
	})
	if err != nil {
		return err
	}
	advisories := 0
	for source, pkgs := range sources {
		for _, pkg := range pkgs {
			advs, err := dbc.GetAdvisories(source, pkg)
			if err != nil {
				return fmt.Errorf("advisories of %s in %q: %w", pkg, source, err)
			}
			advisories += len(advs)
		}
	}
	for _, id := range ids {
		v, err := dbc.GetVulnerability(id)
		if err != nil {
			return fmt.Errorf("vulnerability %s: %w", id, err)
		}
		if v.Severity == "" {
			return fmt.Errorf("vulnerability %s has no severity", id)
		}
	}
	if advisories == 0 || len(ids) == 0 {
		return fmt.Errorf("no advisories (%d) or no vulnerabilities (%d)", advisories, len(ids))
	}
	fmt.Fprintf(os.Stderr, "trivy-testdb: %d advisories, %d vulnerabilities\n", advisories, len(ids))
	return nil
}
