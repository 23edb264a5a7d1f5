package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() { register("GridSample", gridSample) }

// gridSample samples X [N, C, H, W] at the grid's normalized (x, y) points
// ([-1, 1] spans the input), as PyTorch's grid_sample (which ONNX
// follows): bilinear, nearest or bicubic, out-of-range points padded with
// zeros, the border, or the input reflected.
func gridSample(c *wgrt.Call) error {
	if err := need(c, 1, 2, 2); err != nil {
		return err
	}
	out, x, grid := c.Outputs[0], c.Inputs[0], c.Inputs[1]
	a := attrsOf(c)
	mode, padding, align := a.String("mode"), a.String("padding_mode"), a.Int("align_corners") != 0
	if a.err != nil {
		return a.err
	}
	if len(x.Shape) != 4 || len(grid.Shape) != 4 || grid.Shape[3] != 2 {
		return fmt.Errorf("%s: X %v and grid %v: want [N, C, H, W] and [N, H_out, W_out, 2]", c.Kernel, x.Shape, grid.Shape)
	}
	switch padding {
	case "zeros", "border", "reflection":
	default:
		return fmt.Errorf("%s: padding_mode %q", c.Kernel, padding)
	}
	h, w := x.Shape[2], x.Shape[3]
	// at is X[n, ch, yy, xx], or 0 outside the input.
	at := func(n, ch, yy, xx int) float64 {
		if yy < 0 || yy >= h || xx < 0 || xx >= w {
			return 0
		}
		return loadF(x, n*x.Strides[0]+ch*x.Strides[1]+yy*x.Strides[2]+xx*x.Strides[3])
	}
	for o := range indices(out.Shape) {
		n, ch, oy, ox := o[0], o[1], o[2], o[3]
		g := n*grid.Strides[0] + oy*grid.Strides[1] + ox*grid.Strides[2]
		gx, gy := loadF(grid, g), loadF(grid, g+grid.Strides[3])
		var v float64
		switch mode {
		case "bilinear", "nearest":
			ix, iy := sourceIndex(gx, w, padding, align), sourceIndex(gy, h, padding, align)
			if mode == "nearest" {
				v = at(n, ch, int(math.RoundToEven(iy)), int(math.RoundToEven(ix)))
				break
			}
			x0, y0 := math.Floor(ix), math.Floor(iy)
			tx, ty := ix-x0, iy-y0
			xi, yi := int(x0), int(y0)
			v = at(n, ch, yi, xi)*(1-tx)*(1-ty) + at(n, ch, yi, xi+1)*tx*(1-ty) +
				at(n, ch, yi+1, xi)*(1-tx)*ty + at(n, ch, yi+1, xi+1)*tx*ty
		case "bicubic":
			ix, iy := unnormalize(gx, w, align), unnormalize(gy, h, align)
			x0, y0 := math.Floor(ix), math.Floor(iy)
			cx, cy := cubicCoeffs(ix-x0), cubicCoeffs(iy-y0)
			for j := 0; j < 4; j++ {
				row := 0.0
				for i := 0; i < 4; i++ {
					xx := boundedIndex(int(x0)-1+i, w, padding, align)
					yy := boundedIndex(int(y0)-1+j, h, padding, align)
					row += cx[i] * at(n, ch, yy, xx)
				}
				v += cy[j] * row
			}
		default:
			return fmt.Errorf("%s: mode %q", c.Kernel, mode)
		}
		storeF(out, offsetOf(o, out.Strides), v)
	}
	return nil
}

// unnormalize maps a grid coordinate in [-1, 1] to the input's pixels.
func unnormalize(g float64, size int, align bool) float64 {
	if align {
		return (g + 1) / 2 * float64(size-1)
	}
	return ((g+1)*float64(size) - 1) / 2
}

// sourceIndex is the pixel coordinate a grid coordinate samples, after
// the padding mode's clipping or reflection.
func sourceIndex(g float64, size int, padding string, align bool) float64 {
	ix := unnormalize(g, size, align)
	return padCoordinate(ix, size, padding, align)
}

func padCoordinate(ix float64, size int, padding string, align bool) float64 {
	switch padding {
	case "border":
		return clipPixel(ix, size)
	case "reflection":
		if align {
			ix = reflect(ix, 0, 2*float64(size-1))
		} else {
			ix = reflect(ix, -1, 2*float64(size)-1)
		}
		return clipPixel(ix, size)
	}
	return ix
}

// boundedIndex is bicubic's integer tap with the padding applied (a tap
// left outside reads 0).
func boundedIndex(i, size int, padding string, align bool) int {
	if padding == "zeros" {
		return i
	}
	return int(padCoordinate(float64(i), size, padding, align))
}

func clipPixel(x float64, size int) float64 { return math.Min(float64(size-1), math.Max(x, 0)) }

// reflect folds x into [low, high]/2 by reflection at both ends.
func reflect(x, twiceLow, twiceHigh float64) float64 {
	if twiceLow == twiceHigh {
		return 0
	}
	lo, span := twiceLow/2, (twiceHigh-twiceLow)/2
	x = math.Abs(x - lo)
	extra := math.Mod(x, span)
	if flips := math.Floor(x / span); math.Mod(flips, 2) == 0 {
		return extra + lo
	}
	return span - extra + lo
}

// cubicCoeffs are the 4 taps' weights at fraction t (A = -0.75).
func cubicCoeffs(t float64) [4]float64 {
	const A = -0.75
	conv1 := func(x float64) float64 { return ((A+2)*x-(A+3))*x*x + 1 }
	conv2 := func(x float64) float64 { return ((A*x-5*A)*x+8*A)*x - 4*A }
	return [4]float64{conv2(t + 1), conv1(t), conv1(1 - t), conv2(2 - t)}
}

func init() { register("RoiAlign", roiAlign) }

// roiAlign averages (or takes the largest of) bilinear samples of X over a
// grid of points in each output bin of each region, as ONNX Runtime does.
func roiAlign(c *wgrt.Call) error {
	if err := need(c, 1, 3, 3); err != nil {
		return err
	}
	out, x, rois, batch := c.Outputs[0], c.Inputs[0], c.Inputs[1], c.Inputs[2]
	a := attrsOf(c)
	coord, mode := a.String("coordinate_transformation_mode"), a.String("mode")
	oh, ow, ratio, scale := a.Int("output_height"), a.Int("output_width"), a.Int("sampling_ratio"), a.Float("spatial_scale")
	if a.err != nil {
		return a.err
	}
	if mode != "avg" && mode != "max" {
		return fmt.Errorf("%s: mode %q", c.Kernel, mode)
	}
	h, w := x.Shape[2], x.Shape[3]
	offset := 0.0
	if coord == "half_pixel" {
		offset = 0.5
	}
	for r := 0; r < out.Shape[0]; r++ {
		b := int(loadI(batch, r*batch.Strides[0]))
		if b < 0 || b >= x.Shape[0] {
			return fmt.Errorf("%s: batch index %d is outside [0, %d)", c.Kernel, b, x.Shape[0])
		}
		roi := func(k int) float64 { return loadF(rois, r*rois.Strides[0]+k*rois.Strides[1])*scale - offset }
		x1, y1, x2, y2 := roi(0), roi(1), roi(2), roi(3)
		rw, rh := x2-x1, y2-y1
		if coord != "half_pixel" {
			rw, rh = math.Max(rw, 1), math.Max(rh, 1)
		}
		bh, bw := rh/float64(oh), rw/float64(ow)
		gh, gw := ratio, ratio
		if ratio <= 0 {
			gh, gw = int(math.Ceil(rh/float64(oh))), int(math.Ceil(rw/float64(ow)))
		}
		count := float64(max(gh*gw, 1))
		for ch := 0; ch < x.Shape[1]; ch++ {
			base := b*x.Strides[0] + ch*x.Strides[1]
			px := func(yy, xx int) float64 { return loadF(x, base+yy*x.Strides[2]+xx*x.Strides[3]) }
			for ph := 0; ph < oh; ph++ {
				for pw := 0; pw < ow; pw++ {
					acc := 0.0
					first := true
					for iy := 0; iy < gh; iy++ {
						sy := y1 + float64(ph)*bh + (float64(iy)+0.5)*bh/float64(gh)
						for ix := 0; ix < gw; ix++ {
							sx := x1 + float64(pw)*bw + (float64(ix)+0.5)*bw/float64(gw)
							if sy < -1 || sy > float64(h) || sx < -1 || sx > float64(w) {
								if mode == "max" && first {
									acc, first = 0, false
								}
								continue
							}
							yy, xx := math.Max(sy, 0), math.Max(sx, 0)
							y0, x0 := int(yy), int(xx)
							y1i, x1i := y0+1, x0+1
							if y0 >= h-1 {
								y0, y1i, yy = h-1, h-1, float64(h-1)
							}
							if x0 >= w-1 {
								x0, x1i, xx = w-1, w-1, float64(w-1)
							}
							ly, lx := yy-float64(y0), xx-float64(x0)
							hy, hx := 1-ly, 1-lx
							v1, v2, v3, v4 := hy*hx*px(y0, x0), hy*lx*px(y0, x1i), ly*hx*px(y1i, x0), ly*lx*px(y1i, x1i)
							if mode == "avg" {
								acc += v1 + v2 + v3 + v4
							} else {
								m := math.Max(math.Max(v1, v2), math.Max(v3, v4))
								if first || m > acc {
									acc, first = m, false
								}
							}
						}
					}
					if mode == "avg" {
						acc /= count
					}
					storeF(out, r*out.Strides[0]+ch*out.Strides[1]+ph*out.Strides[2]+pw*out.Strides[3], acc)
				}
			}
		}
	}
	return nil
}
