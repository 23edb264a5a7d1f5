package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/wgrt"
)

func init() { register("Resize", resizeKernel) }

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
	mode, coord, nearest := a.String("mode"), a.String("coordinate_transformation_mode"), a.String("nearest_mode")
	cubicA, exclude, extrapolation := a.Float("cubic_coeff_a"), a.Int("exclude_outside") != 0, a.Float("extrapolation_value")
	num, den, roiNum, roiDen := a.Ints("scale_num"), a.Ints("scale_den"), a.Ints("roi_num"), a.Ints("roi_den")
	if a.err != nil {
		return a.err
	}
	r := len(x.Shape)
	if len(out.Shape) != r || len(num) != r || len(den) != r || (len(roiNum) != 0 && (len(roiNum) != 2*r || len(roiDen) != 2*r)) {
		return fmt.Errorf("%s: input %v, output %v and %d scales do not fit", c.Kernel, x.Shape, out.Shape, len(num))
	}
	if coord == "tf_crop_and_resize" && len(roiNum) == 0 {
		return fmt.Errorf("%s: tf_crop_and_resize without roi", c.Kernel)
	}
	if familyOf(x.DType) == famOther || familyOf(x.DType) == famBool {
		return unsupported(c, x.DType)
	}
	for k := 0; k < r; k++ {
		if den[k] == 0 || num[k] <= 0 {
			return fmt.Errorf("%s: scale %d/%d on axis %d", c.Kernel, num[k], den[k], k)
		}
		if x.Shape[k] == 0 && out.Shape[k] > 0 {
			return fmt.Errorf("%s: axis %d: an empty input cannot be resized to %d", c.Kernel, k, out.Shape[k])
		}
	}
	var axes [maxRank]resizeAxis
	for o := range indices(out.Shape) {
		outside := false
		for k := 0; k < r; k++ {
			ax := &axes[k]
			roi := [2]float64{0, 1}
			if len(roiNum) > 0 {
				roi = [2]float64{float64(roiNum[k]) / float64(roiDen[k]), float64(roiNum[r+k]) / float64(roiDen[r+k])}
			}
			if err := ax.sample(c.Kernel, o[k], x.Shape[k], float64(num[k])/float64(den[k]), mode, coord, nearest, cubicA, exclude, roi); err != nil {
				return err
			}
			outside = outside || ax.extra
		}
		v := extrapolation
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
