package wgrt

import (
	"fmt"
	"unsafe"
)

// Allocator provides the memory of one device. Alloc returns size bytes
// whose first byte is aligned to align (a power of two); Free is called
// once for every buffer after its last use.
type Allocator interface {
	Alloc(size, align int) ([]byte, error)
	Free(buf []byte)
}

// CPU allocates from the Go heap; Free leaves the buffer to the garbage
// collector. It is the allocator for device "cpu" unless the caller gives
// another. A request above MaxCPUBytes is an error, not an allocation: Go
// cannot recover from running out of memory, so the check comes first.
type CPU struct{}

// MaxCPUBytes is the largest buffer CPU allocates (default 64 GiB); set it
// to what the machine can give.
var MaxCPUBytes = 64 << 30

// Alloc returns size zeroed bytes aligned to align.
func (CPU) Alloc(size, align int) ([]byte, error) {
	if size < 0 || align <= 0 || align&(align-1) != 0 {
		return nil, fmt.Errorf("wgrt: bad allocation of %d bytes aligned to %d", size, align)
	}
	if size > MaxCPUBytes {
		return nil, fmt.Errorf("wgrt: %d bytes is more than wgrt.MaxCPUBytes (%d) allows", size, MaxCPUBytes)
	}
	return AlignedBytes(size, align), nil
}

// Free does nothing: the garbage collector reclaims the buffer once no
// tensor views it.
func (CPU) Free([]byte) {}

// AlignedBytes returns size zeroed bytes from the Go heap whose first byte
// is aligned to align (a power of two).
func AlignedBytes(size, align int) []byte {
	if size == 0 {
		return []byte{}
	}
	buf := make([]byte, size+align-1)
	skip := 0
	if r := int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & uintptr(align-1)); r != 0 {
		skip = align - r
	}
	return buf[skip : skip+size : skip+size]
}

// Allocators maps a device name to its allocator. Device "cpu" falls back
// to CPU when absent.
type Allocators map[string]Allocator

// For returns the allocator of a device.
func (as Allocators) For(device string) (Allocator, error) {
	if a, ok := as[device]; ok && a != nil {
		return a, nil
	}
	if device == "cpu" {
		return CPU{}, nil
	}
	return nil, fmt.Errorf("wgrt: no allocator for device %q; pass one in Options.Allocators", device)
}
