package sentinel

import (
	"fmt"
	"unsafe"

	"github.com/wrapgen/wrapgen/wrapper/golang/vendored/wgrt"
)

// Allocators stands host memory in for each named device, so a graph on
// devices other than "cpu" is checked like a cpu one. Each fake device
// checks that it is given back only buffers it handed out, once.
func (c *Checker) Allocators(devices ...string) wgrt.Allocators {
	as := wgrt.Allocators{}
	for _, d := range devices {
		as[d] = &fakeDevice{name: d, c: c, live: map[*byte]int{}}
	}
	return as
}

type fakeDevice struct {
	name string
	c    *Checker
	live map[*byte]int // first byte → size, of buffers handed out
}

func (f *fakeDevice) Alloc(size, align int) ([]byte, error) {
	buf, err := wgrt.CPU{}.Alloc(size, align)
	if err != nil || size == 0 {
		return buf, err
	}
	f.live[unsafe.SliceData(buf)] = size
	return buf, nil
}

func (f *fakeDevice) Free(buf []byte) {
	if cap(buf) == 0 {
		return
	}
	p := unsafe.SliceData(buf)
	if _, ok := f.live[p]; !ok {
		f.c.fail(fmt.Errorf("device %q: a buffer was freed that it did not hand out, or twice", f.name))
		return
	}
	delete(f.live, p)
}
