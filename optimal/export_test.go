package optimal

import "github.com/ddtlab/ddt/internal/recon"

// sbucBuckets is the canonical strided-bucket partition of the solver, for
// the tests that check sbuc nodes.
var sbucBuckets = recon.SBucBuckets
