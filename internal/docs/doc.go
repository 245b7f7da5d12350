// Package docs holds the docs test: every ```go code block in README.md,
// RATIONALE.md and docs/*.md must be a whole Go file that compiles against
// this module. It has no code of its own.
package docs
