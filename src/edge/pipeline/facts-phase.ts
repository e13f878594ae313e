import { prepareRequest } from '../../shared/rules/rule-set.js';
import { LazyRequestFacts } from './request-facts.js';
import type { Phase } from './phase.js';

/** facts: prepares the request once for every rule set (after host and country are known). Never handles. */
export const factsPhase: Phase = {
  name: 'facts',
  run(ctx) {
    ctx.facts = prepareRequest(new LazyRequestFacts(ctx));
    return false;
  },
};
