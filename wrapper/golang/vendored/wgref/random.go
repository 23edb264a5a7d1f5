package wgref

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Kernels that draw random numbers. ONNX leaves the generator to each
// runtime, so the values cannot match another runtime's, only the
// distribution. With attribute "seed" a call draws the same values every
// time (which lets the importer fold it); without, each call draws anew.
// The *Like variants get no input: the importer keeps only its shape,
// which is the output's.

func init() {
	register("Bernoulli", bernoulli)
	register("RandomUniform", randomUniform)
	register("RandomUniformLike", randomUniform)
	register("RandomNormal", randomNormal)
	register("RandomNormalLike", randomNormal)
}

// rng is a splitmix64 generator: a value on the stack, so that a call
// allocates nothing, and statistically sound for reference draws.
type rng struct {
	state    uint64
	spare    float64 // Box-Muller's second normal value, when hasSpare
	hasSpare bool
}

// newRNG starts from the seed attribute's bits when the call has one, else
// from math/rand/v2's global source (randomly seeded, safe for concurrent
// calls and allocation-free).
func newRNG(a *attrs) rng {
	if a.Has("seed") {
		return rng{state: math.Float64bits(a.Float("seed"))}
	}
	return rng{state: rand.Uint64()}
}

func (g *rng) next() uint64 {
	g.state += 0x9e3779b97f4a7c15
	z := g.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// float is uniform in [0, 1), a multiple of 2⁻⁵³.
func (g *rng) float() float64 { return float64(g.next()>>11) * 0x1p-53 }

// normal is standard normal (Box-Muller, using both values it makes).
func (g *rng) normal() float64 {
	if g.hasSpare {
		g.hasSpare = false
		return g.spare
	}
	r := math.Sqrt(-2 * math.Log(1-g.float())) // 1 - u is in (0, 1]: no log(0)
	s, c := math.Sincos(2 * math.Pi * g.float())
	g.spare, g.hasSpare = r*s, true
	return r * c
}

// maxRedraws bounds the draws of one uniform element (see randomUniform).
const maxRedraws = 8

// randomUniform writes values uniform in [low, high). A value below high
// can round up to it in the output's dtype (f16 or f32): it is drawn again,
// a few times at most, for a range no value of the dtype lies in.
func randomUniform(c *wgrt.Call) error {
	if err := need(c, 1, 0, 0); err != nil {
		return err
	}
	a := attrsOf(c)
	low, high := a.Float("low"), a.Float("high")
	g := newRNG(a)
	if a.err != nil {
		return a.err
	}
	out := c.Outputs[0]
	if familyOf(out.DType) != famFloat {
		return unsupported(c, out.DType)
	}
	if !(low <= high) {
		return fmt.Errorf("%s: low %g is above high %g", c.Kernel, low, high)
	}
	for idx := range indices(out.Shape) {
		o := offsetOf(idx, out.Strides)
		for range maxRedraws {
			storeF(out, o, low+(high-low)*g.float())
			if loadF(out, o) < high || low == high {
				break
			}
		}
	}
	return nil
}

// randomNormal writes normal values of the given mean and scale (standard
// deviation).
func randomNormal(c *wgrt.Call) error {
	if err := need(c, 1, 0, 0); err != nil {
		return err
	}
	a := attrsOf(c)
	mean, scale := a.Float("mean"), a.Float("scale")
	g := newRNG(a)
	if a.err != nil {
		return a.err
	}
	out := c.Outputs[0]
	if familyOf(out.DType) != famFloat {
		return unsupported(c, out.DType)
	}
	for idx := range indices(out.Shape) {
		storeF(out, offsetOf(idx, out.Strides), mean+scale*g.normal())
	}
	return nil
}

// bernoulli writes 1 where a uniform draw in [0, 1) is below the input's
// probability, else 0: 1 with that probability (never for p <= 0, always
// for p >= 1), in any output dtype.
func bernoulli(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	a := attrsOf(c)
	g := newRNG(a)
	if a.err != nil {
		return a.err
	}
	out, p := c.Outputs[0], c.Inputs[0]
	if familyOf(p.DType) != famFloat {
		return unsupported(c, p.DType)
	}
	if !sameShape(out.Shape, p.Shape) {
		return fmt.Errorf("%s: output shape %v, want the input's %v", c.Kernel, out.Shape, p.Shape)
	}
	for idx := range indices(out.Shape) {
		v := 0.0
		if g.float() < loadF(p, offsetOf(idx, p.Strides)) {
			v = 1
		}
		storeF(out, offsetOf(idx, out.Strides), v)
	}
	return nil
}
