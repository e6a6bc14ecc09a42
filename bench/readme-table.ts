// `node --import tsx bench/readme-table.ts [bench-results.json] [README.md]`: rewrites the README's performance table
// (between the bench:start and bench:end markers) from a `npm run bench -- --json` file, naming the machine,
// Node version, date and load it was measured with.
import { readFileSync, writeFileSync } from 'node:fs';
import { type Figure, formatTarget, formatValue, type MachineInfo, met } from './report.js';

const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';

export function readmeTable(result: MachineInfo & { loadAverageEnd: number[]; figures: Figure[] }): string {
  const lines = [
    START,
    `Measured ${result.date.slice(0, 10)} on ${result.cpu} (${result.cores} cores, ${result.memoryGiB} GiB), ` +
      `${result.platform}, Node ${result.node}; load average ${result.loadAverage[0]} at the start and ` +
      `${result.loadAverageEnd[0]} at the end (a shared machine inflates every figure).`,
    '',
    '| figure | median | target | met |',
    '|---|---|---|---|',
    ...result.figures.map((f) => {
      const ok = met(f);
      const note = f.note && f.unit !== 'bool' ? ` (${f.note})` : '';
      return `| ${f.name.trim()} | ${formatValue(f)}${note} | ${formatTarget(f)} | ${ok === null ? '' : ok ? 'yes' : 'no'} |`;
    }),
    END,
  ];
  return lines.join('\n');
}

const file = process.argv[2] ?? 'bench-results.json';
const readmeFile = process.argv[3] ?? 'README.md';
const readme = readFileSync(readmeFile, 'utf8');
const start = readme.indexOf(START);
const end = readme.indexOf(END);
if (start === -1 || end === -1) throw new Error(`${readmeFile} has no ${START} … ${END} section`);
const table = readmeTable(JSON.parse(readFileSync(file, 'utf8')));
writeFileSync(readmeFile, `${readme.slice(0, start)}${table}${readme.slice(end + END.length)}`);
