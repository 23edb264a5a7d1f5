package plan

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

// A long expression is cut, saying its length and where it is whole.
func TestShortExpr(t *testing.T) {
	short := "4096*batch"
	assert.Equal(t, short, ShortExpr(short, "-json size_expr"))
	long := "max(" + strings.Repeat("batch*seq*64 + ", 40) + "1)"
	got := ShortExpr(long, "-json size_expr")
	assert.Less(t, len(got), 130)
	assert.Contains(t, got, "… (606 characters; whole in -json size_expr)")
	assert.True(t, strings.HasPrefix(got, long[:60]))
	assert.Equal(t, long[:MaxExprText], ShortExpr(long[:MaxExprText], "x"), "at the limit it is whole")
	wide := "x" + strings.Repeat("é", 50) // two bytes each: byte 60 is inside one
	assert.True(t, utf8.ValidString(ShortExpr(wide, "x")), "cut between characters")
}
