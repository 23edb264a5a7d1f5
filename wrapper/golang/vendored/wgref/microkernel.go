package wgref

// The register blocks of the float32 GEMM's micro-kernels are mr rows of A
// by nr columns of B, chosen at run time (the widest path the CPU runs).
// maxMR and maxNR are the largest of any path, and every path's mr and nr
// divide them, so a size rounded up to maxMR (maxNR) is at least that size
// rounded up to any path's mr (nr): the scratch rule holds on every path.
const (
	maxMR = 12
	maxNR = 32
)

// kernelPath is one implementation of the micro-kernel, of mr×nr (see
// microKernel).
type kernelPath struct {
	id     kernelID
	name   string
	mr, nr int
}

type kernelID int

const (
	kernelGo kernelID = iota
	kernelAVX2
	kernelAVX512
)

// goPath is the portable micro-kernel, for CPUs without the assembly's
// features and for other architectures.
var goPath = kernelPath{kernelGo, "go", 6, 16}

// The running path: its block and kernel. Set at start-up from the CPU's
// features; tests switch it with useKernelPath (not while kernels run).
var (
	mr, nr  int
	running kernelPath
)

func init() { useKernelPath(bestKernelPath()) }

// useKernelPath makes p the micro-kernel sgemm and the packing use.
func useKernelPath(p kernelPath) { running, mr, nr = p, p.mr, p.nr }

// KernelPath names the micro-kernel the float32 GEMM runs on this CPU
// ("avx512", "avx2" or "go").
func KernelPath() string { return running.name }

// microKernel computes C[0:mr][0:nr] (+)= A·B on the running path, where a
// holds kc steps of mr floats (a packed row panel) and b kc steps of nr
// floats, ldb apart (a packed column panel, or B in place); c is row-major
// with ldc between rows.
func microKernel(kc int, a, b []float32, ldb int, c []float32, ldc int, accumulate bool) {
	running.run(kc, a, b, ldb, c, ldc, accumulate)
}

// microKernelGo is the portable micro-kernel for a block of rows×cols (at
// most maxMR×maxNR); see kernelPath. It is the reference the assembly is
// tested against.
func microKernelGo(rows, cols, kc int, a, b []float32, ldb int, c []float32, ldc int, accumulate bool) {
	var acc [maxMR][maxNR]float32
	for p := 0; p < kc; p++ {
		ap, bp := a[p*rows:p*rows+rows], b[p*ldb:p*ldb+cols]
		for i, ai := range ap {
			row := acc[i][:len(bp)] // as long as bp: no bounds checks below
			for j, bj := range bp {
				row[j] += ai * bj
			}
		}
	}
	for i := 0; i < rows; i++ {
		ci := c[i*ldc : i*ldc+cols]
		if accumulate {
			for j := range ci {
				ci[j] += acc[i][j]
			}
		} else {
			copy(ci, acc[i][:cols])
		}
	}
}
