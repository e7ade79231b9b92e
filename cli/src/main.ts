/* The command-line client (issue 7 builds it here). */
console.error('This deployment serves a placeholder CLI.')
process.exitCode = 1
