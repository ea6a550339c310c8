// Command k6 is a stock k6 binary with the perflab output compiled in, equivalent to what xk6 generates.
package main

import (
	k6cmd "go.k6.io/k6/cmd"

	_ "github.com/perflab/perflab/packages/k6-output"
	_ "github.com/perflab/perflab/packages/k6-output/sse"
)

func main() {
	k6cmd.Execute()
}
