import { patternDetail } from '../shared/control-characters.js';
import type { FieldRule } from './api-schemas.js';

const isEmpty = (value: unknown) => value === undefined || value === null || value === '';

function numberProblem(label: string, rule: FieldRule, value: number): string | undefined {
  if (rule.type === 'integer' && !Number.isInteger(value)) return `${label} must be a whole number`;
  if (rule.min !== undefined && rule.max !== undefined && (value < rule.min || value > rule.max)) return `${label} must be from ${rule.min} to ${rule.max}`;
  if (rule.min !== undefined && value < rule.min) return `${label} must be at least ${rule.min}`;
  if (rule.max !== undefined && value > rule.max) return `${label} must be at most ${rule.max}`;
  return undefined;
}

function textProblem(label: string, rule: FieldRule, value: string): string | undefined {
  if (rule.minLength !== undefined && value.length < rule.minLength) return `${label} must be at least ${rule.minLength} characters long`;
  if (rule.maxLength !== undefined && value.length > rule.maxLength) return `${label} must be at most ${rule.maxLength} characters long`;
  if (rule.pattern !== undefined && !new RegExp(rule.pattern, 'u').test(value)) return `${label} ${patternDetail(rule.pattern) ?? 'is not in the form this field takes (see its help)'}`;
  return undefined;
}

/**
 * What is wrong with one value before it is sent, in words naming the field (`label`): a missing
 * required value, a number out of bounds, text too long or of the wrong form, a value outside the
 * fixed choices. The API checks it again; this only answers at the field, before asking it.
 */
export function fieldProblem(label: string, rule: FieldRule, value: unknown): string | undefined {
  if (isEmpty(value)) return rule.required || (value === '' && (rule.minLength ?? 0) > 0) ? `${label} is required` : undefined;
  if (rule.options && !Array.isArray(value) && !rule.options.includes(value as string | number)) return `${label} must be one of ${rule.options.join(', ')}`;
  if (typeof value === 'number') return numberProblem(label, rule, value);
  if (typeof value === 'string') return textProblem(label, rule, value);
  return undefined;
}
