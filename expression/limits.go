package expression

import (
	"fmt"
	"sync/atomic"
	"unicode/utf8"
)

// Limits bound what one expression may cost: its length when compiled, and
// how much of its source an error message quotes. They apply to the whole
// process, since compiled expressions are shared by every engine in it.
type Limits struct {
	// MaxLength is the longest source Compile accepts, in bytes. Default
	// DefaultMaxLength; negative: no limit.
	MaxLength int
	// MaxQuoted is how much of a source an error quotes, in characters,
	// before an ellipsis. Default DefaultMaxQuoted; negative: all of it.
	MaxQuoted int
}

// Defaults of Limits.
const (
	DefaultMaxLength = 10_000
	DefaultMaxQuoted = 200
)

var maxLength, maxQuoted atomic.Int64

func init() { SetLimits(Limits{}) }

// SetLimits sets the process-wide limits; zero fields take the defaults.
func SetLimits(l Limits) {
	if l.MaxLength == 0 {
		l.MaxLength = DefaultMaxLength
	}
	if l.MaxQuoted == 0 {
		l.MaxQuoted = DefaultMaxQuoted
	}
	maxLength.Store(int64(l.MaxLength))
	maxQuoted.Store(int64(l.MaxQuoted))
}

// checkLength rejects a source over the length limit.
func checkLength(src string) error {
	if limit := maxLength.Load(); limit >= 0 && int64(len(src)) > limit {
		return &Error{Expr: src, Msg: fmt.Sprintf("is %d bytes long, more than the limit of %d", len(src), limit)}
	}
	return nil
}

// Quote returns src for a message: whole, or its first MaxQuoted
// characters, an ellipsis and its length.
func Quote(src string) string {
	limit := maxQuoted.Load()
	if limit < 0 || int64(utf8.RuneCountInString(src)) <= limit {
		return src
	}
	n, i := int64(0), 0
	for i = range src {
		if n == limit {
			break
		}
		n++
	}
	return fmt.Sprintf("%s… (%d bytes)", src[:i], len(src))
}
