package onnx

import "fmt"

// melWeightMatrix is MelWeightMatrix. num_mel_bins and dft_length fix the
// output shape, [dft_length/2 + 1, num_mel_bins], so they are needed at
// import time; the frequencies are read then too, all becoming attributes
// the kernel computes the matrix from (at import time, when it folds).
func melWeightMatrix(c *nodeCtx) error {
	var ints [3]int64
	for i, what := range []string{"num_mel_bins", "dft_length", "sample_rate"} {
		v, err := c.constInts(i, what)
		if err != nil {
			return err
		}
		if len(v) != 1 {
			return fmt.Errorf("input %d (%s) must hold one value, not %d", i, what, len(v))
		}
		ints[i] = v[0]
	}
	bins, dft, rate := ints[0], ints[1], ints[2]
	if bins < 0 || dft < 0 || rate <= 0 {
		return fmt.Errorf("num_mel_bins %d and dft_length %d must not be negative, sample_rate %d must be positive", bins, dft, rate)
	}
	var hz [2]float64
	for k, what := range []string{"lower_edge_hertz", "upper_edge_hertz"} {
		x, _, err := c.scalarFloat(3+k, what) // required, so never absent
		if err != nil {
			return err
		}
		hz[k] = x
	}
	d, err := dtypeOf(c.attrInt("output_datatype", 1))
	if err != nil {
		return unsup("%v", err)
	}
	switch d {
	case "f32", "f64", "f16", "bf16", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64":
	default:
		return fmt.Errorf("output_datatype %s is not one MelWeightMatrix allows", d)
	}
	c.emitInt("dft_length", dft)
	c.emitInt("sample_rate", rate)
	c.emitFloat("lower_edge_hertz", hz[0])
	c.emitFloat("upper_edge_hertz", hz[1])
	c.setOut(0, d, consts([]int64{dft/2 + 1, bins}))
	return nil
}
