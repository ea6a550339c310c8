package main

import "perflab/servers/go-common/upstream"

// backends carries the I/O tools (iotools.go) as its methods, over the fixtures' shared clients.
type backends struct{ *upstream.Clients }

func newBackends() *backends { return &backends{upstream.New()} }
