import { markdownText } from './print.js';
import type { Problem } from './problems.js';

// Enough problems to fix the first round; `cdn validate` lists them all.
const PROBLEMS_SHOWN = 100;

function problemLine(problem: Problem): string {
  return `- <code>${markdownText(`${problem.file}:${problem.line}:${problem.col}`)}</code> ${markdownText(problem.message)}`;
}

/**
 * What `cdn plan --markdown` prints when nothing could be planned, for the pull-request comment:
 * a heading, the reason and, for problems, each one as `file:line:col` and its message.
 */
export function failureMarkdown(reason: string, problems: Problem[] = []): string {
  const lines = ['### CDN plan failed', '', markdownText(reason)];
  if (problems.length) lines.push('', ...problems.slice(0, PROBLEMS_SHOWN).map(problemLine));
  if (problems.length > PROBLEMS_SHOWN) lines.push('', `_…and ${problems.length - PROBLEMS_SHOWN} more; \`cdn validate\` lists them all._`);
  return `${lines.join('\n')}\n`;
}
