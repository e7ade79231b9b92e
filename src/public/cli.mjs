#!/usr/bin/env node
// svc CLI placeholder: the real CLI is built from cli/ (issue 7).
console.error('This deployment serves a placeholder CLI.')
process.exitCode = 1
