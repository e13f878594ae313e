/** One thing wrong with the desired state, at a position of a file (1-based line and column). */
export type Problem = { file: string; line: number; col: number; message: string };

/** `file:line:col: message`, the form editors and CI annotations understand. */
export function formatProblem(problem: Problem): string {
  return `${problem.file}:${problem.line}:${problem.col}: ${problem.message}`;
}

/** Problems in file, then position order. */
export function sortProblems(problems: Problem[]): Problem[] {
  return [...problems].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col);
}
