// An example Ax agent as an app writes it: one function tool (a team-directory lookup over
// HTTP), a skills catalog, a memories catalog and a context map that carries over from one
// question to the next. The recorder's tests record it against a scripted
// OpenAI-compatible server and replay it offline; example/record.mjs runs it by hand.

export const SIGNATURE = 'question:string -> answer:string';
export const INSTRUCTION = 'Look owners up with the directory tool before answering; name the on-call person.';

export const skillsCatalog = [
  {
    id: 'incident-triage',
    name: 'Incident triage',
    description: 'How to read incident notes, rank severity and find who owns a service',
    content: '# Incident triage\n- SEV1 is the most severe.\n- Always name the owning team and the on-call person.',
  },
  {
    id: 'release-guide',
    name: 'Release guide',
    description: 'Shipping a release: tag, build, announce',
    content: '# Releases\nTag the commit, build, announce in #releases.',
  },
];

export const memoriesCatalog = [
  { id: 'mem-checkout-owner', content: 'The checkout service owner is team-payments.' },
  { id: 'mem-user-pref', content: 'The user prefers one-sentence answers.' },
  { id: 'mem-search-owner', content: 'The search service owner is team-discovery.' },
];

/** The function tool: asks the team directory (an HTTP service) who owns a service. */
export function lookupOwnerTool(directoryURL) {
  return {
    name: 'lookupOwner',
    description: 'Find the team that owns a service and who is on call',
    parameters: {
      type: 'object',
      properties: { service: { type: 'string', description: 'the service name, e.g. checkout' } },
      required: ['service'],
    },
    func: async ({ service }) => {
      const response = await fetch(`${directoryURL}/owners/${encodeURIComponent(service)}`);
      if (!response.ok) throw new Error(`directory answered HTTP ${response.status}`);
      return await response.json();
    },
  };
}

/** Memories the actor declared used (what the app's telemetry would receive). */
export const usage = [];

/** The agent's options (the same for recording and for replaying in a test). */
export function triageOptions({ directoryURL, map, instruction = INSTRUCTION }) {
  return {
    functions: [lookupOwnerTool(directoryURL)],
    skillsCatalog,
    memoriesCatalog,
    contextMap: { map },
    executorOptions: { description: instruction },
    maxTurns: 6,
    // The app's own telemetry; it also lets the actor report which memories it used.
    onUsedMemories: (used) => usage.push(...used),
  };
}

export const QUESTIONS = ['Who owns the checkout incident?', 'Who is on call for checkout right now?'];
