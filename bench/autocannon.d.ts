/** The part of autocannon's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  export interface RequestParams {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
  }

  export interface Request extends RequestParams {
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams
  }

  export interface Options {
    url: string
    connections?: number
    duration?: number
    pipelining?: number
    /** Requests per second across all connections. */
    overallRate?: number
    timeout?: number
    method?: string
    headers?: Record<string, string>
    body?: string | Buffer
    requests?: Request[]
  }

  export interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    total: number
    p50: number
    p90: number
    p99: number
  }

  export interface Result {
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    resets: number
    '2xx': number
    '4xx': number
    '5xx': number
    statusCodeStats: Record<string, { count: number }>
    latency: Histogram
    requests: Histogram & { sent: number }
    throughput: Histogram
  }

  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
