package emit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func widest(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, Columns(l))
	}
	return w
}

// A list that fits stays on one line; one that does not is broken to the
// width, nested lists only when they alone do not fit.
func TestListLayout(t *testing.T) {
	short := &List{Open: "{", Close: "}", Items: Texts([]string{"1", "2", "3"}), Fill: true, Hug: true}
	assert.Equal(t, "{1, 2, 3}", short.Format("\t", "\t", 4, 1))

	var nums []string
	for range 100 {
		nums = append(nums, "1000")
	}
	filled := (&List{Open: "{", Close: "}", Items: Texts(nums), Fill: true, Hug: true}).Format("", "    ", 20, 2)
	assert.LessOrEqual(t, widest(filled)+2, Width)
	assert.True(t, strings.HasPrefix(filled, "{1000, 1000,"), "the first item hugs the brace")
	assert.True(t, strings.HasSuffix(filled, "1000}"), "the brace hugs the last item")
	assert.Equal(t, 100, strings.Count(filled, "1000"))

	// Go's style: one item per line, a comma after each, the brace alone.
	long := strings.Repeat("x", 70)
	goStyle := (&List{Open: "(", Close: ")", Items: Texts([]string{long, long})}).Format("\t", "\t", 8, 0)
	assert.Equal(t, "(\n\t\t"+long+",\n\t\t"+long+",\n\t)", goStyle)

	// A row broken into fields keeps a nested list whole when it fits.
	row := &List{Open: "{", Close: "}", Fill: true, Hug: true, Items: []Item{{Text: "Index: 1"}, {Text: "Kernel: \"" + long + "\""},
		{Text: "Inputs: ", List: &List{Open: "[]string{", Close: "}", Items: Texts([]string{`"a"`, `"b"`}), Fill: true, Hug: true}}}}
	got := row.Format("\t\t", "\t", 8, 1)
	assert.Equal(t, "{Index: 1, Kernel: \""+long+"\",\n\t\t\tInputs: []string{\"a\", \"b\"}}", got)
}

// Comment text wraps at spaces, never inside a quoted name.
func TestWrapText(t *testing.T) {
	lines := WrapText(`kernel "a b c d e f" has attributes "x", "y"`, 20)
	assert.Equal(t, []string{`kernel "a b c d e f"`, `has attributes "x",`, `"y"`}, lines)
	assert.Equal(t, []string{`"` + strings.Repeat("n", 50) + `"`}, WrapText(`"`+strings.Repeat("n", 50)+`"`, 20), "a long name stays whole")
	assert.Equal(t, []string{`"a\" b" c`}, WrapText(`"a\" b" c`, 80), "an escaped quote does not end the name")
}

// A row's comment goes above it when both do not fit on one line.
func TestCommentedRow(t *testing.T) {
	assert.Equal(t, "1, 2,  // \"x\"", CommentedRow("1, 2,", `"x"`))
	long := strings.Repeat("word ", 40)
	got := CommentedRow("1, 2,", long)
	lines := strings.Split(got, "\n")
	assert.Equal(t, "1, 2,", lines[len(lines)-1])
	for _, l := range lines[:len(lines)-1] {
		assert.True(t, strings.HasPrefix(l, "// "))
		assert.LessOrEqual(t, rowCol+Columns(l), Width)
	}
}
