// @bcoe/v8-coverage ships no types; what browser-coverage-report.ts uses of it.
declare module '@bcoe/v8-coverage' {
  export interface ScriptCov {
    scriptId: string
    url: string
    functions: { functionName: string; isBlockCoverage: boolean; ranges: { startOffset: number; endOffset: number; count: number }[] }[]
  }
  export interface ProcessCov {
    result: ScriptCov[]
  }
  export function mergeProcessCovs(processCovs: readonly ProcessCov[]): ProcessCov
}
