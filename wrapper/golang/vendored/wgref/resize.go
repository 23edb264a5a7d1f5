package wgref

import (
	"fmt"
	"math"
	"slices"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	register("Resize", resizeKernel)
	for n := 0; n <= maxRank; n++ {
		register(fmt.Sprintf("ResizeToSizes%d", n), resizeToSizes)
	}
}

// maxTaps is the most input elements one output element reads per axis
// (cubic).
const maxTaps = 4

// resizeAxis is one axis's sampling of one output coordinate: the input
// indices (already clamped to the edge) and their weights.
type resizeAxis struct {
	n     int
	idx   [maxTaps]int
	coef  [maxTaps]float64
	extra bool // tf_crop_and_resize outside the input: the extrapolation value
}

// resizeModes are the attributes every Resize kernel reads first: how
// output coordinates map to the input and how it is interpolated.
type resizeModes struct {
	mode, coord, nearest  string
	cubicA, extrapolation float64
	exclude               bool
	roiNum, roiDen        []int
}

func readResizeModes(a *attrs) resizeModes {
	return resizeModes{
		mode: a.String("mode"), coord: a.String("coordinate_transformation_mode"), nearest: a.String("nearest_mode"),
		cubicA: a.Float("cubic_coeff_a"), exclude: a.Int("exclude_outside") != 0, extrapolation: a.Float("extrapolation_value"),
		roiNum: a.Ints("roi_num"), roiDen: a.Ints("roi_den"),
	}
}

// resizeKernel is ONNX Resize: each output coordinate maps back to the
// input (coordinate_transformation_mode), and the output element is the
// separable interpolation (nearest, linear or cubic) of the input elements
// around it, the input extended at its edges. Scales come as exact ratios
// scale_num/scale_den (the importer's); roi likewise.
func resizeKernel(c *wgrt.Call) error {
	if err := need(c, 1, 1, 1); err != nil {
		return err
	}
	out, x := c.Outputs[0], c.Inputs[0]
	a := attrsOf(c)
	m := readResizeModes(a)
	num, den := a.Ints("scale_num"), a.Ints("scale_den")
	if a.err != nil {
		return a.err
	}
	r := len(x.Shape)
	if len(out.Shape) != r || len(num) != r || len(den) != r {
		return fmt.Errorf("%s: input %v, output %v and %d scales do not fit", c.Kernel, x.Shape, out.Shape, len(num))
	}
	var scales [maxRank]float64
	for k := 0; k < r; k++ {
		if den[k] == 0 || num[k] <= 0 {
			return fmt.Errorf("%s: scale %d/%d on axis %d", c.Kernel, num[k], den[k], k)
		}
		scales[k] = float64(num[k]) / float64(den[k])
	}
	return resizeInto(c, out, x, scales[:r], m)
}

// resizeToSizes is ResizeToSizes<N>: Resize to the sizes its second input
// holds (for the axes attribute size_axes lists; other axes keep the
// input's size), each scale size/input size as ONNX takes it. The sizes
// of the N axes attribute axes lists are reported less their least values
// (attribute least), one i64 scalar output each, and the output is written row-major and contiguous at the sizes
// read; every other axis must have the output's size.
func resizeToSizes(c *wgrt.Call) error {
	if len(c.Inputs) != 2 || len(c.Outputs) < 1 {
		return fmt.Errorf("%s: %d inputs and %d outputs, want 2 and at least 1", c.Kernel, len(c.Inputs), len(c.Outputs))
	}
	out, x, sizes := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	a := attrsOf(c)
	m := readResizeModes(a)
	sizeAxes, axes, least := a.Ints("size_axes"), a.Ints("axes"), a.Ints("least")
	if a.err != nil {
		return a.err
	}
	r := len(x.Shape)
	counts := c.Outputs[1:]
	if len(out.Shape) != r || len(axes) != len(counts) || len(least) != len(axes) {
		return fmt.Errorf("%s: input %v, output %v and %d sizes reported for axes %v do not fit", c.Kernel, x.Shape, out.Shape, len(counts), axes)
	}
	if sizes.DType != wgrt.I64 || len(sizes.Shape) != 1 || sizes.Shape[0] != len(sizeAxes) {
		return fmt.Errorf("%s: sizes %s %v for %d axes, want i64 [%d]", c.Kernel, sizes.DType, sizes.Shape, len(sizeAxes), len(sizeAxes))
	}
	var shape [maxRank]int
	var scales [maxRank]float64
	copy(shape[:r], x.Shape)
	for k := range r {
		scales[k] = 1
	}
	for i, k := range sizeAxes {
		if k < 0 || k >= r {
			return fmt.Errorf("%s: size axis %d of an input of rank %d", c.Kernel, k, r)
		}
		n := loadI(sizes, i*sizes.Strides[0])
		if n < 0 || n > 1<<40 {
			return fmt.Errorf("%s: size %d on axis %d", c.Kernel, n, k)
		}
		shape[k] = int(n)
		if x.Shape[k] > 0 {
			scales[k] = float64(n) / float64(x.Shape[k])
		}
	}
	reported := [maxRank]bool{}
	for j, k := range axes {
		if k < 0 || k >= r {
			return fmt.Errorf("%s: axis %d of an output of rank %d", c.Kernel, k, r)
		}
		if t := counts[j]; t.DType != wgrt.I64 || t.NumElements() != 1 {
			return fmt.Errorf("%s: output %d (a size) is %s %v, want an i64 scalar", c.Kernel, j+1, t.DType, t.Shape)
		}
		reported[k] = true
	}
	n := 1
	for k := range r {
		if !reported[k] && shape[k] != out.Shape[k] {
			// A copy in the message: shape would move to the heap on every call.
			return fmt.Errorf("%s: the sizes give %v, but the output is %v", c.Kernel, slices.Clone(shape[:r]), out.Shape)
		}
		n *= shape[k]
	}
	if capacity := out.NumElements(); n > capacity {
		return overflow(c, n, capacity)
	}
	for j, k := range axes {
		if shape[k] < least[j] {
			return fmt.Errorf("%s: size %d on axis %d, below the least the import derived, %d", c.Kernel, shape[k], k, least[j])
		}
		storeI(counts[j], 0, int64(shape[k]-least[j]))
	}
	var strides [maxRank]int
	step := 1
	for k := r - 1; k >= 0; k-- {
		strides[k] = step
		step *= shape[k]
	}
	compact := out
	compact.Shape, compact.Strides = shape[:r], strides[:r]
	return resizeInto(c, compact, x, scales[:r], m)
}

// resizeInto writes x resized by scales into out, shaped as the output.
func resizeInto(c *wgrt.Call, out, x wgrt.Tensor, scales []float64, m resizeModes) error {
	r := len(x.Shape)
	if len(m.roiNum) != 0 && (len(m.roiNum) != 2*r || len(m.roiDen) != 2*r) {
		return fmt.Errorf("%s: roi of %d values for an input of rank %d", c.Kernel, len(m.roiNum), r)
	}
	if m.coord == "tf_crop_and_resize" && len(m.roiNum) == 0 {
		return fmt.Errorf("%s: tf_crop_and_resize without roi", c.Kernel)
	}
	if familyOf(x.DType) == famOther || familyOf(x.DType) == famBool {
		return unsupported(c, x.DType)
	}
	for k := 0; k < r; k++ {
		if x.Shape[k] == 0 && out.Shape[k] > 0 {
			return fmt.Errorf("%s: axis %d: an empty input cannot be resized to %d", c.Kernel, k, out.Shape[k])
		}
	}
	if done, err := resizePlanes(c, out, x, scales, m); done || err != nil {
		return err
	}
	return resizeEach(c, out, x, scales, m)
}

// resizeEach is resizeInto element by element, the taps of every axis
// found for each.
func resizeEach(c *wgrt.Call, out, x wgrt.Tensor, scales []float64, m resizeModes) error {
	r := len(x.Shape)
	var axes [maxRank]resizeAxis
	for o := range indices(out.Shape) {
		outside := false
		for k := 0; k < r; k++ {
			ax := &axes[k]
			roi := [2]float64{0, 1}
			if len(m.roiNum) > 0 {
				roi = [2]float64{float64(m.roiNum[k]) / float64(m.roiDen[k]), float64(m.roiNum[r+k]) / float64(m.roiDen[r+k])}
			}
			if err := ax.sample(c.Kernel, o[k], x.Shape[k], scales[k], m.mode, m.coord, m.nearest, m.cubicA, m.exclude, roi); err != nil {
				return err
			}
			outside = outside || ax.extra
		}
		v := m.extrapolation
		if !outside {
			v = resizeSum(x, axes[:r])
		}
		storeF(out, offsetOf(o, out.Strides), v)
	}
	return nil
}

// resizeSum is the weighted sum of the input elements the axes' taps
// name: the product of one tap per axis, over every combination.
func resizeSum(x wgrt.Tensor, axes []resizeAxis) float64 {
	var tap [maxRank]int
	sum := 0.0
	for {
		w, off := 1.0, 0
		for k := range axes {
			w *= axes[k].coef[tap[k]]
			off += axes[k].idx[tap[k]] * x.Strides[k]
		}
		if w != 0 {
			sum += w * loadF(x, off)
		}
		k := len(axes) - 1
		for ; k >= 0; k-- {
			if tap[k]++; tap[k] < axes[k].n {
				break
			}
			tap[k] = 0
		}
		if k < 0 {
			return sum
		}
	}
}

// sample maps output coordinate xo of an axis of in input elements back
// to the input and sets the taps around it, as ONNX's reference does.
func (ax *resizeAxis) sample(kernel string, xo, in int, scale float64, mode, coord, nearest string, cubicA float64, exclude bool, roi [2]float64) error {
	fx, fin := float64(xo), float64(in)
	outW := scale * fin
	var xi float64
	ax.extra = false
	switch coord {
	case "half_pixel":
		xi = (fx+0.5)/scale - 0.5
	case "pytorch_half_pixel":
		xi = -0.5
		if outW != 1 {
			xi = (fx+0.5)/scale - 0.5
		}
	case "align_corners":
		if outW != 1 {
			xi = fx * (fin - 1) / (outW - 1)
		}
	case "asymmetric":
		xi = fx / scale
	case "tf_half_pixel_for_nn":
		xi = (fx + 0.5) / scale
	case "tf_crop_and_resize":
		if outW == 1 {
			xi = (roi[1] - roi[0]) * (fin - 1) / 2
		} else {
			xi = fx * (roi[1] - roi[0]) * (fin - 1) / (outW - 1)
		}
		xi += roi[0] * (fin - 1)
		if xi < 0 || xi > fin-1 {
			ax.extra = true
			return nil
		}
	default:
		return fmt.Errorf("%s: coordinate_transformation_mode %q is not supported", kernel, coord)
	}
	// The taps start at base, the index left of xi (one further left when xi
	// is an index itself: ratio is then 1), as ONNX's reference picks them.
	base := math.Floor(xi)
	ratio := xi - base
	if ratio == 0 {
		base, ratio = xi-1, 1
	}
	var start int
	switch mode {
	case "nearest":
		ax.n, start = 2, int(base)
		lo, hi := 0.0, 1.0
		if ratio != 1 {
			switch nearest {
			case "round_prefer_floor":
				lo, hi = b2f(ratio <= 0.5), b2f(ratio > 0.5)
			case "round_prefer_ceil":
				lo, hi = b2f(ratio < 0.5), b2f(ratio >= 0.5)
			case "floor":
				lo, hi = 1, 0
			case "ceil":
				lo, hi = 0, 1
			default:
				return fmt.Errorf("%s: nearest_mode %q is not supported", kernel, nearest)
			}
		}
		ax.coef[0], ax.coef[1] = lo, hi
	case "linear":
		ax.n, start = 2, int(base)
		ax.coef[0], ax.coef[1] = 1-ratio, ratio
	case "cubic":
		ax.n, start = 4, int(base)-1
		A := cubicA
		s, t := ratio+1, 2-ratio
		ax.coef[0] = ((A*s-5*A)*s+8*A)*s - 4*A
		ax.coef[1] = ((A+2)*ratio-(A+3))*ratio*ratio + 1
		ax.coef[2] = ((A+2)*(1-ratio)-(A+3))*(1-ratio)*(1-ratio) + 1
		ax.coef[3] = ((A*t-5*A)*t+8*A)*t - 4*A
	default:
		return fmt.Errorf("%s: mode %q is not supported", kernel, mode)
	}
	// The taps stay within the input extended by ceil(n/2) at each edge
	// (the reference pads so), then read the edge element there.
	pad := (ax.n + 1) / 2
	start = max(-pad, min(start, in+pad-ax.n))
	sum := 0.0
	for i := 0; i < ax.n; i++ {
		idx := start + i
		if exclude && (idx < 0 || idx >= in) {
			ax.coef[i] = 0
		}
		sum += ax.coef[i]
		ax.idx[i] = max(0, min(idx, in-1))
	}
	if exclude && sum != 0 {
		for i := 0; i < ax.n; i++ {
			ax.coef[i] /= sum
		}
	}
	return nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
