import type { FileDiff } from './diff-of-call.js';

const SIGN = { add: '+', del: '-', ctx: ' ', hunk: '' } as const;

/** A unified diff per file: added lines green, removed red, hunk headers dimmed. */
export function Diff({ files }: { files: FileDiff[] }) {
  return (
    <div class="diff">
      {files.map((file) => (
        <figure class="diff-file" key={file.path}>
          {file.path !== '' && <figcaption class="diff-path">{file.path}</figcaption>}
          <pre>
            {file.lines.map((line, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a diff line has no identity beyond its place
              <div class={`diff-line diff-${line.kind}`} key={index}>
                <span class="diff-sign" aria-hidden="true">
                  {SIGN[line.kind]}
                </span>
                <span class="diff-text">{line.text === '' ? ' ' : line.text}</span>
              </div>
            ))}
          </pre>
        </figure>
      ))}
    </div>
  );
}
