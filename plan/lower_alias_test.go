package plan

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// aliasGraph exercises every condition of planner-chosen aliasing: which
// pairs are taken is asserted exactly.
//
//	a = f(x)              fresh
//	b = act(a)            a dies here: b takes a              (taken)
//	v = view of b         b is read later through v
//	c = act(b)            b is still read by g below          (not taken)
//	d = add(c, v)         c dies here, v's storage b dies too: both allowed;
//	                      c is younger than b, so d takes c   (taken)
//	e = act2(d)           act2 has no traits                  (not taken)
//	h = wide(e)           h has another shape than e          (not taken)
//	y = act(h)            y is an output: it may take h       (taken)
//	k = act(x)            x is a graph input                  (not taken)
const aliasGraph = `{"name": "alias", "symbols": {"n": {"hint": 16, "min": 1, "max": 1024}},
 "tensors": {
  "x": {"dtype": "f32", "shape": ["n"]},
  "a": {"dtype": "f32", "shape": ["n"]},
  "b": {"dtype": "f32", "shape": ["n"]},
  "v": {"view_of": "b", "shape": ["n"]},
  "c": {"dtype": "f32", "shape": ["n"]},
  "d": {"dtype": "f32", "shape": ["n"]},
  "e": {"dtype": "f32", "shape": ["n"]},
  "h": {"dtype": "f32", "shape": ["n", 2]},
  "y": {"dtype": "f32", "shape": ["n", 2]},
  "k": {"dtype": "f32", "shape": ["n"]}},
 "inputs": ["x"], "outputs": ["y", "k"],
 "ops": [
  {"kernel": "f", "inputs": ["x"], "outputs": ["a"]},
  {"kernel": "act", "inputs": ["a"], "outputs": ["b"]},
  {"kernel": "act", "inputs": ["b"], "outputs": ["c"]},
  {"kernel": "add", "inputs": ["c", "v"], "outputs": ["d"]},
  {"kernel": "act2", "inputs": ["d"], "outputs": ["e"]},
  {"kernel": "wide", "inputs": ["e"], "outputs": ["h"]},
  {"kernel": "act", "inputs": ["h"], "outputs": ["y"]},
  {"kernel": "act", "inputs": ["x"], "outputs": ["k"]}],
 "kernels": {"act": {"may_alias": [[0, 0]]}, "add": {"may_alias": [[0, 0], [0, 1]]}}}`

func reuseLines(p *Plan) []string {
	var out []string
	for _, l := range p.Lines {
		if l.Kind == LineReuse {
			out = append(out, l.String())
		}
	}
	return out
}

func TestChosenAliases(t *testing.T) {
	for _, s := range Strategies() {
		p := mustPlan(t, aliasGraph, Options{Strategy: s})
		assert.Equal(t, []string{"Reuse b = a (may_alias)", "Reuse d = c (may_alias)", "Reuse y = h (may_alias)"}, reuseLines(p), s)
		assert.Equal(t, 3, p.AliasedOps, s)
		f, err := p.Figures(nil)
		require.NoError(t, err)
		// Without aliasing the peak step holds h and y (2 × 128 bytes);
		// with it, y and k (128 + 64) at the end.
		assert.Equal(t, int64(2*128), f.DeclaredLoadBytes, s)
		assert.Equal(t, int64(128+64), f.LoadBytes, s)
		var names []string
		for _, b := range p.Buffers {
			names = append(names, strings.Join(b.TensorNames(), "="))
		}
		assert.Contains(t, names, "a=b", s)
		assert.Contains(t, names, "h=y", s)
	}
}

func TestAliasOff(t *testing.T) {
	p := mustPlan(t, aliasGraph, Options{Strategy: "search", NoAlias: true})
	assert.Empty(t, reuseLines(p))
	assert.Zero(t, p.AliasedOps)
	f, err := p.Figures(nil)
	require.NoError(t, err)
	assert.Equal(t, f.LoadBytes, f.DeclaredLoadBytes)
}

// TestAliasInLoop: a storage defined outside a loop and dying inside it is
// read again by the next iteration, so it is never taken over; one defined
// and dying in the same body is.
func TestAliasInLoop(t *testing.T) {
	p := mustPlan(t, `{"name": "loop",
 "tensors": {"x": {"dtype": "f32", "shape": [4]}, "a": {"dtype": "f32", "shape": [4]},
  "b": {"dtype": "f32", "shape": [4]}, "c": {"dtype": "f32", "shape": [4]}, "y": {"dtype": "f32", "shape": [4]}},
 "inputs": ["x"], "outputs": ["y"],
 "ops": [
  {"kernel": "f", "inputs": ["x"], "outputs": ["a"]},
  {"kernel": "f", "inputs": ["x"], "outputs": ["y"]},
  {"loop": {"count": 3, "body": [
    {"kernel": "act", "inputs": ["a"], "outputs": ["b"]},
    {"kernel": "act", "inputs": ["b"], "outputs": ["c"]},
    {"kernel": "g", "inputs": ["c", "y"], "mutates": ["y"], "outputs": []}]}}],
 "kernels": {"act": {"may_alias": [[0, 0]]}}}`, Options{})
	assert.Equal(t, []string{"Reuse c = b (may_alias)"}, reuseLines(p))
}

// TestAliasCompeting: two outputs may each take either input; both inputs
// die at the op. Matching gives each output one input, so both are taken,
// although taking greedily by output could leave the second without one.
func TestAliasCompeting(t *testing.T) {
	p := mustPlan(t, `{"name": "two",
 "tensors": {"x": {"dtype": "f32", "shape": [4]}, "a": {"dtype": "f32", "shape": [4]},
  "b": {"dtype": "f32", "shape": [4]}, "c": {"dtype": "f32", "shape": [4]}, "d": {"dtype": "f32", "shape": [4]},
  "y": {"dtype": "f32", "shape": [4]}},
 "inputs": ["x"], "outputs": ["y"],
 "ops": [
  {"kernel": "f", "inputs": ["x"], "outputs": ["a"]},
  {"kernel": "f", "inputs": ["x"], "outputs": ["b"]},
  {"kernel": "split", "inputs": ["a", "b"], "outputs": ["c", "d"]},
  {"kernel": "add", "inputs": ["c", "d"], "outputs": ["y"]}],
 "kernels": {"split": {"may_alias": [[0, 0], [0, 1], [1, 1]]}}}`, Options{})
	assert.Equal(t, []string{"Reuse c = a (may_alias)", "Reuse d = b (may_alias)"}, reuseLines(p))
}

// TestVerifierCatchesBadAlias: the verifier replays chosen pairs against
// the traits, independently of the chooser.
func TestVerifierCatchesBadAlias(t *testing.T) {
	p := mustPlan(t, aliasGraph, Options{Strategy: "search"})
	require.NoError(t, verify(p))
	g := p.Graph
	delete(g.Traits, "add") // d = c is no longer allowed
	err := verify(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `ops[3] (kernel "add"): d may not take over c in place: the kernel's may_alias does not allow it`)
}

// TestAliasKeepsViewsOfDeclaredInplace: a view of a tensor taken over by
// a declared inplace still reads the shared storage after the takeover, so
// the storage does not die where its last name does.
func TestAliasKeepsViewsOfDeclaredInplace(t *testing.T) {
	src := `{"name": "views",
 "tensors": {"x": {"dtype": "f32", "shape": [4]}, "s": {"dtype": "f32", "shape": [4]},
  "v": {"view_of": "s", "shape": [2]}, "t": {"dtype": "f32", "shape": [4]},
  "u": {"dtype": "f32", "shape": [4]}, "y": {"dtype": "f32", "shape": [4]}},
 "inputs": ["x"], "outputs": ["y"],
 "ops": [
  {"kernel": "f", "inputs": ["x"], "outputs": ["s"]},
  {"kernel": "relu_", "inputs": ["s"], "outputs": ["t"], "inplace": {"t": "s"}},
  {"kernel": "act", "inputs": ["t"], "outputs": ["u"]},
  {"kernel": "g", "inputs": ["u", "v"], "outputs": ["y"]}],
 "kernels": {"act": {"may_alias": [[0, 0]]}}}`
	p := mustPlan(t, src, Options{})
	assert.Equal(t, []string{"Reuse t = s"}, reuseLines(p), "u must not take over s's storage: v reads it later")
	// Without the later read of v, the storage dies at act and u takes it.
	p = mustPlan(t, strings.Replace(src, `"inputs": ["u", "v"]`, `"inputs": ["u"]`, 1), Options{})
	assert.Equal(t, []string{"Reuse t = s", "Reuse u = t (may_alias)"}, reuseLines(p))
}
