package interp

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgref"
	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// PyTorch models whose sizes agree only at some input sizes
// (testdata/conditional_sizes/make.py, PyTorch's numbers): the importer
// takes height and width as multiples of 4 instead of refusing them, and
// they run and match at two allowed sizes each:
//   - unet: each skip connection concatenates 2*((h+1)//2) with h;
//   - patch_unfold: MobileViT's reshape of a stride-2 map into 2x2 patches.
func TestConditionalSizeModels(t *testing.T) {
	for _, name := range []string{"unet", "patch_unfold"} {
		t.Run(name, func(t *testing.T) {
			runAtEverySize(t, filepath.Join("testdata", "conditional_sizes", name), 2)
		})
	}
}

// A decoder whose positions are torch.arange(seq, dtype=torch.float), its
// sinusoidal encodings computed from them, imports with a dynamic batch and
// sequence and matches PyTorch at lengths 7 and 19.
func TestFloatArangePositions(t *testing.T) {
	runAtEverySize(t, filepath.Join("testdata", "conditional_sizes", "arange_positions"), 2)
}

// A height that is no multiple of 4 is refused when the inputs are bound,
// naming the input, its dimension, the condition and the node it came
// from.
func TestConditionalSizeRefused(t *testing.T) {
	m, g, _ := loadModel(t, filepath.Join("testdata", "conditional_sizes", "unet"))
	defer m.Close()
	require.Len(t, g.Inputs, 1)
	_, err := m.Run(wgref.Call, nil, []wgrt.Tensor{wgrt.New(wgrt.F32, 1, 3, 30, 48)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dimension 2 is 30")
	assert.Contains(t, err.Error(), "4*height_div4")
	assert.Contains(t, err.Error(), `(height_div4 is height/4: height must be a multiple of 4 (node "/Concat"))`)
}
