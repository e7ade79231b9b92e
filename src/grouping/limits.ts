/** Longest URL a signal may carry, and so the longest page key (API contract, section 8). */
export const URL_MAX_LENGTH = 2000
