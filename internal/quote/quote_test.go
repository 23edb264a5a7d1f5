package quote

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
)

// hostile are the strings every quoting function must carry: each byte
// value alone, invalid UTF-8, comment and trigraph breakers, printf verbs,
// a trailing backslash.
func hostile() []string {
	var ss []string
	for c := 0; c < 256; c++ {
		ss = append(ss, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"7")
	}
	return append(ss, "\xff\xfe", "\xed\xa0\x80", "*/", "/*", "??=", "??/", "a??/", "%d %s %w %%", `trail\`, "\\\n", "\"", "\u202e", "é", "名前", "")
}

func TestCppEscapesOnlyWhatItMust(t *testing.T) {
	assert.Equal(t, `"a\"b\\c\?\?=\012\000\3777"`, Cpp("a\"b\\c??=\n\x00\xff7"))
	for _, s := range hostile() {
		q := Cpp(s)
		for i := 0; i < len(q); i++ {
			require.True(t, q[i] >= 0x20 && q[i] < 0x7f, "%q: byte %d of %q is not printable ASCII", s, i, q)
		}
		assert.NotContains(t, q, "??", s)
		assert.True(t, strings.HasSuffix(CppComment(s), `"`), s)
	}
}

func TestGoQuotesAreGoLiterals(t *testing.T) {
	for _, s := range hostile() {
		back, err := strconv.Unquote(Go(s))
		require.NoError(t, err, s)
		assert.Equal(t, s, back)
		assert.NotContains(t, GoComment(s), "\n", s)
	}
}

// TestQuotesCompileAndRoundTrip writes every hostile string as a literal
// and inside a comment, in Go and in C++, builds both warning-free and
// checks that the program reads back exactly the bytes given.
func TestQuotesCompileAndRoundTrip(t *testing.T) {
	testenv.SkipUnlessLong(t, "builds programs")
	ss := hostile()
	var want strings.Builder
	for _, s := range ss {
		want.WriteString(strconv.Itoa(len(s)) + ":" + s + "\n")
	}
	dir := t.TempDir()

	var g strings.Builder
	g.WriteString("package main\n\nimport \"fmt\"\n\nvar strs = []string{\n")
	for _, s := range ss {
		g.WriteString("\t// " + GoComment(s) + "\n\t" + Go(s) + ",\n")
	}
	g.WriteString("}\n\nfunc main() {\n\tfor _, s := range strs {\n\t\tfmt.Printf(\"%d:%s\\n\", len(s), s)\n\t}\n}\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(g.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module q\n\ngo 1.21\n"), 0o644))
	run := func(name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %v: %s", name, args, out)
		return string(out)
	}
	run("go", "vet", ".")
	assert.Equal(t, want.String(), run("go", "run", "."))

	var c strings.Builder
	c.WriteString("#include <cstdio>\n#include <cstring>\n\nstatic const char* const kStrs[] = {\n")
	for _, s := range ss {
		// sizeof on the literal counts embedded NULs; strlen would not.
		c.WriteString("  // " + CppComment(s) + "\n  " + Cpp(s) + ",\n")
	}
	c.WriteString("};\nstatic const unsigned long kLens[] = {\n")
	for _, s := range ss {
		c.WriteString("  sizeof(" + Cpp(s) + ") - 1,\n")
	}
	c.WriteString("};\n\nint main() {\n  for (unsigned long i = 0; i < sizeof(kLens) / sizeof(kLens[0]); i++) {\n" +
		"    std::printf(\"%lu:\", kLens[i]);\n    std::fwrite(kStrs[i], 1, kLens[i], stdout);\n    std::printf(\"\\n\");\n  }\n  return 0;\n}\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.cc"), []byte(c.String()), 0o644))
	for _, cxx := range []string{"g++", "clang++"} {
		if _, err := exec.LookPath(cxx); err != nil {
			t.Logf("%s not installed", cxx)
			continue
		}
		run(cxx, "-std=c++17", "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Werror", "-o", "q_"+cxx, "main.cc")
		assert.Equal(t, want.String(), run("./q_"+cxx), cxx)
	}
}

// Text leaves a printable name as it is and quotes one holding a control
// character, a format character or invalid UTF-8.
func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"conv1.weight": "conv1.weight", "x y": "x y", "模型": "模型",
		"y\rz": `"y\rz"`, "a\x1b[2Jb": `"a\x1b[2Jb"`, "\xff": `"\xff"`, "": `""`, "ab\u202ecd": `"ab\u202ecd"`,
	} {
		assert.Equal(t, want, Text(in), "%q", in)
	}
}
