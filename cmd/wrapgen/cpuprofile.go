package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// checkCPUProfile refuses, before any work, a -cpuprofile that wrapgen must
// not write, as every other output (checkOutput): a device, a FIFO, a
// folder, or one of the command's inputs.
func checkCPUProfile(path string, inputs ...string) error {
	return checkOutput("-cpuprofile", path, inputs...)
}

// startCPUProfile profiles the process into path until stop is called.
// The profile is written to a temporary file beside path and renamed over
// it when stop is called, as every output (writeFiles): a failed run
// leaves no partial file, and path is checked again here.
func startCPUProfile(path string, inputs ...string) (stop func() error, err error) {
	if err := checkCPUProfile(path, inputs...); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".wrapgen-*")
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("-cpuprofile %s: %w", path, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		err := errors.Join(f.Close(), os.Chmod(f.Name(), 0o644))
		if err == nil {
			err = os.Rename(f.Name(), path)
		}
		if err != nil {
			os.Remove(f.Name())
			return fmt.Errorf("-cpuprofile %s: %w", path, err)
		}
		return nil
	}, nil
}
