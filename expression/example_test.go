package expression_test

import (
	"fmt"

	"github.com/bpmnlite/bpmnlite/expression"
)

func Example() {
	vars := expression.Vars{
		"amount":   1500,
		"customer": map[string]any{"status": "VIP", "name": "Ada"},
	}

	cond, err := expression.Compile("${amount gt 1000 and customer.status eq 'VIP'}")
	if err != nil {
		panic(err)
	}
	ok, err := cond.EvalBool(vars)
	fmt.Println(ok, err)

	greeting, _ := expression.Compile("Dear ${customer.name}, you ordered ${amount div 100} boxes.")
	s, err := greeting.EvalString(vars)
	fmt.Println(s, err)

	_, err = cond.EvalBool(expression.Vars{"amount": 5000})
	fmt.Println(err)
	// Output:
	// true <nil>
	// Dear Ada, you ordered 15 boxes. <nil>
	// expression ${amount gt 1000 and customer.status eq 'VIP'}: unknown name "customer" (not a variable or bean): cannot resolve identifier
}
