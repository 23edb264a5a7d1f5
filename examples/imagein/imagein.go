// Command imagein turns a PNG or JPEG image into the input tensor of an
// ImageNet classifier (a torchvision ResNet, MobileNet, ViT...) and saves
// it as a .npy file that `wrapgen run -in` reads, with the standard
// library and the wrapper's runtime only:
//
//	go run ./examples/imagein -o input.npy photo.jpg
//	wrapgen run -in input=input.npy model.onnx
//
// The steps are torchvision's usual ones, on float tensors: ToTensor (RGB
// in [0, 1], channels first), Resize(256) of the shorter side (bilinear,
// without antialiasing: resize(antialias=False)), CenterCrop(224), and
// Normalize with ImageNet's mean and std, giving f32 [1, 3, 224, 224].
//
// In a program of your own, Preprocess's tensor goes straight into a
// generated wrapper's Inputs; import the runtime copy `wrapgen gen` wrote
// beside your wrapper (its Tensor is the type your Inputs take) instead
// of this repository's.
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // image.Decode reads JPEG
	_ "image/png"  // and PNG
	"math"
	"os"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Preprocessing says how an image becomes a tensor.
type Preprocessing struct {
	// Resize is the length the shorter side is scaled to (the longer
	// keeps the aspect ratio); 0 keeps the size.
	Resize int
	// Crop is the side of the square taken from the center; 0 takes all.
	Crop int
	// Mean and Std normalize each channel (R, G, B) of values in [0, 1]:
	// (v - Mean) / Std.
	Mean, Std [3]float32
}

// ImageNet is torchvision's preprocessing of its ImageNet classifiers.
var ImageNet = Preprocessing{Resize: 256, Crop: 224,
	Mean: [3]float32{0.485, 0.456, 0.406}, Std: [3]float32{0.229, 0.224, 0.225}}

// Preprocess turns img into a normalized f32 tensor [1, 3, H, W] (NCHW,
// batch 1).
func Preprocess(img image.Image, p Preprocessing) (wgrt.Tensor, error) {
	planes, w, h := rgbPlanes(img)
	if w == 0 || h == 0 {
		return wgrt.Tensor{}, fmt.Errorf("the image is empty (%dx%d)", w, h)
	}
	if p.Resize > 0 {
		// torchvision: the longer side is int(size * long / short).
		nw, nh := p.Resize, p.Resize
		if w > h {
			nw = int(float64(p.Resize) * float64(w) / float64(h))
		} else {
			nh = int(float64(p.Resize) * float64(h) / float64(w))
		}
		planes, w, h = resizeBilinear(planes, w, h, nw, nh), nw, nh
	}
	x0, y0, cw, ch := 0, 0, w, h
	if p.Crop > 0 {
		if p.Crop > w || p.Crop > h {
			return wgrt.Tensor{}, fmt.Errorf("cannot crop %dx%d from an image of %dx%d", p.Crop, p.Crop, w, h)
		}
		// torchvision rounds the offsets half to even (Python's round).
		cw, ch = p.Crop, p.Crop
		x0 = int(math.RoundToEven(float64(w-cw) / 2))
		y0 = int(math.RoundToEven(float64(h-ch) / 2))
	}
	for c, s := range p.Std {
		if s == 0 {
			return wgrt.Tensor{}, fmt.Errorf("std of channel %d is 0", c)
		}
	}
	t := wgrt.New(wgrt.F32, 1, 3, ch, cw)
	out := t.Float32s()
	for c := 0; c < 3; c++ {
		src, dst := planes[c*w*h:], out[c*cw*ch:]
		for y := 0; y < ch; y++ {
			for x := 0; x < cw; x++ {
				dst[y*cw+x] = (src[(y0+y)*w+x0+x] - p.Mean[c]) / p.Std[c]
			}
		}
	}
	return t, nil
}

// rgbPlanes is img as three planes (R, G, B) of row-major values in
// [0, 1], 8-bit values over 255 as torchvision's ToTensor gives them; an
// alpha channel is dropped (the colors are not premultiplied by it).
func rgbPlanes(img image.Image) ([]float32, int, int) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	planes := make([]float32, 3*w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			i := y*w + x
			planes[i], planes[w*h+i], planes[2*w*h+i] = float32(c.R)/255, float32(c.G)/255, float32(c.B)/255
		}
	}
	return planes, w, h
}

// resizeBilinear scales three w×h planes to nw×nh by bilinear
// interpolation at pixel centers (align_corners=False, no antialiasing).
func resizeBilinear(src []float32, w, h, nw, nh int) []float32 {
	dst := make([]float32, 3*nw*nh)
	// at is the two source indices and the weight of the second for
	// destination index i along a side of n scaled to m.
	at := func(i, n, m int) (int, int, float32) {
		s := (float64(i)+0.5)*float64(n)/float64(m) - 0.5
		s = max(s, 0)
		i0 := min(int(s), n-1)
		return i0, min(i0+1, n-1), float32(s - float64(i0))
	}
	for y := 0; y < nh; y++ {
		y0, y1, fy := at(y, h, nh)
		for x := 0; x < nw; x++ {
			x0, x1, fx := at(x, w, nw)
			for c := 0; c < 3; c++ {
				p := src[c*w*h:]
				top := p[y0*w+x0] + (p[y0*w+x1]-p[y0*w+x0])*fx
				bottom := p[y1*w+x0] + (p[y1*w+x1]-p[y1*w+x0])*fx
				dst[c*nw*nh+y*nw+x] = top + (bottom-top)*fy
			}
		}
	}
	return dst
}

// convert reads the image at path and saves its tensor as a .npy file.
func convert(path, out string, p Preprocessing) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	img, format, err := image.Decode(f)
	if err != nil {
		return fmt.Errorf("%s: not a PNG or JPEG image: %w", path, err)
	}
	t, err := Preprocess(img, p)
	if err != nil {
		return fmt.Errorf("%s (%s): %w", path, format, err)
	}
	return wgrt.SaveNpy(out, t)
}

func main() {
	out := flag.String("o", "input.npy", "the .npy file to write")
	p := ImageNet
	flag.IntVar(&p.Resize, "resize", p.Resize, "scale the shorter side to this many pixels (0: keep the size)")
	flag.IntVar(&p.Crop, "crop", p.Crop, "take the square of this side at the center (0: all)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: imagein [-o input.npy] [-resize 256] [-crop 224] image.{png,jpg}\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := convert(flag.Arg(0), *out, p); err != nil {
		fmt.Fprintln(os.Stderr, "imagein:", err)
		os.Exit(1)
	}
}
