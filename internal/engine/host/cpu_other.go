//go:build !amd64 && !arm64

package host

// detect reports no features: the engines use their portable paths.
func detect() Features { return Features{} }
