/**
 * Every uWebSockets.js route handler of the front runs inside `safely`. An
 * exception thrown in a uWS handler is thrown from C++ into Node as an
 * uncaught exception, and on Node 20 a promise rejection nobody handles is one
 * too: either ended the whole front and dropped every request in flight on it.
 * Here a fault ends only its own request, with a JSON answer.
 */
import { log } from '../log.js'
import { begin, routeMeter } from './request-metrics.js'
import type { HttpRequest, HttpResponse } from './uws.js'

export type RouteHandler = (res: HttpResponse, req: HttpRequest) => unknown
/** Answers the request whose handler failed; must not throw for a response still open. */
export type FaultAnswer = (res: HttpResponse, error: unknown) => void

export function safely(route: string, handler: RouteHandler, onFault: FaultAnswer): (res: HttpResponse, req: HttpRequest) => void {
  const meter = routeMeter(route)
  return (res, req) => {
    begin(res, meter)
    const fail = (error: unknown) => answerFault(route, res, error, onFault)
    try {
      const result = handler(res, req)
      if (result instanceof Promise) result.catch(fail)
    } catch (error) {
      fail(error)
    }
  }
}

function answerFault(route: string, res: HttpResponse, error: unknown, onFault: FaultAnswer): void {
  log.error('front handler failed', { route, error: String(error), stack: (error as Error)?.stack })
  if (res.aborted) return
  try {
    onFault(res, error)
  } catch (second) {
    // The answer was already half written (the fault came from uWS itself): end the connection instead.
    log.error('front fault answer failed; closing the connection', { route, error: String(second) })
    try {
      res.close()
    } catch {
      // uWS had already discarded the response: nothing is left to close.
    }
  }
  res.aborted = true
}
