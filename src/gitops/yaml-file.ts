import { isMap, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { Problem } from './problems.js';

/** A parsed YAML file that can tell where any value of it sits. */
export class YamlFile {
  readonly data: unknown;
  readonly problems: Problem[];
  private readonly lines = new LineCounter();
  private readonly document: Document;

  constructor(
    readonly file: string,
    text: string,
  ) {
    this.document = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    this.problems = [...this.document.errors, ...this.document.warnings].map((error) => this.problemAtOffset(error.pos[0], error.message.split('\n')[0]));
    this.data = this.document.errors.length ? undefined : this.document.toJS({ maxAliasCount: 100 });
  }

  private problemAtOffset(offset: number, message: string): Problem {
    const { line, col } = this.lines.linePos(offset);
    return { file: this.file, line, col, message };
  }

  private node(path: (string | number)[]): Node | undefined {
    return path.length ? (this.document.getIn(path, true) as Node | undefined) : (this.document.contents ?? undefined);
  }

  /** A problem at the value found by `path` (or at the key `key` inside it), falling back to the nearest existing parent. */
  problemAt(path: (string | number)[], message: string, key?: string): Problem {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = this.node(path.slice(0, depth));
      if (!node) continue;
      if (key !== undefined && depth === path.length && isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && item.key.value === key);
        if (pair && isScalar(pair.key) && pair.key.range) return this.problemAtOffset(pair.key.range[0], message);
      }
      if (node.range) return this.problemAtOffset(node.range[0], message);
    }
    return { file: this.file, line: 1, col: 1, message };
  }
}
