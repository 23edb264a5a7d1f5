// Package serve is a concurrent HTTP server of examples/tinybert's
// encoder, the shape of a Go service around a generated wrapper: the
// params are loaded once, prepared once (PrepareParams: the reference
// kernels' packed weights), and shared read-only by a fixed set of
// Runners, one per call in flight. N Runners hold one copy of the weights
// and N sets of pools; a request waits for an idle Runner, or until its
// context ends, so memory stays bounded however many requests arrive.
//
//	p, _ := tinybert.LoadParams("tinybert.safetensors")
//	s, _ := serve.New(p, serve.Options{InFlight: 4})
//	defer s.Close()
//	http.Handle("/encode", s)
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/wrapgen/wrapgen/examples/tinybert"
	"github.com/wrapgen/wrapgen/examples/tinybert/wgref"
	"github.com/wrapgen/wrapgen/examples/tinybert/wgrt"
)

// Request is one call's input: token ids and their attention mask, both
// [batch, seq] in row-major order.
type Request struct {
	Shape         []int   `json:"shape"`
	InputIDs      []int64 `json:"input_ids"`
	AttentionMask []int64 `json:"attention_mask"`
}

// Response is the encoder's pooled output, [batch, 32] in row-major
// order.
type Response struct {
	Shape  []int     `json:"shape"`
	Pooled []float32 `json:"pooled"`
}

// Options size a Server.
type Options struct {
	// InFlight is how many calls run at once, each on a Runner of its own
	// (default 1).
	InFlight int
	// Threads is each call's kernel goroutines (tinybert.Options.Threads; 0:
	// the CPUs the process may use).
	Threads int
}

// worker is one Runner and the kernels it calls: generated kernels keep
// per-call state, so each Runner has its own.
type worker struct {
	runner  *tinybert.Runner
	kernels tinybert.Kernels
}

// Server answers POST requests whose body is a Request with a Response.
// It is safe for concurrent use (net/http calls it from many goroutines).
type Server struct {
	prepared *tinybert.PreparedParams
	idle     chan *worker // the Runners no call holds
	workers  []*worker
}

// New prepares p once and makes opts.InFlight Runners that share it.
func New(p *tinybert.Params, opts Options) (*Server, error) {
	n := max(1, opts.InFlight)
	pp, err := tinybert.PrepareParams(p, wgref.Prepare)
	if err != nil {
		return nil, err
	}
	s := &Server{prepared: pp, idle: make(chan *worker, n)}
	for range n {
		r, err := tinybert.NewSharedRunner(pp, tinybert.Options{Threads: opts.Threads})
		if err != nil {
			s.Close()
			return nil, err
		}
		w := &worker{runner: r, kernels: tinybert.RefKernels()}
		s.workers = append(s.workers, w)
		s.idle <- w
	}
	return s, nil
}

// PreparedBytes is the memory of the prepared weights, held once for all
// the Server's Runners.
func (s *Server) PreparedBytes() int { return s.prepared.Bytes() }

// Close frees every Runner's pools. Call it after the last request.
func (s *Server) Close() {
	for _, w := range s.workers {
		w.runner.Close()
	}
}

// Encode runs one request on an idle Runner, waiting for one until ctx
// ends; a Runner stops between ops once ctx ends (RunContext).
func (s *Server) Encode(ctx context.Context, in *Request) (*Response, error) {
	if len(in.Shape) != 2 || in.Shape[0] < 1 || in.Shape[1] < 1 {
		return nil, badRequest(fmt.Errorf("shape %v: want [batch, seq], both at least 1", in.Shape))
	}
	n := in.Shape[0] * in.Shape[1]
	if len(in.InputIDs) != n || len(in.AttentionMask) != n {
		return nil, badRequest(fmt.Errorf("shape %v holds %d tokens: got %d input ids and %d mask values", in.Shape, n, len(in.InputIDs), len(in.AttentionMask)))
	}
	var w *worker
	select {
	case w = <-s.idle:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { s.idle <- w }()
	inputs := tinybert.Inputs{
		InputIds:      wgrt.View(in.InputIDs, in.Shape...),
		AttentionMask: wgrt.View(in.AttentionMask, in.Shape...),
	}
	var out tinybert.Outputs // views of the Runner's pools, valid until its next call
	if err := w.runner.RunContext(ctx, w.kernels, &inputs, &out); err != nil {
		var op *wgrt.OpError
		if errors.As(err, &op) || ctx.Err() != nil {
			return nil, err
		}
		return nil, badRequest(err) // the wrapper refused the inputs
	}
	return &Response{Shape: slices.Clone(out.Pooled.Shape), Pooled: slices.Clone(out.Pooled.Float32s())}, nil
}

// ServeHTTP decodes a Request, runs it and writes the Response as JSON;
// 400 for a request the model cannot take, 503 when the request ended
// before a Runner was free or while it ran.
func (s *Server) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		http.Error(rw, "POST a JSON Request", http.StatusMethodNotAllowed)
		return
	}
	var in Request
	if err := json.NewDecoder(http.MaxBytesReader(rw, req.Body, 1<<20)).Decode(&in); err != nil {
		http.Error(rw, "bad request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	resp, err := s.Encode(req.Context(), &in)
	var bad *requestError
	switch {
	case err == nil:
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(resp)
	case errors.As(err, &bad):
		http.Error(rw, err.Error(), http.StatusBadRequest)
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		http.Error(rw, err.Error(), http.StatusServiceUnavailable)
	default:
		http.Error(rw, err.Error(), http.StatusInternalServerError)
	}
}

// requestError is an error in the request, not the server.
type requestError struct{ err error }

func badRequest(err error) error      { return &requestError{err} }
func (e *requestError) Error() string { return e.err.Error() }
func (e *requestError) Unwrap() error { return e.err }
