package main

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// at is element (c, y, x) of a [1, 3, H, W] tensor.
func at(t wgrt.Tensor, c, y, x int) float32 { return t.Float32s()[t.Index(0, c, y, x)] }

// Each pixel becomes (v/255 - mean) / std per channel, channels first;
// alpha is dropped, not multiplied in.
func TestPreprocessNormalizesNCHW(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	px := [][]color.NRGBA{
		{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}},
		{{0, 0, 0, 255}, {255, 255, 255, 255}, {10, 20, 30, 128}},
	}
	for y, row := range px {
		for x, c := range row {
			img.SetNRGBA(x, y, c)
		}
	}
	p := ImageNet
	p.Resize, p.Crop = 0, 0
	x, err := Preprocess(img, p)
	require.NoError(t, err)
	assert.Equal(t, wgrt.F32, x.DType)
	assert.Equal(t, []int{1, 3, 2, 3}, x.Shape)
	for y, row := range px {
		for xi, c := range row {
			for ch, v := range []uint8{c.R, c.G, c.B} {
				want := (float32(v)/255 - p.Mean[ch]) / p.Std[ch]
				assert.InDelta(t, want, at(x, ch, y, xi), 1e-6, "pixel (%d, %d) channel %d", xi, y, ch)
			}
		}
	}
	assert.InDelta(t, (1-0.485)/0.229, at(x, 0, 0, 0), 1e-6, "red")
	assert.InDelta(t, -0.406/0.225, at(x, 2, 0, 0), 1e-6, "no blue")
}

// The shorter side is scaled as torchvision's Resize(size) does (the
// longer truncated), bilinearly at pixel centers, then the center cropped.
func TestPreprocessResizesAndCrops(t *testing.T) {
	// A horizontal ramp 40 wide, 30 high: x*6 in red.
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for y := 0; y < 30; y++ {
		for x := 0; x < 40; x++ {
			img.SetRGBA(x, y, color.RGBA{uint8(6 * x), 100, 0, 255})
		}
	}
	plain := Preprocessing{Std: [3]float32{1, 1, 1}}
	p := plain
	p.Resize = 15 // to 20x15: each output pixel is the mean of two
	x, err := Preprocess(img, p)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 3, 15, 20}, x.Shape)
	for xi := 0; xi < 20; xi++ {
		assert.InDelta(t, float32(6*(2*xi)+3)/255, at(x, 0, 7, xi), 1e-6, "x %d", xi)
		assert.InDelta(t, float32(100)/255, at(x, 1, 7, xi), 1e-6)
	}
	p.Resize = 20 // 40*20/30 = 26.67: 26 wide
	x, err = Preprocess(img, p)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 3, 20, 26}, x.Shape)
	p.Crop = 16
	c, err := Preprocess(img, p)
	require.NoError(t, err)
	assert.Equal(t, []int{1, 3, 16, 16}, c.Shape)
	// Offsets round((26-16)/2) = 5 across and round((20-16)/2) = 2 down.
	for ch := 0; ch < 3; ch++ {
		assert.Equal(t, at(x, ch, 2, 5), at(c, ch, 0, 0))
		assert.Equal(t, at(x, ch, 17, 20), at(c, ch, 15, 15))
	}
	// A crop of the original size, one odd margin: round(0.5) = 0.
	p = plain
	p.Crop = 29
	c, err = Preprocess(img, p)
	require.NoError(t, err)
	assert.InDelta(t, float32(6*6)/255, at(c, 0, 0, 0), 1e-6, "x offset round(5.5) = 6")

	p.Crop = 31
	_, err = Preprocess(img, p)
	assert.EqualError(t, err, "cannot crop 31x31 from an image of 40x30")
	_, err = Preprocess(image.NewRGBA(image.Rect(0, 0, 0, 3)), ImageNet)
	assert.EqualError(t, err, "the image is empty (0x3)")
}

// The command's work end to end: a PNG and a JPEG written here are read,
// turned into ImageNet's [1, 3, 224, 224] and saved as .npy, which
// wgrt.LoadNpy (and numpy) read back.
func TestConvertWritesNpy(t *testing.T) {
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 320, 240))
	for y := 0; y < 240; y++ {
		for x := 0; x < 320; x++ {
			img.SetRGBA(x, y, color.RGBA{200, 120, 40, 255})
		}
	}
	var pngData, jpegData bytes.Buffer
	require.NoError(t, png.Encode(&pngData, img))
	require.NoError(t, jpeg.Encode(&jpegData, img, &jpeg.Options{Quality: 95}))
	for name, data := range map[string][]byte{"cat.png": pngData.Bytes(), "cat.jpg": jpegData.Bytes()} {
		in, out := filepath.Join(dir, name), filepath.Join(dir, name+".npy")
		require.NoError(t, os.WriteFile(in, data, 0o644))
		require.NoError(t, convert(in, out, ImageNet), name)
		x, err := wgrt.LoadNpy(out)
		require.NoError(t, err, name)
		assert.Equal(t, []int{1, 3, 224, 224}, x.Shape)
		delta := 1e-5
		if name == "cat.jpg" {
			delta = 3.0 / 255 / 0.224 // JPEG is lossy: a few units of 255
		}
		for ch, v := range []float32{200, 120, 40} {
			want := (v/255 - ImageNet.Mean[ch]) / ImageNet.Std[ch]
			assert.InDelta(t, want, at(x, ch, 0, 0), delta, "%s channel %d", name, ch)
			assert.InDelta(t, want, at(x, ch, 223, 223), delta, "%s channel %d", name, ch)
		}
	}
	bad := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(bad, []byte("not an image"), 0o644))
	err := convert(bad, filepath.Join(dir, "x.npy"), ImageNet)
	assert.EqualError(t, err, bad+": not a PNG or JPEG image: image: unknown format")
}
