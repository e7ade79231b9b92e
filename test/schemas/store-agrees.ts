/**
 * Compile-time only (the type check runs it, nothing executes it): the shapes
 * the store keeps and answers with agree with the schemas the server validates
 * and documents them by, member for member and type for type. A schema change
 * the store does not follow, or the other way round, fails `tsc -p .`.
 */
import type { Known } from '../../src/control/router.js'
import type * as schema from '../../src/schemas/types.js'
import type { ElementRow, FrictionItem } from '../../src/store/insights.js'
import type { ChunkInfo, ChunkMeta, Click, ConsoleEntry, ErrorEntry, RequestEntry, View } from '../../src/store/store.js'

/** True only when A and B are the same type. */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

/** True when every A is a B. */
type Fits<A, B> = [A] extends [B] ? true : false

const agree = <_ extends true>() => undefined

agree<Same<Known<schema.ChunkMeta>, Known<ChunkMeta>>>()
// The store always knows when a chunk arrived; the answer documents it as optional.
agree<Fits<Known<ChunkInfo>, Known<schema.ChunkInfo>>>()
// The writer adds the page key to each entry; the rest is the tracker's entry as validated.
agree<Same<Known<schema.SignalClick>, Known<Omit<Click, 'page'>>>>()
agree<Same<Known<schema.SignalError>, Known<Omit<ErrorEntry, 'page'>>>>()
agree<Same<Known<schema.SignalView>, Known<Omit<View, 'page'>>>>()
agree<Same<Known<schema.SignalConsole>, Known<ConsoleEntry>>>()
agree<Same<Known<schema.SignalRequest>, Known<RequestEntry>>>()
agree<Same<Known<schema.ElementRow>, Known<ElementRow>>>()
agree<Same<Known<schema.FrictionItem>, Known<FrictionItem>>>()
