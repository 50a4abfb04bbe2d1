package rest

import (
	"net/url"
	"strconv"
	"time"
)

// Typed query parameters.

// params reads typed query parameters, keeping the first error.
type params struct {
	q   url.Values
	err error
}

func (p *params) time(name string) *time.Time {
	v := p.q.Get(name)
	if v == "" || p.err != nil {
		return nil
	}
	t, err := parseTime(v)
	if err != nil {
		p.err = badRequest("%s: %v", name, err)
		return nil
	}
	return &t
}

func (p *params) int(name string) *int {
	v := p.q.Get(name)
	if v == "" || p.err != nil {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		p.err = badRequest("%s: %q is not an integer", name, v)
		return nil
	}
	return &n
}
