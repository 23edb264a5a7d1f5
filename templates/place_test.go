package templates

import (
	"fmt"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/internal/testenv"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// placeProblem is a random set of storages: sizes (some equal, some
// zero), live ranges over a few dozen steps, an alignment.
type placeProblem struct {
	size       []int
	begin, end []int32
	align      int
}

func randomPlaceProblem(rng *rand.Rand) placeProblem {
	n := 1 + rng.Intn(60)
	p := placeProblem{size: make([]int, n), begin: make([]int32, n), end: make([]int32, n), align: []int{1, 8, 64}[rng.Intn(3)]}
	for i := range n {
		p.size[i] = []int{0, 64, 100, 4096}[rng.Intn(4)] + rng.Intn(3)*rng.Intn(5000)
		p.begin[i] = int32(rng.Intn(40))
		p.end[i] = p.begin[i] + 1 + int32(rng.Intn(20))
	}
	return p
}

// solve is Go's placement: the arena then the offsets, as runtime_place
// prints them.
func (p placeProblem) solve() string {
	n := len(p.size)
	order, placed, off := make([]int32, n), make([]int32, 0, n), make([]int, n)
	for i := range order {
		order[i] = int32(i)
	}
	arena, _ := wgrt.PlaceBest(order, placed, p.size, off, make([]int, n), p.begin, p.end, p.align)
	out := fmt.Sprint(arena)
	for _, o := range off {
		out += fmt.Sprint(" ", o)
	}
	return out
}

// TestPlaceMatchesGo: the C++ runtime places storages byte for byte as
// the Go runtime does, on 300 random problems, with every compiler
// installed.
func TestPlaceMatchesGo(t *testing.T) {
	testenv.SkipUnlessLong(t, "compiles C++")
	rng := rand.New(rand.NewSource(7))
	var in strings.Builder
	var want []string
	for range 300 {
		p := randomPlaceProblem(rng)
		fmt.Fprintf(&in, "%d %d\n", len(p.size), p.align)
		for i := range p.size {
			fmt.Fprintf(&in, "%d %d %d\n", p.size[i], p.begin[i], p.end[i])
		}
		want = append(want, p.solve())
	}
	// And one past the budget: 5,000 storages live at once.
	big := placeProblem{size: make([]int, 5000), begin: make([]int32, 5000), end: make([]int32, 5000), align: 64}
	fmt.Fprintf(&in, "%d %d\n", len(big.size), big.align)
	for i := range big.size {
		big.size[i], big.end[i] = 64, 1
		fmt.Fprintf(&in, "64 0 1\n")
	}
	want = append(want, big.solve())
	for _, cxx := range []string{"g++", "clang++"} {
		if _, err := exec.LookPath(cxx); err != nil {
			continue
		}
		t.Run(cxx, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "runtime_place")
			args := append(runtimeBuildArgs(t, cxx, bin), filepath.Join("testdata", "runtime_place.cc"))
			out, err := exec.Command(cxx, args...).CombinedOutput()
			require.NoError(t, err, "%s", out)
			cmd := exec.Command(bin)
			cmd.Stdin = strings.NewReader(in.String())
			out, err = cmd.Output()
			require.NoError(t, err)
			assert.Equal(t, want, strings.Split(strings.TrimSpace(string(out)), "\n"))
		})
	}
}
