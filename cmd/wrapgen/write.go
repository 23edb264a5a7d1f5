package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// outFile is a file wrapgen writes: where, and what.
type outFile struct {
	path    string
	content []byte
}

// writeFiles writes every file atomically: each goes to a temporary file
// in its directory first, and only when all are written are they renamed
// into place, so a failed run leaves existing files as they were. Each file
// written is named on a line of report, unless it is nil.
func writeFiles(files []outFile, report io.Writer) (err error) {
	var temps []string
	defer func() {
		if err != nil {
			for _, t := range temps {
				os.Remove(t)
			}
		}
	}()
	for _, f := range files {
		dir := filepath.Dir(f.path)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.path)+".wrapgen-*")
		if err != nil {
			return err
		}
		temps = append(temps, tmp.Name())
		_, werr := tmp.Write(f.content)
		cerr := tmp.Close()
		if werr != nil || cerr != nil {
			return fmt.Errorf("writing %s: %w", f.path, errors.Join(werr, cerr))
		}
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			return err
		}
	}
	for i, f := range files {
		if err := os.Rename(temps[i], f.path); err != nil {
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	temps = nil
	if report != nil {
		for _, f := range files {
			fmt.Fprintf(report, "wrapgen: wrote %s\n", f.path)
		}
	}
	return nil
}

// staleFiles lists the files whose content on disk is not what wrapgen
// would write now (missing files included).
func staleFiles(files []outFile) []string {
	var stale []string
	for _, f := range files {
		have, err := os.ReadFile(f.path)
		if err != nil || !bytes.Equal(have, f.content) {
			stale = append(stale, f.path)
		}
	}
	return stale
}
