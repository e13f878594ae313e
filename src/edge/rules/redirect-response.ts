import { encodeForLocation } from '../../shared/control-characters.js';
import type { EdgeResponse } from '../pipeline/response.js';

/**
 * A bodiless redirect to `location`. Any control character left in it (the
 * snapshot refused them in targets; captures and paths were encoded) is
 * percent-encoded once more, so a Location can never split the response.
 */
export function redirectResponse(status: number, location: string): EdgeResponse {
  return { status, headers: { location: encodeForLocation(location), 'content-length': '0' }, body: null };
}
