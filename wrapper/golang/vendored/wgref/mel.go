package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	register("MelWeightMatrix", melWeightMatrix)
}

// melWeightMatrix is ONNX MelWeightMatrix as ONNX's reference
// implementation computes it: num_mel_bins + 2 points from mel(lower) by
// steps of (mel(upper) - mel(lower)) / (num_mel_bins + 2) (so the last
// stops short of upper_edge_hertz), each turned into a spectrogram bin,
// floor((dft_length + 1) hz / sample_rate); band i is a triangle rising
// from bin i to 1 at bin i + 1 and falling towards 0 at bin i + 2. The
// output is [dft_length/2 + 1, num_mel_bins].
func melWeightMatrix(c *wgrt.Call) error {
	if err := need(c, 1, 0, 0); err != nil {
		return err
	}
	a := attrsOf(c)
	dft, rate := a.Int("dft_length"), a.Int("sample_rate")
	lower, upper := a.Float("lower_edge_hertz"), a.Float("upper_edge_hertz")
	if a.err != nil {
		return a.err
	}
	out := c.Outputs[0]
	if len(out.Shape) != 2 || dft < 0 || out.Shape[0] != dft/2+1 || rate <= 0 {
		return fmt.Errorf("%s: output %v does not fit dft_length %d and sample_rate %d", c.Kernel, out.Shape, dft, rate)
	}
	rows, bands := out.Shape[0], out.Shape[1]
	for r := range rows {
		for b := range bands {
			storeF(out, r*out.Strides[0]+b*out.Strides[1], 0)
		}
	}
	lowMel := hzToMel(lower)
	step := (hzToMel(upper) - lowMel) / float64(bands+2)
	for b := range bands {
		var edge [3]int // left, centre, right
		for k := range edge {
			hz := 700 * (math.Pow(10, (float64(b+k)*step+lowMel)/2595) - 1)
			e := floorDiv(float64(dft+1)*hz, float64(rate))
			if !(math.Abs(e) < 1<<52) {
				return fmt.Errorf("%s: band %d: frequency %g Hz is out of range", c.Kernel, b, hz)
			}
			edge[k] = int(e)
		}
		lo, mid, hi := edge[0], edge[1], edge[2]
		put := func(j int, v float64) bool {
			if j < 0 || j >= rows {
				return false
			}
			storeF(out, j*out.Strides[0]+b*out.Strides[1], v)
			return true
		}
		// As the reference: the rise (the peak alone when it has no
		// width), then the fall.
		ok := true
		if mid == lo {
			ok = put(mid, 1)
		} else {
			for j := lo; j <= mid && ok; j++ {
				ok = put(j, float64(j-lo)/float64(mid-lo))
			}
		}
		for j := mid; j < hi && ok; j++ {
			ok = put(j, float64(hi-j)/float64(hi-mid))
		}
		if !ok {
			return fmt.Errorf("%s: band %d (spectrogram bins %d, %d, %d) falls outside [0, %d): lower_edge_hertz %g and upper_edge_hertz %g do not fit sample_rate %d and dft_length %d",
				c.Kernel, b, lo, mid, hi, rows, lower, upper, rate, dft)
		}
	}
	return nil
}

func hzToMel(hz float64) float64 { return 2595 * math.Log10(1+hz/700) }

// floorDiv is a // b on floats as numpy computes it: the floor of the exact
// quotient, which math.Floor(a/b) misses when a/b rounds up to an integer.
func floorDiv(a, b float64) float64 {
	mod := math.Mod(a, b)
	div := (a - mod) / b
	if mod != 0 && (b < 0) != (mod < 0) {
		div--
	}
	f := math.Floor(div)
	if div-f > 0.5 {
		f++
	}
	return f
}
