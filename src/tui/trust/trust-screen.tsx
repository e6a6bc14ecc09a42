import { render, Text, useApp, useInput, useStdout } from 'ink';
import { useRef, useState } from 'react';
import { frame } from '../render/box.js';
import type { Theme } from '../theme.js';

export type TrustChoice = 'trust' | 'continue' | 'quit';

/** What the first screen says: the project, exactly what trusting it would run, and where trust is kept. */
export interface TrustQuestion {
  projectRoot: string;
  /** One phrase per item, as `describeUntrusted(items, 'trusted')` words them. */
  wouldRun: string[];
  /** The global config file that remembers trusted folders. */
  configFile: string;
}

const CHOICES: { key: string; label: string; choice: TrustChoice }[] = [
  { key: '1', label: 'Trust this folder', choice: 'trust' },
  { key: '2', label: 'Continue without trusting it (none of the above runs)', choice: 'continue' },
];

/** The screen's rows at `width` columns with choice `selected` highlighted. */
export function renderTrustScreen(
  question: TrustQuestion,
  selected: number,
  width: number,
  theme: Theme,
): string[] {
  const { style, glyphs } = theme;
  const rows = [
    `${style.bold(question.projectRoot)} is not trusted. Its own cadre config would run:`,
    '',
    ...question.wouldRun.map((item) => `  ${glyphs.bullet} ${item}`),
    '',
    style.dim(`Trust is remembered in ${question.configFile} (cadre trust --revoke undoes it).`),
    '',
    ...CHOICES.map((c, i) => {
      const row = `${i === selected ? glyphs.prompt : ' '} ${c.key}. ${c.label}`;
      return i === selected ? style.cyan(row) : row;
    }),
    '',
    style.dim(
      `${theme.caps.unicode ? '↑↓' : 'up/down'} select ${glyphs.dot} enter confirm ${glyphs.dot} esc quit`,
    ),
  ];
  return frame(rows, width, theme, 'Trust this folder?');
}

/** One key: digits pick, arrows move, Enter confirms, Esc (or Ctrl+C) quits without starting. */
export function trustKey(
  selected: number,
  input: string,
  key: { upArrow: boolean; downArrow: boolean; return: boolean; escape: boolean; ctrl: boolean },
): { selected: number } | { choice: TrustChoice } {
  if (key.escape || (key.ctrl && input === 'c')) return { choice: 'quit' };
  if (key.upArrow || key.downArrow) return { selected: (selected + 1) % CHOICES.length };
  if (key.return) return { choice: CHOICES[selected].choice };
  const picked = CHOICES.find((c) => c.key === input);
  return picked ? { choice: picked.choice } : { selected };
}

function TrustScreen(props: {
  question: TrustQuestion;
  theme: Theme;
  onChoice: (choice: TrustChoice) => void;
}) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [selected, setSelected] = useState(0);
  // Read through a ref: ink swaps the input handler only after the new frame is on screen, so an Enter
  // typed right after an arrow would otherwise confirm the choice the arrow had just left (trusting a
  // folder the user moved away from).
  const current = useRef(0);
  useInput((input, key) => {
    const result = trustKey(current.current, input, key);
    if ('choice' in result) {
      props.onChoice(result.choice);
      exit();
    } else {
      current.current = result.selected;
      setSelected(result.selected);
    }
  });
  return (
    <Text>{renderTrustScreen(props.question, selected, stdout.columns || 80, props.theme).join('\n')}</Text>
  );
}

/** Asks before anything of the project's own config runs; resolves with the user's choice. */
export async function askTrust(question: TrustQuestion, theme: Theme): Promise<TrustChoice> {
  let choice: TrustChoice = 'quit';
  const app = render(<TrustScreen question={question} theme={theme} onChoice={(c) => (choice = c)} />, {
    exitOnCtrlC: false,
  });
  await app.waitUntilExit();
  app.clear();
  return choice;
}
