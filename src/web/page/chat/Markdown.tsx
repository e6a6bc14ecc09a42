import { useMemo } from 'preact/hooks';
import { renderMarkdown } from './render-markdown.js';

/** Rendered markdown; the HTML comes from markdown-it with raw HTML disabled (see render-markdown.ts). */
export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: markdown-it escapes raw HTML and refuses unsafe links
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
