package expression

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// execution stands in for the runtime's execution object.
type execution struct {
	mu   sync.Mutex
	vars map[string]any
}

func (e *execution) GetVariable(name string) any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.vars[name]
}

func (e *execution) SetVariable(name string, value any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.vars[name] = value
}

func (e *execution) ProcessInstanceID() string { return "pi-1" }

type Address struct{ City string }

type customer struct {
	*Address
	Status   string
	OrderID  int64
	Tags     []string
	internal string
}

func (c customer) IsGold() bool      { return c.Status == "GOLD" }
func (c *customer) Discount() int    { return 10 }
func (c customer) GetRegion() string { return "EU" }

var errBooking = errors.New("no rooms")

type bookingService struct{}

func (bookingService) PerformBooking(hotel string, nights int) string {
	return fmt.Sprintf("%s x%d", hotel, nights)
}
func (bookingService) Cancel(id int32) error {
	if id < 0 {
		return errBooking
	}
	return nil
}
func (bookingService) Quote(rate float64, nights uint8) (float64, error) {
	return rate * float64(nights), nil
}
func (bookingService) Join(sep string, parts ...string) string { return strings.Join(parts, sep) }
func (bookingService) Sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
func (bookingService) Rate() float64                    { return 99.5 }
func (bookingService) Scale(f float32, by uint) float32 { return f * float32(by) }
func (bookingService) Flag(b flag) bool                 { return bool(b) }
func (bookingService) Crash() int                       { panic("crashed") }
func (bookingService) Pair() (int, int)                 { return 1, 2 }
func (bookingService) Optional(p *int) bool             { return p == nil }
func (bookingService) Duration() fmt.Stringer           { return time.Second }

type status string

func testVars() Vars {
	return Vars{
		"amount":    1500,
		"big":       int64(1) << 40,
		"u":         uint(7),
		"half":      0.5,
		"name":      "Ada",
		"blank":     "",
		"nothing":   nil,
		"yes":       true,
		"no":        false,
		"list":      []any{1, "two", 3.0},
		"nolist":    []any{},
		"strs":      []string{"a", "b"},
		"order":     map[string]any{"priority": 7, "empty": "word", "items": []any{"x"}, "nested": map[string]any{"k": "v"}},
		"nomap":     map[string]any{},
		"intmap":    map[int]string{1: "one"},
		"customer":  &customer{Address: &Address{City: "Oslo"}, Status: "VIP", OrderID: 42, Tags: []string{"t"}},
		"plain":     customer{Status: "GOLD"},
		"noaddress": &customer{},
		"nilcust":   (*customer)(nil),
		"svc":       bookingService{},
		"st":        status("VIP"),
		"in":        1, // expr keyword
		"len":       2, // expr builtin
		"notes":     "n",
		"android":   "a",
		"divisor":   4,
		"modulus":   3,
		"$weird":    5,
		"now":       func() time.Time { return time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC) },
		"add":       func(a, b int) int { return a + b },
		"fail":      func() (int, error) { return 0, errBooking },
	}
}

func eval(t *testing.T, src string, r Resolver) (any, error) {
	t.Helper()
	e, err := Compile(src)
	if err != nil {
		return nil, err
	}
	return e.Eval(r)
}

func TestEval(t *testing.T) {
	tests := []struct {
		src  string
		want any
	}{
		// forms
		{"plain text", "plain text"},
		{"", ""},
		{"${amount}", 1500},
		{"#{amount}", 1500},
		{"${ amount }", 1500},
		{"Hello ${name}!", "Hello Ada!"},
		{"${name}${name}", "AdaAda"},
		{"${amount} items", "1500 items"},
		{"[${nothing}]", "[]"},
		{"#{yes} and ${half}", "true and 0.5"},
		{`\${name} is ${name}`, "${name} is Ada"},
		{"$ and # and { alone", "$ and # and { alone"},
		{"${'a}b'}", "a}b"},
		{`${"x}"} ${'y'}`, "x} y"},
		{`${ {"a": 1}.a }`, 1},
		{`${ {a: 1}.a }`, 1},
		{`${ {k: yes ? 1 : 2, in: [3, 4]}.in[1] }`, 4},
		{`${ [{k: (1)}, {'k': 2}][1].k }`, 2},
		{`${ [yes ? 1 : 2, no][0] }`, 1},
		{`${ {empty: empty blank}.empty }`, true},
		{"${[1, 2][1]}", 2},
		{`${"it's"}`, "it's"},
		{`${'it\'s'}`, "it's"},
		{`${'back\\slash'}`, `back\slash`},
		{`${'C:\temp'}`, `C:\temp`},
		{"${'${nested}'}", "${nested}"},
		// literals
		{"${true}", true},
		{"${false}", false},
		{"${null}", nil},
		{"${1.5}", 1.5},
		{"${1.}", 1.0},
		{"${.5}", 0.5},
		{"${1e3}", 1000.0},
		{"${2E-1}", 0.2},
		// relational, equality, both spellings
		{"${amount > 1000}", true},
		{"${amount gt 1000}", true},
		{"${amount < 1000}", false},
		{"${amount lt 1000}", false},
		{"${amount >= 1500}", true},
		{"${amount ge 1501}", false},
		{"${amount <= 1500}", true},
		{"${amount le 1499}", false},
		{"${amount == 1500}", true},
		{"${amount eq 1500.0}", true},
		{"${amount != 1500}", false},
		{"${amount ne 1}", true},
		{"${big == 1099511627776}", true},
		{"${name == 'Ada'}", true},
		{`${name eq "Ada"}`, true},
		{"${'a' < 'b'}", true},
		{"${nothing == null}", true},
		{"${name == null}", false},
		// logical
		{"${yes && no}", false},
		{"${yes and yes}", true},
		{"${no || yes}", true},
		{"${no or no}", false},
		{"${!no}", true},
		{"${not yes}", false},
		{"${not no and yes}", true},
		{"${!(amount > 1) || yes}", true},
		{"${no && missing}", false}, // names resolve lazily, as in JUEL
		{"${yes || missing.x}", true},
		// empty
		{"${empty nothing}", true},
		{"${empty blank}", true},
		{"${empty name}", false},
		{"${empty nolist}", true},
		{"${empty list}", false},
		{"${empty nomap}", true},
		{"${empty order}", false},
		{"${empty order.missing}", true},
		{"${empty order.items}", false},
		{"${empty nilcust}", true},
		{"${empty amount}", false},
		{"${not empty name}", true},
		{"${!empty name && yes}", true},
		{"${empty name || yes}", true},
		{"${empty order['nested'].k}", false},
		{"${empty (name)}", false},
		{"${empty empty name}", false},
		{"${empty svc.join(',')}", true},
		// arithmetic
		{"${amount + 1}", 1501},
		{"${amount - 1}", 1499},
		{"${5-2}", 3},
		{"${-amount}", -1500},
		{"${amount * 2}", 3000},
		{"${7 / 2}", 3.5},
		{"${7 div 2}", 3.5},
		{"${6 / 3}", 2.0},
		{"${7 % 4}", 3},
		{"${7 mod 4}", 3},
		{"${(1 + 2) * 3}", 9},
		{"${1 + 2 * 3}", 7},
		{"${-2 * 3}", -6},
		{"${divisor div 2 + modulus mod 2}", 3.0},
		{"${half * 2}", 1.0},
		{"${'a' + 'b'}", "ab"},
		// conditional
		{"${yes ? 'Mr.' : 'Mrs.'}", "Mr."},
		{"${name == 'Bob' ? 1 : name == 'Ada' ? 2 : 3}", 2},
		{"${no ? 1 : .5}", 0.5},
		{"${half ge .5 and -1 lt 0}", true},
		{"${name == 'Ada' ? 'Ms.' : 'Mr.'} ${name}", "Ms. Ada"},
		// names that look like operators or expr keywords
		{"${order.empty}", "word"},
		{"${order.empty == 'word' and not empty order.empty}", true},
		{"${notes}", "n"},
		{"${android}", "a"},
		{"${in + len}", 3},
		{"${$weird}", 5},
		{"${'a and b or not c'}", "a and b or not c"},
		// map, list, struct access
		{"${order.priority}", 7},
		{"${order['priority']}", 7},
		{`${order["nested"]["k"]}`, "v"},
		{"${order.nested.k}", "v"},
		{"${order.missing}", nil},
		{"${order.missing.deeper}", nil},
		{"${list[0]}", 1},
		{"${list[1.0]}", "two"},
		{"${list['2']}", 3.0},
		{"${list[3]}", nil},
		{"${list[-1]}", nil},
		{"${order.items[0]}", "x"},
		{"${strs[1]}", "b"},
		{"${intmap[1]}", "one"},
		{"${intmap['x']}", nil},
		{"${customer.status}", "VIP"},
		{"${customer.Status}", "VIP"},
		{"${customer.orderId}", int64(42)},
		{"${customer.city}", "Oslo"},
		{"${customer.tags[0]}", "t"},
		{"${customer.discount}", 10},
		{"${customer.region}", "EU"},
		{"${plain.gold}", true},
		{"${noaddress.city}", nil},
		{"${nilcust.status}", nil},
		{"${nothing.status}", nil},
		// methods on Go values
		{"${customer.isGold()}", false},
		{"${customer.getRegion()}", "EU"},
		{"${customer.discount()}", 10},
		{"${svc.performBooking(name, 3)}", "Ada x3"},
		{"${svc.performBooking('H', big / big)}", "H x1"},
		{"${svc.cancel(1)}", nil},
		{"${svc.getRate()}", 99.5}, // Go getters drop the Get
		{"${svc.scale(1.5, 2)}", float32(3)},
		{"${svc.scale(u, u)}", float32(49)},
		{"${svc.flag(yes)}", true},
		{"${svc.rate}", 99.5},
		{"${svc.quote(10, 2)}", 20.0},
		{"${svc.join('-', 'a', 'b', name)}", "a-b-Ada"},
		{"${svc.join('-')}", ""},
		{"${svc.sum([1, 2.0, 3])}", 6},
		{"${svc.optional(null)}", true},
		{"${svc.duration()}", time.Second},
		// Java methods on strings, lists and maps
		{"${list.size()}", 3},
		{"${name.length()}", 3},
		{"${blank.isEmpty()}", true},
		{"${nomap.isEmpty()}", true},
		{"${list.contains('two')}", true},
		{"${list.contains(3)}", true},
		{"${list.contains(4)}", false},
		{"${name.contains('d')}", true},
		{"${order.containsKey('priority')}", true},
		{"${order.containsKey('nope')}", false},
		{"${order.get('priority')}", 7},
		{"${list.get(1)}", "two"},
		{"${name.equals('Ada')}", true},
		{"${amount.equals(1500)}", true},
		{"${amount.toString()}", "1500"},
		{"${st == 'VIP'}", false}, // named types are not coerced
		{"${st.toString() == 'VIP'}", true},
		// functions
		{"${now()}", time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)},
		{"${add(amount, 1)}", 1501},
		{"${add(1, 2) * 2}", 6},
	}
	vars := testVars()
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			got, err := eval(t, tt.src, vars)
			if err != nil {
				t.Fatalf("Eval: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v (%T), want %#v (%T)", got, got, tt.want, tt.want)
			}
		})
	}
}

func TestExecutionObject(t *testing.T) {
	ex := &execution{vars: map[string]any{"behaviorInvoked": int64(1)}}
	vars := Vars{"execution": ex}
	for _, src := range []string{
		"${execution.setVariable('listenerStartInvoked', true)}",
		"${execution.setVariable('behaviorInvoked', execution.getVariable('behaviorInvoked') + 1)}",
	} {
		v, err := eval(t, src, vars)
		if err != nil || v != nil {
			t.Fatalf("%s: got %v, %v; want nil, nil", src, v, err)
		}
	}
	if got := ex.vars["listenerStartInvoked"]; got != true {
		t.Errorf("listenerStartInvoked = %#v, want true", got)
	}
	if got := ex.vars["behaviorInvoked"]; got != 2 { // int64 + int is int in expr
		t.Errorf("behaviorInvoked = %#v, want 2", got)
	}
	for src, want := range map[string]any{
		"${execution.getVariable('behaviorInvoked')}": 2,
		"${execution.processInstanceId}":              "pi-1",
		"${execution.getProcessInstanceId()}":         "pi-1",
	} {
		got, err := eval(t, src, vars)
		if err != nil || got != want {
			t.Errorf("%s = %#v, %v; want %#v", src, got, err, want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"${customer.status == 'VIP'}", `expression ${customer.status == 'VIP'}: unknown name "customer" (not a variable or bean): cannot resolve identifier`},
		{"Hi ${who}", `expression Hi ${who}: unknown name "who" (not a variable or bean): cannot resolve identifier`},
	}
	for _, tt := range tests {
		_, err := eval(t, tt.src, Vars{})
		if err == nil || err.Error() != tt.msg {
			t.Errorf("%s: error %v, want %s", tt.src, err, tt.msg)
		}
		if !errors.Is(err, ErrUnknownName) {
			t.Errorf("%s: error %v does not wrap ErrUnknownName", tt.src, err)
		}
		var ee *Error
		if !errors.As(err, &ee) || ee.Expr != tt.src {
			t.Errorf("%s: error %#v is not an *Error for the source", tt.src, err)
		}
	}
	// A nil Resolver knows no names, but literal expressions still work.
	if _, err := eval(t, "${x}", nil); !errors.Is(err, ErrUnknownName) {
		t.Errorf("nil resolver: error %v, want ErrUnknownName", err)
	}
	if v, err := eval(t, "${1 + 1}", nil); err != nil || v != 2 {
		t.Errorf("nil resolver: got %v, %v; want 2", v, err)
	}
}

func TestRuntimeErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"${svc.nope()}", `expression ${svc.nope()}: unknown method "nope" on expression.bookingService`},
		{"${nothing.call()}", `expression ${nothing.call()}: cannot call method "call" on null`},
		{"${customer.nope}", `expression ${customer.nope}: no property "nope" on *expression.customer: cannot resolve property`},
		{"${customer.internal}", `expression ${customer.internal}: no property "internal" on *expression.customer: cannot resolve property`},
		{"${plain.discount}", `expression ${plain.discount}: no property "discount" on expression.customer: cannot resolve property`},
		{"${amount.x}", `expression ${amount.x}: no property "x" on int: cannot resolve property`},
		{"${customer[1]}", `expression ${customer[1]}: cannot index *expression.customer with int 1`},
		{"${list['x']}", `expression ${list['x']}: index of []interface {} must be an integer, got string "x"`},
		{"${list[null]}", `expression ${list[null]}: index of []interface {} must be an integer, got null`},
		{"${customer['']}", `expression ${customer['']}: no property "" on *expression.customer: cannot resolve property`},
		{"${svc.cancel(-1)}", `expression ${svc.cancel(-1)}: method "cancel" of expression.bookingService failed: no rooms`},
		{"${fail()}", `expression ${fail()}: function "fail" failed: no rooms`},
		{"${svc.performBooking('H')}", `expression ${svc.performBooking('H')}: method "performBooking" of expression.bookingService takes 2 arguments, got 1`},
		{"${svc.join()}", `expression ${svc.join()}: method "join" of expression.bookingService takes at least 1 arguments, got 0`},
		{"${svc.performBooking('H', 1.5)}", `expression ${svc.performBooking('H', 1.5)}: method "performBooking" of expression.bookingService: argument 2: cannot use float64 1.5 as int`},
		{"${svc.performBooking(1, 1)}", `expression ${svc.performBooking(1, 1)}: method "performBooking" of expression.bookingService: argument 1: cannot use int 1 as string`},
		{"${svc.performBooking(null, 1)}", `expression ${svc.performBooking(null, 1)}: method "performBooking" of expression.bookingService: argument 1: cannot use null as string`},
		{"${svc.cancel(big)}", `expression ${svc.cancel(big)}: method "cancel" of expression.bookingService: argument 1: cannot use int64 1099511627776 as int32`},
		{"${svc.quote(1, 256)}", `expression ${svc.quote(1, 256)}: method "quote" of expression.bookingService: argument 2: cannot use int 256 as uint8`},
		{"${svc.quote(1, -1)}", `expression ${svc.quote(1, -1)}: method "quote" of expression.bookingService: argument 2: cannot use int -1 as uint8`},
		{"${svc.sum(['a'])}", `expression ${svc.sum(['a'])}: method "sum" of expression.bookingService: argument 1: element 0: cannot use string "a" as int`},
		{"${svc.crash()}", `expression ${svc.crash()}: method "crash" of expression.bookingService panicked: crashed`},
		{"${svc.pair()}", `expression ${svc.pair()}: method "pair" of expression.bookingService returns 2 values; want at most a value and an error`},
		{"${missing()}", `expression ${missing()}: unknown function "missing" (not a variable or bean): cannot resolve function`},
		{"${amount()}", `expression ${amount()}: "amount" is not a function (it is int)`},
		{"${nothing()}", `expression ${nothing()}: "nothing" is not a function (it is null)`},
		{"${name.contains(1)}", `expression ${name.contains(1)}: contains on a string needs a string, got int 1`},
		{"${amount > name}", `expression ${amount > name}: invalid operation: int > string`},
		{"${!amount}", `expression ${!amount}: evaluation failed: interface conversion: interface {} is int, not bool`},
		{"${half mod 2}", `expression ${half mod 2}: invalid operation: float64 % int`},
	}
	vars := testVars()
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := eval(t, tt.src, vars)
			if err == nil || err.Error() != tt.msg {
				t.Fatalf("error\n %v\nwant\n %s", err, tt.msg)
			}
			var ee *Error
			if !errors.As(err, &ee) {
				t.Fatalf("%T is not an *Error", err)
			}
			// Only a missing property is "not found" (conditional events
			// take it for false), an unknown function has its own cause;
			// the rest are failures.
			if got, want := errors.Is(err, ErrUnknownProperty), strings.Contains(tt.msg, "no property"); got != want {
				t.Errorf("wraps ErrUnknownProperty: %v, want %v", got, want)
			}
			if got, want := errors.Is(err, ErrUnknownFunction), strings.Contains(tt.msg, "unknown function"); got != want {
				t.Errorf("wraps ErrUnknownFunction: %v, want %v", got, want)
			}
			if errors.Is(err, ErrUnknownName) {
				t.Errorf("%v wraps ErrUnknownName", err)
			}
		})
	}
	// The error a method returns stays reachable, e.g. for BPMN errors.
	_, err := eval(t, "${svc.cancel(-1)}", vars)
	if !errors.Is(err, errBooking) {
		t.Errorf("error %v does not wrap the method's error", err)
	}
}

// panicResolver fails in Resolve, as a broken bean registry might.
type panicResolver struct{}

func (panicResolver) Resolve(string) (any, bool) { panic("registry broken") }

func TestPanicsBecomeErrors(t *testing.T) {
	_, err := eval(t, "${x}", panicResolver{})
	var ee *Error
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "registry broken") {
		t.Errorf("error %v, want an *Error mentioning the panic", err)
	}
	// A Stringer that panics in String yields an error, not a panic.
	e, _ := Compile("${s}")
	if _, err := e.EvalString(Vars{"s": (*nilStringer)(nil)}); err == nil {
		t.Error("EvalString of a panicking Stringer: no error")
	}
}

type nilStringer struct{ s string }

func (n *nilStringer) String() string { return n.s }

func TestCompileErrors(t *testing.T) {
	tests := []struct{ src, msg string }{
		{"${a >}", "expression ${a >}: syntax error at column 5: unexpected token EOF"},
		{"${a", "expression ${a: syntax error at column 1: missing closing '}' for the expression"},
		{"ok ${a} ${b", "expression ok ${a} ${b: syntax error at column 9: missing closing '}' for the expression"},
		{"${}", "expression ${}: syntax error at column 1: empty expression"},
		{"${  }", "expression ${  }: syntax error at column 1: empty expression"},
		{"${'abc}", "expression ${'abc}: syntax error at column 3: unterminated string literal"},
		{"${a = 1}", "expression ${a = 1}: syntax error at column 5: unexpected character '='"},
		{"${a & b}", "expression ${a & b}: syntax error at column 5: unexpected character '&'"},
		{"${a ; b}", "expression ${a ; b}: syntax error at column 5: unexpected character ';'"},
		{"${a | b}", "expression ${a | b}: syntax error at column 5: unexpected character '|'"},
		{"${#a}", "expression ${#a}: syntax error at column 3: unexpected character '#'"},
		{"${(a}", `expression ${(a}: syntax error at column 3: "(" is not closed`},
		{"${a)}", `expression ${a)}: syntax error at column 4: unexpected ")"`},
		{"${[a)}", `expression ${[a)}: syntax error at column 5: unexpected ")"`},
		{"${a.}", "expression ${a.}: syntax error at column 4: expected a property name after '.'"},
		{"${a.1}", "expression ${a.1}: syntax error at column 4: expected a property name after '.'"},
		{"${(1).5}", "expression ${(1).5}: syntax error at column 6: expected a property name after '.'"},
		{"${1x}", `expression ${1x}: syntax error at column 3: malformed number "1x"`},
		{"${1e}", `expression ${1e}: syntax error at column 3: malformed number "1e"`},
		{"${1.5.2}", `expression ${1.5.2}: syntax error at column 3: malformed number "1.5."`},
		{"${empty}", `expression ${empty}: syntax error at column 3: missing operand for "empty"`},
		{"${empty )}", `expression ${empty )}: syntax error at column 9: unexpected ")"`},
		{"${empty + 1}", `expression ${empty + 1}: syntax error at column 9: unexpected "+" after "empty"`},
		{"${a instanceof b}", `expression ${a instanceof b}: syntax error at column 5: operator "instanceof" is not supported`},
		{"${__juel_var}", `expression ${__juel_var}: syntax error at column 3: the name "__juel_var" is reserved`},
		{"${1 + 'a'}", "expression ${1 + 'a'}: syntax error at column 5: invalid operation: + (mismatched types int and string)"},
		{"${!5}", "expression ${!5}: syntax error at column 3: invalid operation: ! (mismatched type int)"},
		{"${in +}", "expression ${in +}: syntax error at column 6: unexpected token EOF"},
		{"${a b}", `expression ${a b}: syntax error at column 5: unexpected token Identifier("b")`},
		{"${in in}", `expression ${in in}: syntax error at column 6: unexpected token Identifier("in")`},
		{"x\n${a +\n}", "expression x\n${a +\n}: syntax error at line 2, column 5: unexpected token EOF"},
		{"${99999999999999999999}", "expression ${99999999999999999999}: syntax error at column 3: invalid integer literal: strconv.ParseInt: parsing \"99999999999999999999\": value out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			_, err := Compile(tt.src)
			if err == nil || err.Error() != tt.msg {
				t.Fatalf("error\n %v\nwant\n %s", err, tt.msg)
			}
			var ee *Error
			if !errors.As(err, &ee) || ee.Expr != tt.src {
				t.Fatalf("%#v is not an *Error for the source", err)
			}
		})
	}
}

func TestNestingLimit(t *testing.T) {
	ok := "${" + strings.Repeat("(", 60) + "empty " + strings.Repeat("!", 39) + "a" + strings.Repeat(")", 60) + "}"
	if _, err := Compile(ok); err != nil {
		t.Errorf("100 levels: %v", err)
	}
	for _, src := range []string{
		"${" + strings.Repeat("(", 101) + "1" + strings.Repeat(")", 101) + "}",
		"${" + strings.Repeat("empty ", 1500) + "a}",
		"${" + strings.Repeat("[", 50) + strings.Repeat("- ", 51) + "1" + strings.Repeat("]", 50) + "}",
	} {
		_, err := Compile(src)
		if err == nil || !strings.Contains(err.Error(), "expression nested too deeply (more than 100 levels)") {
			t.Errorf("%.20s...: error %v, want nested too deeply", src, err)
		}
	}
}

func TestEvalBool(t *testing.T) {
	vars := testVars()
	vars["flag"] = flag(true)
	for src, want := range map[string]bool{
		"${amount > 1000 && customer.status == 'VIP'}": true,
		"${!yes}":                  false,
		"${flag}":                  true,
		"#{empty list}":            false,
		"${ yes }":                 true,
		"${order.empty == 'word'}": true,
	} {
		e, err := Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.EvalBool(vars)
		if err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", src, got, err, want)
		}
	}
	for src, msg := range map[string]string{
		"${name}":    `expression ${name}: result is string "Ada", want a boolean`,
		"${amount}":  "expression ${amount}: result is int 1500, want a boolean",
		"${nothing}": "expression ${nothing}: result is null, want a boolean",
		"${order}":   "expression ${order}: result is map[string]interface {}, want a boolean",
		"true":       `expression true: result is string "true", want a boolean`,
		"${yes} ":    `expression ${yes} : result is string "true ", want a boolean`,
		"${missing}": `expression ${missing}: unknown name "missing" (not a variable or bean): cannot resolve identifier`,
	} {
		e, err := Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.EvalBool(vars); err == nil || err.Error() != msg {
			t.Errorf("%s: error %v, want %s", src, err, msg)
		}
	}
}

type flag bool

func TestEvalInt64(t *testing.T) {
	vars := Vars{
		"i": 5, "i8": int8(-8), "u": uint(7), "u64": uint64(math.MaxInt64), "i64": int64(math.MinInt64),
		"f": 16.0, "f32": float32(3), "neg": -2.0, "min": -9223372036854775808.0,
		"frac": 2.5, "tiny": 1e-9, "nan": math.NaN(), "inf": math.Inf(1), "ninf": math.Inf(-1),
		"two63": 9223372036854775808.0, "huge": 1e300, "ubig": uint64(math.MaxInt64) + 1,
		"s": "5", "b": true, "nil": nil, "l": []any{1},
	}
	for src, want := range map[string]int64{
		"${i}": 5, "${i8}": -8, "${u}": 7, "${u64}": math.MaxInt64, "${i64}": math.MinInt64,
		"${f}": 16, "${f32}": 3, "${neg}": -2, "${min}": math.MinInt64, "#{16}": 16, "${5-2}": 3,
		"${10 / 2}": 5, "${i * 2}": 10,
	} {
		e, err := Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.EvalInt64(vars)
		if err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", src, got, err, want)
		}
	}
	for src, msg := range map[string]string{
		"${frac}":  "expression ${frac}: result 2.5 is not a whole number",
		"${tiny}":  "expression ${tiny}: result 1e-09 is not a whole number",
		"${7 / 2}": "expression ${7 / 2}: result 3.5 is not a whole number",
		"${nan}":   "expression ${nan}: result NaN is not a finite number",
		"${inf}":   "expression ${inf}: result +Inf is not a finite number",
		"${ninf}":  "expression ${ninf}: result -Inf is not a finite number",
		"${two63}": "expression ${two63}: result 9.223372036854776e+18 is out of the int64 range",
		"${huge}":  "expression ${huge}: result 1e+300 is out of the int64 range",
		"${ubig}":  "expression ${ubig}: result 9223372036854775808 is out of the int64 range",
		"${s}":     `expression ${s}: result is string "5", want an integer`,
		"${'5'}":   `expression ${'5'}: result is string "5", want an integer`,
		"5":        `expression 5: result is string "5", want an integer`,
		"${b}":     "expression ${b}: result is bool true, want an integer",
		"${nil}":   "expression ${nil}: result is null, want an integer",
		"${l}":     "expression ${l}: result is []interface {}, want an integer",
	} {
		e, err := Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.EvalInt64(vars); err == nil || err.Error() != msg {
			t.Errorf("%s: error %v, want %s", src, err, msg)
		}
	}
}

func TestEvalString(t *testing.T) {
	due := time.Date(2036, 11, 14, 11, 12, 22, 0, time.FixedZone("", 3600))
	vars := Vars{
		"s": "PT1H", "due": due, "dueMs": due.Add(500 * time.Millisecond), "i": int64(-3), "u": uint8(4),
		"f": 1.5, "whole": 2.0, "small": 1e-7, "b": false, "st": status("x"), "d": 90 * time.Second,
		"nil": nil, "m": map[string]any{}, "svc": bookingService{},
	}
	for src, want := range map[string]string{
		"${s}":                     "PT1H",
		"${'2036-11-14T11:12:22'}": "2036-11-14T11:12:22",
		"#{due}":                   "2036-11-14T11:12:22+01:00",
		"${dueMs}":                 "2036-11-14T11:12:22.5+01:00",
		"${i}":                     "-3",
		"${u}":                     "4",
		"${f}":                     "1.5",
		"${whole}":                 "2",
		"${small}":                 "0.0000001",
		"${b}":                     "false",
		"${st}":                    "x",
		"${d}":                     "1m30s",
		"R3/${s}":                  "R3/PT1H",
		"R/PT10M":                  "R/PT10M",
		"[${nil}]":                 "[]",
		"${m} ":                    "map[] ",
	} {
		e, err := Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.EvalString(vars)
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", src, got, err, want)
		}
	}
	for src, msg := range map[string]string{
		"${nil}": "expression ${nil}: result is null, want a string",
		"${m}":   "expression ${m}: result is map[string]interface {}, want a string",
		"${svc}": "expression ${svc}: result is expression.bookingService, want a string",
	} {
		e, err := Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.EvalString(vars); err == nil || err.Error() != msg {
			t.Errorf("%s: error %v, want %s", src, err, msg)
		}
	}
}

func TestIsExpression(t *testing.T) {
	for s, want := range map[string]bool{
		"${a}": true, "#{a}": true, "x ${a} y": true, "plain": false, "$ {a}": false,
		"# {a}": false, "": false, "{a}": false, "$": false,
	} {
		if got := IsExpression(s); got != want {
			t.Errorf("IsExpression(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestNamesAndLiteral(t *testing.T) {
	tests := []struct {
		src     string
		names   []string
		literal bool
	}{
		{"${amount > 1000 && customer.status == 'VIP'}", []string{"amount", "customer"}, false},
		{"${a.b.c(d, e.f) + a}", []string{"a", "d", "e"}, false},
		{"${execution.setVariable('x', 1)}", []string{"execution"}, false},
		{"${now()} ${in} ${len}", []string{"now", "in", "len"}, false},
		{"${order.empty and true}", []string{"order"}, false},
		{"${'name' == \"x\"}", nil, false},
		{`plain \${x}`, nil, true},
		{"", nil, true},
	}
	for _, tt := range tests {
		e, err := Compile(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(e.Names(), tt.names) {
			t.Errorf("%s: Names() = %q, want %q", tt.src, e.Names(), tt.names)
		}
		if e.IsLiteral() != tt.literal {
			t.Errorf("%s: IsLiteral() = %v, want %v", tt.src, e.IsLiteral(), tt.literal)
		}
		if e.Source() != tt.src {
			t.Errorf("Source() = %q, want %q", e.Source(), tt.src)
		}
	}
}

// countingResolver counts lookups, to show that evaluation only asks for
// the names it reaches.
type countingResolver struct {
	mu    sync.Mutex
	asked []string
	vars  Vars
}

func (c *countingResolver) Resolve(name string) (any, bool) {
	c.mu.Lock()
	c.asked = append(c.asked, name)
	c.mu.Unlock()
	return c.vars.Resolve(name)
}

func TestResolvesOnlyNamesReached(t *testing.T) {
	r := &countingResolver{vars: Vars{"a": 1, "b": 2, "c": 3}}
	v, err := eval(t, "${a > 0 ? b : c}", r)
	if err != nil || v != 2 {
		t.Fatalf("got %v, %v; want 2", v, err)
	}
	if want := []string{"a", "b"}; !reflect.DeepEqual(r.asked, want) {
		t.Errorf("resolved %q, want %q", r.asked, want)
	}
}

func TestCompileCaches(t *testing.T) {
	a, err := Compile("${cached + 1}")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Compile("${cached + 1}")
	if a != b {
		t.Error("Compile returned different *Expr for the same source")
	}
	c, _ := Compile("${cached + 2}")
	if a == c {
		t.Error("Compile returned the same *Expr for different sources")
	}
}

func TestConcurrentEval(t *testing.T) {
	cond, err := Compile("${amount > 1000 && customer.status == 'VIP'}")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			ex := &execution{vars: map[string]any{}}
			for i := range 200 {
				vars := Vars{"amount": 990 + i, "customer": map[string]any{"status": "VIP"}, "execution": ex, "g": g}
				got, err := cond.EvalBool(vars)
				if err != nil || got != (990+i > 1000) {
					errs <- fmt.Errorf("amount %d: got %v, %v", 990+i, got, err)
					return
				}
				// Compiling concurrently shares the cache.
				set, err := Compile("${execution.setVariable('n', g * 1000 + " + fmt.Sprint(i%5) + ")}")
				if err != nil {
					errs <- err
					return
				}
				if _, err := set.Eval(vars); err != nil {
					errs <- err
					return
				}
				if n := ex.GetVariable("n"); n != g*1000+i%5 {
					errs <- fmt.Errorf("n = %v, want %d", n, g*1000+i%5)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func BenchmarkEvalCondition(b *testing.B) {
	cond, err := Compile("${amount > 1000 && customer.status == 'VIP'}")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("map", func(b *testing.B) {
		vars := Vars{"amount": 1500, "customer": map[string]any{"status": "VIP"}}
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := cond.EvalBool(vars); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("struct", func(b *testing.B) {
		vars := Vars{"amount": 1500, "customer": &customer{Status: "VIP"}}
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := cond.EvalBool(vars); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}

func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		"${a > 1}", "#{dueDate}", "Hello ${name}!", "plain", "${'a}b'}", `${ {"a":1}.a }`,
		"${empty x.y[0]}", "${not empty a and b or c}", "${a ? b : c}", "${x.m(1, 'two', 3.0)}",
		"${execution.setVariable('x', execution.getVariable('y') + 1)}", "${f()}", `\${x}`,
		"${a div b mod c}", "${-a}", "${1e5}", "${.5}", "${in + len}", "${$env}", "${[1, 2][0]}",
		"${", "${}", "${'", "${a.}", "${(}", "${empty}", "${a[}", "${{}", "${a ?}", "${a ? b}",
		"${ü.ö}", "${a[1:2]}", "${a?.b}", "${a ?? b}", "${1..2}", "${a.not}", "${a.in(b)}",
	} {
		f.Add(s)
	}
	vars := testVars()
	vars["a"], vars["b"], vars["c"], vars["x"] = 1, true, "s", map[string]any{"y": []any{1}}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Compile(src)
		if err != nil {
			var ee *Error
			if !errors.As(err, &ee) {
				t.Fatalf("Compile(%q): error %T is not an *Error", src, err)
			}
			return
		}
		for _, eval := range []func(Resolver) error{
			func(r Resolver) error { _, err := e.Eval(r); return err },
			func(r Resolver) error { _, err := e.EvalBool(r); return err },
			func(r Resolver) error { _, err := e.EvalInt64(r); return err },
			func(r Resolver) error { _, err := e.EvalString(r); return err },
		} {
			if err := eval(vars); err != nil {
				var ee *Error
				if !errors.As(err, &ee) {
					t.Fatalf("Eval(%q): error %T is not an *Error", src, err)
				}
			}
		}
	})
}

// JUEL reads null as 0 in arithmetic: ${count + 1} works before count is set.
func TestNullArithmetic(t *testing.T) {
	for src, want := range map[string]any{
		"${count + 1}": 1,
		"${null + 1}":  1,
		"${-count}":    0,
		"${count * 5}": 0,
		"${2 - count}": 2,
		"${n + 1}":     int64(42),
		"${'a' + 'b'}": "ab",
	} {
		e, err := Compile(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, err := e.Eval(Vars{"count": nil, "n": int64(41)})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s = %v (%T), want %v", src, got, got, want)
		}
	}
}
