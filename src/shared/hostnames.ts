import { domainToASCII } from 'node:url';
import { isIP } from 'node:net';
import { hasControlCharacter } from './control-characters.js';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_NAME = 253;

/**
 * Lower-case ASCII (punycode) form of a hostname without a trailing dot, or
 * undefined when it is not a valid hostname. IP addresses are not hostnames here.
 * Surrounding blanks are trimmed, but a control character anywhere (a trailing CR/LF
 * included) makes it invalid: such a name was not typed, it was injected.
 */
export function normalizeHostname(input: string): string | undefined {
  if (hasControlCharacter(input)) return undefined;
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '' || trimmed.length > MAX_NAME * 4 || isIP(trimmed)) return undefined;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (!ascii || ascii.length > MAX_NAME) return undefined;
  return ascii.split('.').every((label) => LABEL.test(label)) ? ascii : undefined;
}

/** A normalised apex hostname (at least two labels, a non-numeric TLD), or undefined. */
export function normalizeApex(input: string): string | undefined {
  const name = normalizeHostname(input);
  if (!name) return undefined;
  const labels = name.split('.');
  if (labels.length < 2 || /^\d+$/.test(labels.at(-1)!)) return undefined;
  return name;
}
