import { Marked } from 'marked';

const ALLOWED_TAG = /(<\/?(?:details|summary|b)>)/;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

// Raw HTML in the Markdown is shown as text, except the bare tags a plan uses to fold its details.
function foldingTagsOnly(html: string): string {
  return html
    .split(ALLOWED_TAG)
    .map((part, index) => (index % 2 === 1 ? part : escapeHtml(part)))
    .join('');
}

const markdown = new Marked({ gfm: true, renderer: { html: ({ text }) => foldingTagsOnly(text) } });

/** Markdown such as a GitOps plan (`cdn plan --markdown`), rendered without any HTML but its folds. */
export function Markdown({ source }: { source: string }) {
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: markdown.parse(source, { async: false }) }} />;
}
