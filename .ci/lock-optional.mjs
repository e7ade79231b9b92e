#!/usr/bin/env node
// Records, in package-lock.json, the platform-specific optional packages that
// the registry reachable here does not serve (darwin, win32, musl… builds of
// rollup, msgpackr-extract and friends). `npm install` skips them silently and
// leaves them out of the lock, and `npm ci` then refuses the lock as out of
// sync. Each is written as an optional entry for its own os/cpu/libc, which
// `npm ci` skips on this platform without fetching anything.
// Run after any `npm install`: node .ci/lock-optional.mjs
import { readFileSync, writeFileSync } from 'node:fs'

const path = new URL('../package-lock.json', import.meta.url)
const lock = JSON.parse(readFileSync(path, 'utf8'))
const packages = lock.packages
const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openbsd', 'openharmony', 'sunos', 'aix', 'netbsd']
const CPU = { arm64: 'arm64', x64: 'x64', ia32: 'ia32', arm: 'arm', loong64: 'loong64', ppc64: 'ppc64', riscv64: 'riscv64', s390x: 's390x', gnueabihf: 'arm', musleabihf: 'arm', eabi: 'arm' }

let added = 0
for (const [where, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = where.endsWith(`node_modules/${name}`) ? where : `node_modules/${name}`
    if (packages[base] || packages[`${where}/node_modules/${name}`]) continue
    const tokens = name.split('/').pop().split('-')
    const os = tokens.find((t) => OS.includes(t))
    const cpu = tokens.map((t) => CPU[t]).find(Boolean)
    if (!os || !cpu) continue // not a platform build: leave it for npm to resolve
    const record = { version: spec.replace(/^[\^~=]/, ''), cpu: [cpu], dev: entry.dev, optional: true, os: [os] }
    if (tokens.includes('musl') || tokens.includes('musleabihf')) record.libc = ['musl']
    if (tokens.includes('gnu') || tokens.includes('gnueabihf')) record.libc = ['glibc']
    if (!record.dev) delete record.dev
    packages[base] = record
    added += 1
  }
}
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n')
console.log(`recorded ${added} platform-specific optional package(s) in package-lock.json`)
