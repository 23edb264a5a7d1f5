package wgref

// The sizes wrapgen's planner reads to reserve the kernels' scratch
// (package refscratch spells each kernel's need as an expression of the
// op's shapes): exported so that its rules take them from here, the one
// place they are defined, rather than copying them.
const (
	// ScratchMR and ScratchNR are the largest micro-kernel block of any
	// path; packing is sized by them, so one rule holds on every CPU.
	ScratchMR, ScratchNR = maxMR, maxNR
	// ScratchBlockK, ScratchBlockN and ScratchBlockM are sgemm's cache
	// blocks of depth, columns and rows, which cap its packing.
	ScratchBlockK, ScratchBlockN, ScratchBlockM = blockK, blockN, blockM
	// ScratchGemvMaxRows is the most rows sgemm runs unpacked.
	ScratchGemvMaxRows = gemvMaxRows
	// ScratchRTPad pads the rows of a recurrent kernel's transposed R, and
	// ScratchDotRowsMaxBatch is the largest batch whose steps read R
	// itself.
	ScratchRTPad, ScratchDotRowsMaxBatch = rtPad, dotRowsMaxBatch
	// ScratchProjectSteps is how many time steps' input projections a
	// recurrent kernel holds at once.
	ScratchProjectSteps = projectSteps
)
