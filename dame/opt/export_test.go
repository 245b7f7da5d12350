package opt

// Invariants reports whether the invariants build tag is set (the checks
// allocate, so allocation tests skip).
const Invariants = invariants
