/** The CLI's version, from src/public/versions.json (the file /release reports), bundled at build time. */
import versions from '../../src/public/versions.json' with { type: 'json' }

export const VERSION: string = versions.cli
