// Package templates holds the text/template sources of the C++ backend and
// the files it writes verbatim (the runtime header, the selftest's sentinel
// checker), embedded so the wrapgen binary needs nothing beside it.
package templates

import "embed"

// FS holds every template and verbatim file.
//
//go:embed *.tmpl *.h
var FS embed.FS
