package runtime

import (
	"context"
	"maps"
)

// The authenticated user, as Camunda's identityService.setAuthenticatedUserId
// sets it: the engine has no users of its own, so the caller names the
// user on the context of its calls (the REST server: the user name of
// the request's basic authentication).
type authenticatedUserKey struct{}

// WithAuthenticatedUser returns ctx naming userID as the user the
// commands run with it act for: a process instance they start stores it
// in its camunda:initiator variable.
func WithAuthenticatedUser(ctx context.Context, userID string) context.Context {
	return context.WithValue(ctx, authenticatedUserKey{}, userID)
}

// AuthenticatedUser returns the user ctx names, "" when none.
func AuthenticatedUser(ctx context.Context) string {
	u, _ := ctx.Value(authenticatedUserKey{}).(string)
	return u
}

// withInitiator adds def's camunda:initiator variable to the variables a
// new instance starts with: the authenticated user's id, or null without
// one, as Camunda sets it. A start variable of that name wins, as in
// Camunda (the instance's variables are set after it).
func (c *command) withInitiator(def *Definition, vars map[string]any) map[string]any {
	name := def.Process.Initiator
	if name == "" {
		return vars
	}
	if _, given := vars[name]; given {
		return vars
	}
	out := make(map[string]any, len(vars)+1)
	maps.Copy(out, vars)
	if u := AuthenticatedUser(c.cc); u != "" {
		out[name] = u
	} else {
		out[name] = nil
	}
	return out
}
