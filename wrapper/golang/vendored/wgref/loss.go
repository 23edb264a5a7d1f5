package wgref

import (
	"fmt"
	"math"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

func init() {
	register("NegativeLogLikelihoodLoss", func(c *wgrt.Call) error { return loss(c, false) })
	register("SoftmaxCrossEntropyLoss", func(c *wgrt.Call) error { return loss(c, true) })
}

// loss is NegativeLogLikelihoodLoss (x holds log-probabilities) or, with
// softmax, SoftmaxCrossEntropyLoss (x holds scores: their log-softmax over
// the class dimension 1, written to the second output when there is one):
// each position's loss is -logp[class] * weight[class], 0 where the target
// is ignore_index; reduced by "none", "sum" or "mean" (over the weights of
// the positions not ignored).
func loss(c *wgrt.Call, softmax bool) error {
	if len(c.Inputs) < 2 || len(c.Inputs) > 3 || len(c.Outputs) < 1 || len(c.Outputs) > 2 {
		return fmt.Errorf("%s: want input, target, an optional weight and 1 or 2 outputs", c.Kernel)
	}
	x, target, out := c.Inputs[0], c.Inputs[1], c.Outputs[0]
	var weight, logProb *wgrt.Tensor
	if len(c.Inputs) == 3 {
		weight = &c.Inputs[2]
	}
	if len(c.Outputs) == 2 {
		logProb = &c.Outputs[1]
	}
	a := attrsOf(c)
	reduction, ignore, hasIgnore := a.String("reduction"), a.Int("ignore_index"), a.Bool("has_ignore_index")
	if a.err != nil {
		return a.err
	}
	if familyOf(x.DType) != famFloat {
		return unsupported(c, x.DType)
	}
	classes := x.Shape[1]
	// logp is class k's log-probability at target position p (x with its
	// class dimension inserted).
	var xiBuf [maxRank]int
	xi := xiBuf[:len(x.Shape)]
	at := func(p []int, k int) int {
		xi[0], xi[1] = p[0], k
		copy(xi[2:], p[1:])
		return offsetOf(xi, x.Strides)
	}
	sum, weights := 0.0, 0.0
	for p := range indices(target.Shape) {
		peak, logSum := 0.0, 0.0
		if softmax {
			peak = math.Inf(-1)
			for k := 0; k < classes; k++ {
				peak = math.Max(peak, loadF(x, at(p, k)))
			}
			s := 0.0
			for k := 0; k < classes; k++ {
				s += math.Exp(loadF(x, at(p, k)) - peak)
			}
			logSum = math.Log(s)
			if logProb != nil {
				for k := 0; k < classes; k++ {
					v := loadF(x, at(p, k)) // sets xi to the element's index
					storeF(*logProb, offsetOf(xi, logProb.Strides), v-peak-logSum)
				}
			}
		}
		t := int(loadI(target, offsetOf(p, target.Strides)))
		l, w := 0.0, 0.0
		if !hasIgnore || t != ignore {
			if t < 0 || t >= classes {
				return fmt.Errorf("%s: target %d is outside [0, %d)", c.Kernel, t, classes)
			}
			w = 1
			if weight != nil {
				w = loadF(*weight, t*weight.Strides[0])
			}
			lp := loadF(x, at(p, t))
			if softmax {
				lp = lp - peak - logSum
			}
			l = -lp * w
		}
		if reduction == "none" {
			storeF(out, offsetOf(p, out.Strides), l)
		}
		sum += l
		weights += w
	}
	switch reduction {
	case "sum":
		storeF(out, 0, sum)
	case "mean":
		storeF(out, 0, sum/weights)
	}
	return nil
}
