package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wrapgen/wrapgen/examples/tinybert"
)

// expected is what ../tinybert/export.py recorded from PyTorch.
type expected struct {
	InputIDs      []int64   `json:"input_ids"`
	AttentionMask []int64   `json:"attention_mask"`
	Shape         []int     `json:"shape"`
	Pooled        []float64 `json:"pooled"`
}

func load(t *testing.T) (*tinybert.Params, expected) {
	var want expected
	data, err := os.ReadFile("../tinybert/expected.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &want))
	p, err := tinybert.LoadParams("../tinybert/tinybert.safetensors")
	require.NoError(t, err)
	return p, want
}

func post(t *testing.T, url string, body any) (int, []byte) {
	data, err := json.Marshal(body)
	require.NoError(t, err)
	resp, err := http.Post(url, "application/json", bytes.NewReader(data))
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, got
}

// Many goroutines post at once to a server with three Runners sharing one
// prepared copy of the weights; every answer is PyTorch's (run it with
// -race: the Runners share the weights read-only).
func TestConcurrentRequestsMatchPyTorch(t *testing.T) {
	p, want := load(t)
	s, err := New(p, Options{InFlight: 3, Threads: 2})
	require.NoError(t, err)
	defer s.Close()
	require.Positive(t, s.PreparedBytes())
	for _, w := range s.workers {
		require.Equal(t, s.PreparedBytes(), w.runner.PreparedBytes(), "each Runner reads the one shared copy")
	}
	srv := httptest.NewServer(s)
	defer srv.Close()
	req := Request{Shape: want.Shape, InputIDs: want.InputIDs, AttentionMask: want.AttentionMask}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for call := 0; call < 4; call++ {
				code, body := post(t, srv.URL, req)
				if code != http.StatusOK {
					errs <- string(body)
					return
				}
				var resp Response
				if err := json.Unmarshal(body, &resp); err != nil {
					errs <- err.Error()
					return
				}
				if len(resp.Pooled) != len(want.Pooled) {
					errs <- "wrong length"
					return
				}
				for i, v := range resp.Pooled {
					if math.Abs(float64(v)-want.Pooled[i]) > 1e-3 {
						errs <- "pooled differs from PyTorch's"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// A request the model cannot take is a 400 naming the problem; a request
// whose context has ended before a Runner is free is refused with the
// context's error.
func TestBadRequestsAndCancelledWaits(t *testing.T) {
	p, want := load(t)
	s, err := New(p, Options{InFlight: 1})
	require.NoError(t, err)
	defer s.Close()
	srv := httptest.NewServer(s)
	defer srv.Close()
	code, body := post(t, srv.URL, Request{Shape: []int{2, 3}, InputIDs: want.InputIDs, AttentionMask: want.AttentionMask})
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, string(body), "shape [2 3] holds 6 tokens: got 24 input ids")

	w := <-s.idle // the only Runner is busy
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.Encode(ctx, &Request{Shape: want.Shape, InputIDs: want.InputIDs, AttentionMask: want.AttentionMask})
	require.ErrorIs(t, err, context.Canceled)
	s.idle <- w
}
