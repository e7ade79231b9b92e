/** Stylesheets imported by modules are bundled as text (dashboard/tsup.config.ts) and injected where used. */
declare module '*.css' {
  const text: string
  export default text
}
