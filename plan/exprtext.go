package plan

import (
	"fmt"
	"unicode/utf8"
)

// MaxExprText is the longest expression wrapgen's text outputs (the plan
// report, comments in generated code) print whole; longer ones are cut
// (ShortExpr), and the JSON report always has them all.
const MaxExprText = 80

// ShortExpr is an expression as wrapgen prints it for a reader: whole when
// short, else its start and its length, with whole saying where to find
// all of it (for example "-json size_expr").
func ShortExpr(e, whole string) string {
	if len(e) <= MaxExprText {
		return e
	}
	cut := MaxExprText - 20
	for cut > 0 && !utf8.RuneStart(e[cut]) {
		cut-- // not inside a character: the text stays valid UTF-8
	}
	return fmt.Sprintf("%s… (%d characters; whole in %s)", e[:cut], len(e), whole)
}
