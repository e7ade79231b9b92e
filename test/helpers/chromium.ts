/** How tests and benchmarks start Debian's Chromium (playwright-core cannot download one here). */
import { chromium, type Browser } from 'playwright-core'

export const CHROMIUM_OPTIONS = {
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
}

export const launchChromium = (): Promise<Browser> => chromium.launch(CHROMIUM_OPTIONS)
