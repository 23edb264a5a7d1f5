package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// importPathOf finds the Go import path of directory dir (which need not
// exist yet) from the go.mod of the module containing it.
func importPathOf(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for root := abs; ; {
		data, err := os.ReadFile(filepath.Join(root, "go.mod"))
		if err == nil {
			mod, err := modulePath(data)
			if err != nil {
				return "", fmt.Errorf("%s: %w", filepath.Join(root, "go.mod"), err)
			}
			rel, err := filepath.Rel(root, abs)
			if err != nil {
				return "", err
			}
			if rel == "." {
				return mod, nil
			}
			return mod + "/" + filepath.ToSlash(rel), nil
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("no go.mod found in %s or any directory above it; the runtime's import path comes from the module (or pass -runtime-import)", abs)
		}
		root = parent
	}
}

// modulePath reads the module directive of a go.mod file.
func modulePath(gomod []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '"') {
			rest = strings.TrimSpace(rest)
			if i := strings.Index(rest, "//"); i >= 0 {
				rest = strings.TrimSpace(rest[:i])
			}
			if strings.HasPrefix(rest, "\"") || strings.HasPrefix(rest, "`") {
				if u, err := strconv.Unquote(rest); err == nil {
					rest = u
				}
			}
			if rest != "" {
				return rest, nil
			}
		}
	}
	return "", fmt.Errorf("no module directive")
}
