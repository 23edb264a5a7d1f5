package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// outFile is a file wrapgen writes: where, and what.
type outFile struct {
	path    string
	content []byte
}

// checkOutput refuses, before any work, an output that wrapgen must not
// replace: wrapgen writes only to regular files or new paths, never over a
// device, a FIFO, a socket or a directory (nor a symlink to one), and never
// over a file the command reads (by os.SameFile, so another name of the
// same file is caught too). flag names the output in the message; inputs
// are the command's input files ("" and "-" are skipped).
func checkOutput(flag, path string, inputs ...string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if kind := notRegular(st); kind != "" {
		return fmt.Errorf("%s %s: is %s; wrapgen writes only regular files or new paths", flag, path, kind)
	}
	return notAnInput(flag, path, st, inputs)
}

// checkOutputDir is checkOutput for a directory that wrapgen writes files
// into: an existing directory or a new path.
func checkOutputDir(flag, dir string, inputs ...string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s: is not a directory (wrapgen writes its files into this directory)", flag, dir)
	}
	return notAnInput(flag, dir, st, inputs)
}

func notAnInput(flag, path string, st fs.FileInfo, inputs []string) error {
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			return fmt.Errorf("%s %s: is the input %s; wrapgen does not overwrite a file it reads", flag, path, in)
		}
	}
	return nil
}

// notRegular says what a file is when it is not a regular file ("" when it
// is).
func notRegular(st fs.FileInfo) string {
	m := st.Mode()
	switch {
	case m.IsRegular():
		return ""
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// writeFiles writes files as one transaction, so that a failure leaves
// every existing file as it was:
//  1. every target is checked (a regular file, a symlink to one, or a new
//     path; no path twice) before anything is written;
//  2. every file is written to a temporary file in its directory;
//  3. each existing target is kept under a hard link beside it, and the
//     temporary files are renamed over the targets; when a rename fails,
//     the targets already replaced are renamed back from their links.
//
// What remains: a crash (or a kill) between the renames of step 3 leaves
// some files new and some old, with the temporary files and links behind
// (named .NAME.wrapgen-*); and a target changed by another process between
// steps 1 and 3 is not checked again. Each file written is named on a line
// of report, unless it is nil.
func writeFiles(files []outFile, report io.Writer) (err error) {
	seen := map[string]bool{}
	for _, f := range files {
		abs, aerr := filepath.Abs(f.path)
		if aerr != nil {
			return aerr
		}
		if seen[abs] {
			return fmt.Errorf("%s: wrapgen would write this file twice", f.path)
		}
		seen[abs] = true
		if err := checkOutput("output", f.path); err != nil {
			return err
		}
	}
	temps := make([]string, 0, len(files))
	defer func() { removeAll(temps) }()
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
	if err := renameAll(files, temps); err != nil {
		return err
	}
	temps = nil
	if report != nil {
		reportWritten(report, files)
	}
	return nil
}

// reportWritten names each file written, except that a folder of more than
// a few (a vendored runtime or kernel package) is one line with its count.
func reportWritten(report io.Writer, files []outFile) {
	for i := 0; i < len(files); {
		dir := filepath.Dir(files[i].path)
		j := i + 1
		for j < len(files) && filepath.Dir(files[j].path) == dir {
			j++
		}
		if j-i > maxNamedFiles {
			fmt.Fprintf(report, "wrapgen: wrote %d files in %s\n", j-i, dir)
		} else {
			for _, f := range files[i:j] {
				fmt.Fprintf(report, "wrapgen: wrote %s\n", f.path)
			}
		}
		i = j
	}
}

// maxNamedFiles is the most files of one folder reportWritten names.
const maxNamedFiles = 3

// renameAll renames temps[i] over files[i].path, all or none: an existing
// target is first kept under a hard link (temps[i]+".old"), so that when a
// later rename fails the targets already replaced are put back. Where the
// file system has no hard links, the old file cannot be kept and a failed
// later rename leaves it replaced.
func renameAll(files []outFile, temps []string) error {
	existed := make([]bool, len(files))
	kept := make([]string, len(files)) // the hard link keeping target i, or ""
	for i, f := range files {
		if _, err := os.Lstat(f.path); err == nil {
			existed[i] = true
			if old := temps[i] + ".old"; os.Link(f.path, old) == nil {
				kept[i] = old
			}
		}
	}
	for i, f := range files {
		if err := os.Rename(temps[i], f.path); err != nil {
			for j := i - 1; j >= 0; j-- {
				if kept[j] != "" {
					if os.Rename(kept[j], files[j].path) != nil {
						kept[j] = "" // left behind rather than lost
					}
				} else if !existed[j] {
					os.Remove(files[j].path)
				}
			}
			removeAll(kept)
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	removeAll(kept)
	return nil
}

// removeAll removes every named file ("" skipped), ignoring errors: the
// leftovers of a transaction.
func removeAll(paths []string) {
	for _, p := range paths {
		if p != "" {
			os.Remove(p)
		}
	}
}

// wrapgenBanner is the first line of every file gen and selftest write
// after "// " (Go, C++) or "# " (CMake): wrapgen replaces only the files
// that carry it, and removes only those from the folders it owns.
const wrapgenBanner = "Code generated by wrapgen. DO NOT EDIT."

// isGenerated reports whether content starts with wrapgen's banner line.
func isGenerated(content []byte) bool {
	line, _, _ := bytes.Cut(content, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return string(line) == "// "+wrapgenBanner || string(line) == "# "+wrapgenBanner
}

// fileHead is the start of the file at path (enough for its first lines),
// and whether there is a regular file there to read.
func fileHead(path string) ([]byte, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	head := make([]byte, 1024)
	n, _ := io.ReadFull(f, head)
	return head[:n], true
}

// writeGenerated is writeFiles for the files wrapgen generates (gen,
// selftest -keep): an existing file is replaced only when wrapgen wrote
// it, so that a user's file that happens to have the name of a generated
// one (a doc.go, a main.cc, a go.mod) is never lost.
func writeGenerated(files []outFile, report io.Writer) error {
	for _, f := range files {
		if err := checkOutput("output", f.path); err != nil {
			return err
		}
	}
	for _, f := range files {
		if head, ok := fileHead(f.path); ok && !isGenerated(head) {
			return fmt.Errorf("%s: exists and was not written by wrapgen (its first line is not %q), so wrapgen does not replace it: move it away, or generate into another folder", f.path, "// "+wrapgenBanner)
		}
	}
	return writeFiles(files, report)
}

// ownedLeftovers lists, in the folders wrapgen owns (each filled as a
// whole: a vendored runtime or kernel package), the files it would not
// write now. Those wrapgen generated (by another version) are stale: they
// would be built with the package, so gen removes them and gen -check
// names them. Any other file is the user's, which wrapgen neither removes
// nor lets be built into its package: it is an error. Names starting with
// "." (a crashed write's temporary files, which no build reads) and
// folders are not looked at.
func ownedLeftovers(dirs []string, files []outFile) (stale []string, err error) {
	writes := map[string]bool{}
	for _, f := range files {
		if abs, err := filepath.Abs(f.path); err == nil {
			writes[abs] = true
		}
	}
	var foreign []string
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			abs, err := filepath.Abs(path)
			if err != nil {
				return nil, err
			}
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") || writes[abs] {
				continue
			}
			if head, ok := fileHead(path); ok && isGenerated(head) {
				stale = append(stale, path)
			} else {
				foreign = append(foreign, path)
			}
		}
	}
	if len(foreign) > 0 {
		them := "it"
		if len(foreign) > 1 {
			them = "them"
		}
		return stale, fmt.Errorf("%s: in a folder wrapgen owns (it writes the whole folder, and every file there is built with it) but not written by wrapgen; move %s out of the folder", strings.Join(foreign, ", "), them)
	}
	return stale, nil
}

// removeStale removes the stale generated files ownedLeftovers found (after
// the new files are written), naming each on report unless it is nil.
func removeStale(stale []string, report io.Writer) error {
	for _, path := range stale {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the stale generated file %s: %w", path, err)
		}
		if report != nil {
			fmt.Fprintf(report, "wrapgen: removed %s (generated, and no longer written)\n", path)
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
