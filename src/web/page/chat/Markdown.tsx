import { useMemo } from 'preact/hooks';
import { renderMarkdown } from './render-markdown.js';

/** Rendered markdown; the HTML comes from markdown-it with raw HTML disabled (see render-markdown.ts). */
export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
