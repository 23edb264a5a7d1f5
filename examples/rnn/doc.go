// Package rnn is a runnable example of a wrapgen Go wrapper with a loop: an
// Elman recurrent cell applied "steps" times, where steps is a symbol no
// input's shape gives (so it is a field of Inputs), the hidden state is
// mutated in place each iteration, and "add" is variadic (called with three
// and with two inputs).
package rnn

//go:generate go run github.com/wrapgen/wrapgen/cmd/wrapgen gen -lang go -o rnn_wrapper.go rnn.json
