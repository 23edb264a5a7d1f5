package cppref

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"sync"
	"time"
	"unsafe"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Server is a running build of the C++ kernels. Call is a
// wgrt.KernelFunc: each call's tensors (their extents) and attributes go
// to the server, which runs the kernel and sends back the outputs' bytes
// (and those of the inputs the op mutates). Calls are serialized.
type Server struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	in   *bufio.Writer
	pipe io.WriteCloser
	out  *bufio.Reader
	dead error
	// wall and cpu sum the kernels' own times, as the server measured them.
	wall, cpu time.Duration
	last      time.Duration
}

// KernelTimes are the wall and process CPU time the kernels took in the
// server since the last ResetKernelTimes: around each kernel call, so
// they leave out handing tensors over.
func (s *Server) KernelTimes() (wall, cpu time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wall, s.cpu
}

// LastKernelTime is the wall time the last call's kernel took.
func (s *Server) LastKernelTime() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// ResetKernelTimes starts KernelTimes' sums again.
func (s *Server) ResetKernelTimes() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wall, s.cpu = 0, 0
}

// Start starts the server binary Build made, through the words of run
// when there are any (an emulator).
func Start(bin string, run ...string) (*Server, error) {
	args := append(append([]string{}, run...), bin)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Server{cmd: cmd, in: bufio.NewWriterSize(w, 1<<20), pipe: w, out: bufio.NewReaderSize(r, 1<<20)}, nil
}

// Close stops the server.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pipe.Close()
	return s.cmd.Wait()
}

// The first word of every request: a kernel call, or a prepare.
const (
	callMagic    = 0x51524757
	prepareMagic = 0x50524757
)

// extent is the bytes of t's view, from its first element.
func extent(t wgrt.Tensor) []byte {
	if t.Data == nil {
		return nil
	}
	n := t.ExtentElements() * t.DType.Size()
	if n > len(t.Data) {
		n = len(t.Data)
	}
	return t.Data[:n]
}

// prepared is what the server prepared for one op (Prepare's answer, a
// Call's Prepared): its number there, and the constant inputs it keeps,
// which a call then does not send again.
type prepared struct {
	id     int64
	inputs [][]byte
}

// stores reports whether the server holds these very bytes as input i of
// p (the call views the same memory as the prepare did).
func (p *prepared) stores(i int, b []byte) bool {
	if p == nil || i >= len(p.inputs) || len(b) == 0 || len(p.inputs[i]) != len(b) {
		return false
	}
	return unsafe.SliceData(p.inputs[i]) == unsafe.SliceData(b)
}

// request writes one request: c's kernel, tensors and attributes; an
// input p stores goes as a reference to the server's copy.
func (s *Server) request(magic uint32, c *wgrt.Call, p *prepared, mutated map[int]bool) {
	w := s.in
	put := func(v any) { _ = binary.Write(w, binary.LittleEndian, v) }
	str := func(x string) { put(uint32(len(x))); w.WriteString(x) }
	put(magic)
	str(c.Kernel)
	put(int32(c.Threads))
	put(int64(len(c.Scratch)))
	id := int64(-1)
	if p != nil {
		id = p.id
	}
	put(id)
	put(uint32(len(c.Outputs)))
	put(uint32(len(c.Inputs)))
	put(uint32(len(c.Attrs)))
	tensor := func(t wgrt.Tensor, back, stored bool) {
		put(uint8(t.DType))
		put(b2u(t.Data != nil))
		put(b2u(back))
		put(b2u(stored))
		if t.Shape == nil && t.Data == nil && magic == prepareMagic {
			put(int32(-1)) // a layout that depends on a symbol
			put(int64(0))
			return
		}
		put(int32(len(t.Shape)))
		for _, d := range t.Shape {
			put(int64(d))
		}
		for i := range t.Shape {
			st := 0
			if i < len(t.Strides) {
				st = t.Strides[i]
			}
			put(int64(st))
		}
		if stored {
			return
		}
		b := extent(t)
		put(int64(len(b)))
		w.Write(b)
	}
	for _, t := range c.Outputs {
		tensor(t, true, false)
	}
	for i, t := range c.Inputs {
		tensor(t, mutated[i], !mutated[i] && p.stores(i, extent(t)))
	}
	for _, a := range c.Attrs {
		str(a.Name)
		put(uint8(a.Kind))
		switch a.Kind {
		case wgrt.AttrInt:
			put(int64(a.Int))
		case wgrt.AttrFloat:
			put(math.Float64bits(a.Float))
		case wgrt.AttrBool:
			put(b2u(a.Bool))
		case wgrt.AttrString:
			str(a.Str)
		case wgrt.AttrInts:
			put(uint32(len(a.Ints)))
			for _, v := range a.Ints {
				put(int64(v))
			}
		}
	}
}

// readError reads a failed request's message.
func (s *Server) readError() error {
	var n uint32
	if err := binary.Read(s.out, binary.LittleEndian, &n); err != nil {
		return s.fail(err)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(s.out, msg); err != nil {
		return s.fail(err)
	}
	return errors.New(string(msg))
}

// Prepare is a wgrt.PrepareFunc: the server runs wgref::Prepare on c (an
// op's constant call) and keeps its constant inputs with what it
// prepared, for the op's later calls, which then send those inputs by
// reference and read the prepared weights (the C++ Runner's
// Options::prepare). The bytes are what wgref::Prepare allocated.
func (s *Server) Prepare(c *wgrt.Call) (any, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil {
		return nil, 0, s.dead
	}
	s.request(prepareMagic, c, nil, nil)
	if err := s.in.Flush(); err != nil {
		return nil, 0, s.fail(err)
	}
	ok, err := s.out.ReadByte()
	if err != nil {
		return nil, 0, s.fail(err)
	}
	if ok == 0 {
		return nil, 0, s.readError()
	}
	var answer [2]int64
	if err := binary.Read(s.out, binary.LittleEndian, &answer); err != nil {
		return nil, 0, s.fail(err)
	}
	if answer[0] < 0 {
		return nil, 0, nil
	}
	p := &prepared{id: answer[0]}
	for _, t := range c.Inputs {
		p.inputs = append(p.inputs, extent(t))
	}
	return p, int(answer[1]), nil
}

// Call runs c's kernel in the server.
func (s *Server) Call(c *wgrt.Call) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead != nil {
		return s.dead
	}
	mutated := map[int]bool{}
	if c.Op != nil {
		for _, m := range c.Op.Mutates {
			for i, in := range c.Op.Inputs {
				if in == m && i < len(c.Inputs) {
					mutated[i] = true
				}
			}
		}
	}
	p, _ := c.Prepared.(*prepared)
	s.request(callMagic, c, p, mutated)
	if err := s.in.Flush(); err != nil {
		return s.fail(err)
	}
	ok, err := s.out.ReadByte()
	if err != nil {
		return s.fail(err)
	}
	var times [2]int64
	if err := binary.Read(s.out, binary.LittleEndian, &times); err != nil {
		return s.fail(err)
	}
	s.last = time.Duration(times[0])
	s.wall += time.Duration(times[0])
	s.cpu += time.Duration(times[1])
	if ok == 0 {
		return s.readError()
	}
	for _, t := range c.Outputs {
		if _, err := io.ReadFull(s.out, extent(t)); err != nil {
			return s.fail(err)
		}
	}
	for i, t := range c.Inputs {
		if mutated[i] {
			if _, err := io.ReadFull(s.out, extent(t)); err != nil {
				return s.fail(err)
			}
		}
	}
	return nil
}

// fail marks the server dead (it crashed, or the pipe broke): every later
// call fails with the same error.
func (s *Server) fail(err error) error {
	s.dead = fmt.Errorf("cppref: the C++ kernel server died (%v): see its standard error", err)
	return s.dead
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
