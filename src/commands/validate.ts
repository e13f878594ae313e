import path from 'node:path';
import { loadDesiredState } from '../gitops/load.js';
import { formatProblem, sortProblems } from '../gitops/problems.js';

/**
 * `cdn validate [DIR]`: checks a desired-state directory without touching any
 * server. Prints each problem as `file:line:col: message` (paths relative to DIR)
 * and exits 1 when there is any.
 */
export async function runValidate(dir: string, options: { json?: boolean }): Promise<void> {
  const root = path.resolve(dir);
  const started = performance.now();
  const state = await loadDesiredState(root);
  const problems = sortProblems(state.problems);
  const ms = Math.round(performance.now() - started);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ valid: problems.length === 0, domains: state.domains.length, problems, ms }, null, 2)}\n`);
  } else {
    for (const problem of problems) process.stdout.write(`${formatProblem(problem)}\n`);
    const summary = problems.length
      ? `${problems.length} problem(s) in ${new Set(problems.map((problem) => problem.file)).size} file(s)`
      : `${state.domains.length} domain file(s) valid`;
    process.stdout.write(`${summary} (${ms} ms)\n`);
  }
  if (problems.length) process.exitCode = 1;
}
