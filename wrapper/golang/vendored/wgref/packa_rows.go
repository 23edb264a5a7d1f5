package wgref

// packPanel12 is packA's panel of 12 whole rows of a row-major A (rows
// row0.. at rs apart, columns p0..p0+kc): panel[p*12+i] = A[row0+i][p0+p],
// twelve rows read side by side and each step's 12 values written
// together, instead of one row at a time down the panel's stride. About
// twice as fast as the general loop; packing A (the attention products'
// left operands and the activations of every Linear layer) was 15 to 19%
// of tiny_bert's, ViT's and the conformer's time.
func packPanel12(panel []float32, a matrix, row0, p0, kc int) {
	base := row0*a.rs + p0
	rs := a.rs
	s0, s1, s2, s3 := a.data[base:][:kc], a.data[base+rs:][:kc], a.data[base+2*rs:][:kc], a.data[base+3*rs:][:kc]
	s4, s5, s6, s7 := a.data[base+4*rs:][:kc], a.data[base+5*rs:][:kc], a.data[base+6*rs:][:kc], a.data[base+7*rs:][:kc]
	s8, s9, s10, s11 := a.data[base+8*rs:][:kc], a.data[base+9*rs:][:kc], a.data[base+10*rs:][:kc], a.data[base+11*rs:][:kc]
	panel = panel[:12*kc]
	for p := 0; p < kc; p++ {
		out := (*[12]float32)(panel[p*12 : p*12+12])
		out[0], out[1], out[2], out[3] = s0[p], s1[p], s2[p], s3[p]
		out[4], out[5], out[6], out[7] = s4[p], s5[p], s6[p], s7[p]
		out[8], out[9], out[10], out[11] = s8[p], s9[p], s10[p], s11[p]
	}
}
