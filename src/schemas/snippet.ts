/** JSON Schema of the answer of POST /cli/projects.snippet (a documented extension of the API contract, section 4.3). */
export const snippetAnswer = {
  type: 'object',
  required: ['snippet', 'publicKey', 'trackerUrl'],
  properties: {
    snippet: { type: 'string', description: 'HTML to paste before </head> on every page: the loader stub, the public key and the tracker address.' },
    publicKey: { type: 'string', pattern: '^svc_pk_[0-9a-f]+$', description: 'The project public key the tracker sends.' },
    trackerUrl: { type: 'string', description: 'Where the tracker is served: {direct_url}/tracker.js.' },
  },
} as const
