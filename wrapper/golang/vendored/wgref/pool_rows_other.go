//go:build !amd64

package wgref

// No assembly here: rowSum and rowMax loop over every element.
func rowSumVec(x []float32) (float64, int) { return 0, 0 }

func rowMaxVec(x []float32) (float32, int) { return negInf32, 0 }
