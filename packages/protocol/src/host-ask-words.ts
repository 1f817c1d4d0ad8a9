/**
 * How a question the host itself put to the person ended, and where it was answered, as values
 * and in words (the CLI's `policy audit` and the page's host audit log). Zod-free: the web bundle
 * imports it, and a zod object built at load would trip the page's CSP (zod tries `new Function`).
 *
 * The ends: the person's yes for this call (`approved`), yes and the project's "always allow" rule
 * saved (`always-allowed`), no (`denied`: the host's questions take no reason); or no answer: none
 * within HOST_ASK_TIMEOUT_MS (`timed-out`), the run or the call stopped first (`run-stopped`), no
 * terminal and no page to ask, or too many questions waiting (`not-asked`), the terminal prompt
 * failed (`not-answered`), the host stopping (`host-stopped`). Only `approved` and
 * `always-allowed` let the call go on.
 */
export const HOST_ASK_RESULTS = [
  'approved',
  'always-allowed',
  'denied',
  'timed-out',
  'run-stopped',
  'not-asked',
  'not-answered',
  'host-stopped',
] as const;
export type HostAskResult = (typeof HOST_ASK_RESULTS)[number];

/** Each end in words. */
export const HOST_ASK_RESULT_WORDS: Record<HostAskResult, string> = {
  approved: 'approved once',
  'always-allowed': 'always allowed',
  denied: 'denied',
  'timed-out': 'not answered in time',
  'run-stopped': 'the run stopped first',
  'not-asked': 'nobody to ask',
  'not-answered': 'the prompt failed',
  'host-stopped': 'Bastion stopped first',
};

/** Where the person answered: the host's own terminal prompt, or the desktop page through host IPC. */
export const HOST_ASK_CHANNELS = ['terminal', 'desktop'] as const;

/** Where the person answered, in the words beside HOST_ASK_RESULT_WORDS. */
export const HOST_ASK_CHANNEL_WORDS: Record<(typeof HOST_ASK_CHANNELS)[number], string> = {
  terminal: 'at the terminal',
  desktop: 'in the page',
};
