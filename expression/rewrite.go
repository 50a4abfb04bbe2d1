package expression

import (
	"strings"

	"github.com/expr-lang/expr/ast"
)

// Helper functions the translated expressions call. Their names carry the
// reserved prefix, so no user name can shadow them.
const (
	fnVar    = reservedPrefix + "var"    // (env, name): a top-level name, resolved when evaluated
	fnFunc   = reservedPrefix + "func"   // (env, name): a called top-level name
	fnGet    = reservedPrefix + "get"    // (base, key): property or index access
	fnCall   = reservedPrefix + "call"   // (base, method, args...): method call on a Go value
	fnInvoke = reservedPrefix + "invoke" // (fn, name, args...): call of a resolved Go func
	fnEmpty  = reservedPrefix + "empty"  // (value): JUEL's empty operator
	fnNum    = reservedPrefix + "num"    // (value): null as 0 in arithmetic, as JUEL coerces it
)

// arithmetic are the operators whose null operands JUEL reads as 0.
var arithmetic = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true}

// rewriter routes names, member access and calls through the helpers, so
// that JUEL's resolution rules (lazy names, lowerCamel properties, Go
// methods) apply instead of expr's.
//
// expr walks the tree children first, so by the time a call is visited its
// callee has already become a helper call: a method callee is a fnGet call,
// a function callee a fnVar call (made a fnFunc call).
type rewriter struct {
	renamed map[string]string // expr name → JUEL name
}

func (w *rewriter) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		if n.Value == "$env" || strings.HasPrefix(n.Value, reservedPrefix) && w.renamed[n.Value] == "" {
			return
		}
		name := n.Value
		if orig, ok := w.renamed[name]; ok {
			name = orig
		}
		ast.Patch(node, callHelper(fnVar, &ast.IdentifierNode{Value: "$env"}, &ast.StringNode{Value: name}))
	case *ast.MemberNode:
		ast.Patch(node, callHelper(fnGet, n.Node, n.Property))
	case *ast.BinaryNode:
		if arithmetic[n.Operator] {
			n.Left, n.Right = orZero(n.Left), orZero(n.Right)
		}
	case *ast.UnaryNode:
		if n.Operator == "-" || n.Operator == "+" {
			n.Node = orZero(n.Node)
		}
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); ok && id.Value == fnEmpty {
			return
		}
		if get, ok := helperArgs(n.Callee, fnGet); ok {
			ast.Patch(node, callHelper(fnCall, append([]ast.Node{get[0], get[1]}, n.Arguments...)...))
			return
		}
		name := "function"
		if v, ok := helperArgs(n.Callee, fnVar); ok {
			name = v[1].(*ast.StringNode).Value
			n.Callee = callHelper(fnFunc, v...)
		}
		ast.Patch(node, callHelper(fnInvoke, append([]ast.Node{n.Callee, &ast.StringNode{Value: name}}, n.Arguments...)...))
	}
}

func callHelper(fn string, args ...ast.Node) *ast.CallNode {
	return &ast.CallNode{Callee: &ast.IdentifierNode{Value: fn}, Arguments: args}
}

// helperArgs returns the arguments of n if it is a call of the helper fn.
func helperArgs(n ast.Node, fn string) ([]ast.Node, bool) {
	c, ok := n.(*ast.CallNode)
	if !ok {
		return nil, false
	}
	id, ok := c.Callee.(*ast.IdentifierNode)
	if !ok || id.Value != fn {
		return nil, false
	}
	return c.Arguments, true
}

// orZero wraps an operand that may be null in fnNum; literals need not.
func orZero(n ast.Node) ast.Node {
	switch n.(type) {
	case *ast.IntegerNode, *ast.FloatNode, *ast.StringNode:
		return n
	}
	return callHelper(fnNum, n)
}
