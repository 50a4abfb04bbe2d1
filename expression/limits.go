package expression

import (
	"fmt"
	"unicode/utf8"
)

// Limits bound what one expression may cost. Each engine has its own: the
// compiled expressions are shared by every engine of a process, so Compile
// does not check them; the engine checks the length of what it deploys
// (CheckLength) and sets how much of a source its errors quote
// (Error.MaxQuoted).
const (
	// DefaultMaxLength is the longest source an engine accepts by default,
	// in bytes.
	DefaultMaxLength = 10_000
	// DefaultMaxQuoted is how much of a source an error quotes by default,
	// in characters, before an ellipsis.
	DefaultMaxQuoted = 200
)

// CheckLength rejects a source longer than limit bytes (0: DefaultMaxLength;
// negative: no limit), quoting quoted characters of it (0: the default).
func CheckLength(src string, limit, quoted int) error {
	if limit == 0 {
		limit = DefaultMaxLength
	}
	if limit >= 0 && len(src) > limit {
		return &Error{Expr: src, Msg: fmt.Sprintf("is %d bytes long, more than the limit of %d", len(src), limit), MaxQuoted: quoted}
	}
	return nil
}

// Quote returns src for a message: whole, or its first limit characters
// (0: DefaultMaxQuoted; negative: all of it), an ellipsis and its length.
func Quote(src string, limit int) string {
	if limit == 0 {
		limit = DefaultMaxQuoted
	}
	if limit < 0 || utf8.RuneCountInString(src) <= limit {
		return src
	}
	n, i := 0, 0
	for i = range src {
		if n == limit {
			break
		}
		n++
	}
	return fmt.Sprintf("%s… (%d bytes)", src[:i], len(src))
}
