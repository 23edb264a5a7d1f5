package cppref

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/wrapgen/wrapgen/templates"
)

// compileCheck compiles testdata/<name>.cc with the given files of the C++
// kernels (under wgref/, by name) into the cache directory Build uses, with
// the compiler and flags of OptionsFromEnv, under a hash of all it reads:
// the small programs that test one layer of the kernels (vecmath's rows,
// the im2col packers) apart from the kernel server.
func compileCheck(name string, srcs []string) (string, error) {
	opts := OptionsFromEnv()
	cxx := opts.CXX
	if cxx == "" {
		cxx = "g++"
	}
	flags := append([]string{"-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror"}, opts.Flags...)
	mainFile := filepath.Join("testdata", name+".cc")
	main, err := os.ReadFile(mainFile)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %q\n", cxx, flags)
	h.Write(main)
	files := map[string][]byte{}
	for _, s := range srcs {
		data, err := templates.FS.ReadFile("wgref/" + s)
		if err != nil {
			return "", err
		}
		files[s] = data
		fmt.Fprintf(h, "%s %d\n", s, len(data))
		h.Write(data)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	dir := filepath.Join(base, "wrapgen-cppref", strings.ReplaceAll(name, "_", "-")+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	bin := filepath.Join(dir, name)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Join(dir, "wgref"), 0o755); err != nil {
		return "", err
	}
	args := append(append([]string{}, flags...), "-I", dir, "-o", bin+".tmp", mainFile)
	for _, s := range srcs {
		p := filepath.Join(dir, "wgref", s)
		if err := os.WriteFile(p, files[s], 0o644); err != nil {
			return "", err
		}
		if strings.HasSuffix(s, ".cc") {
			args = append(args, p)
		}
	}
	if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling %s: %v\n%s", name, err, out)
	}
	return bin, os.Rename(bin+".tmp", bin)
}
