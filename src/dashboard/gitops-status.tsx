import { Badge } from './components.js';

type Tone = 'good' | 'warn' | 'bad' | 'neutral';

// A repository's state (GET /gitops/status) in words.
const STATE_WORDS: Record<string, string> = {
  ok: 'In sync',
  drifted: 'Drifted',
  rejected: 'Rejected: the newest commit does not validate',
  refused: 'Refused by the safety gate',
  partial: 'Partly applied',
  failed: 'Failed',
};

// A run's status in words.
const RUN_WORDS: Record<string, string> = {
  applied: 'Applied',
  no_changes: 'In sync, nothing to change',
  rejected: 'Rejected: the commit does not validate',
  refused: 'Refused by the safety gate',
  partial: 'Partly applied',
  failed: 'Failed',
};

// What started a run, in words.
const TRIGGER_WORDS: Record<string, string> = {
  start: 'at start',
  interval: 'on its interval',
  webhook: 'by a push',
  watch: 'by a file change',
  manual: 'by hand',
  request: 'on request',
};

function runTone(status: string): Tone {
  if (status === 'applied' || status === 'no_changes' || status === 'ok') return 'good';
  if (status === 'partial' || status === 'refused' || status === 'drifted') return 'warn';
  return status === 'failed' || status === 'rejected' ? 'bad' : 'neutral';
}

/** A run's status as a badge in words (the API's word in its title). */
export function RunStatus({ status }: { status: string }) {
  return (
    <Badge tone={runTone(status)} title={status}>
      {runWords(status)}
    </Badge>
  );
}

/** A repository's state as a badge in words. */
export function RepoState({ state }: { state: string }) {
  return (
    <Badge tone={runTone(state)} title={state}>
      {STATE_WORDS[state] ?? state}
    </Badge>
  );
}

/** A run's status in words. */
export function runWords(status: string): string {
  return RUN_WORDS[status] ?? status;
}

/** What started a run, in words. */
export function triggerWords(trigger: string): string {
  return TRIGGER_WORDS[trigger] ?? trigger;
}
