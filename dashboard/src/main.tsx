/** Entry of the dashboard bundle (dist/public/app/app-<hash>.js), loaded by the shell at /app/. */
import { render } from 'preact'
import { App } from './app.js'

render(<App />, document.getElementById('app')!)
