/* The tracker (issue 5 builds it here). Until then it records nothing. */
export {}
