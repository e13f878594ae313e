import { Marked } from 'marked';

const ALLOWED_TAG = /(<\/?(?:details|summary|b|code)>)/;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

// Raw HTML in the Markdown is shown as text, except the bare tags a plan uses to fold its details and set its items in monospace.
function foldingTagsOnly(html: string): string {
  return html
    .split(ALLOWED_TAG)
    .map((part, index) => (index % 2 === 1 ? part : escapeHtml(part)))
    .join('');
}

// Links go only to web pages or within the dashboard; images are not loaded, their text is shown.
function safeHref(href: string): string | undefined {
  return /^(https?:\/\/|\/(?!\/)|#)/i.test(href.trim()) ? href : undefined;
}

const markdown = new Marked({
  gfm: true,
  renderer: {
    html: ({ text }) => foldingTagsOnly(text),
    link({ href, tokens }) {
      const text = this.parser.parseInline(tokens);
      const target = safeHref(href);
      return target ? `<a href="${escapeHtml(target)}" rel="noopener noreferrer">${text}</a>` : text;
    },
    image: ({ text }) => escapeHtml(text),
  },
});

/** Markdown such as a GitOps plan (`cdn plan --markdown`), rendered without any HTML but its folds, images or links elsewhere than the web. */
export function Markdown({ source }: { source: string }) {
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: markdown.parse(source, { async: false }) }} />;
}
