/** Who is making a request: recorded in audit events and checked by route auth. */
export type Actor =
  | { type: 'api-token'; name: 'api-token' }
  | { type: 'admin'; name: string; userId: string; sessionId: string }
  | { type: 'anonymous'; name: 'anonymous' }
  | { type: 'edge'; name: string; edgeId: string; tokenId: string };

export const ANONYMOUS: Actor = { type: 'anonymous', name: 'anonymous' };
export const API_TOKEN_ACTOR: Actor = { type: 'api-token', name: 'api-token' };
