package persistence

import (
	"slices"
	"testing"
)

func TestAnonymousParams(t *testing.T) {
	for _, c := range []struct {
		in, out string
		order   []int
	}{
		{"SELECT a FROM t WHERE id = $1 AND rev = $2", "SELECT a FROM t WHERE id = ? AND rev = ?", []int{1, 2}},
		{"UPDATE t SET a = $3, b = $12 WHERE id = $1 AND rev = $2", "UPDATE t SET a = ?, b = ? WHERE id = ? AND rev = ?", []int{3, 12, 1, 2}},
		{"SELECT $1 WHERE x <= $1 LIMIT $4", "SELECT ? WHERE x <= ? LIMIT ?", []int{1, 1, 4}},
		{"SELECT 'costs $5 or ''$6''' WHERE a = $2", "SELECT 'costs $5 or ''$6''' WHERE a = ?", []int{2}},
		{"SELECT $ AS x", "SELECT $ AS x", nil},
	} {
		out, order := anonymousParams(c.in)
		if out != c.out || !slices.Equal(order, c.order) {
			t.Errorf("anonymousParams(%q) = %q, %v; want %q, %v", c.in, out, order, c.out, c.order)
		}
	}
}
