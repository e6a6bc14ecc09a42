import { cpus, loadavg, totalmem } from 'node:os';

/** One measured figure; `target` bounds it from above (`max`) or below (`min`). */
export interface Figure {
  /** Stable name in the JSON file, e.g. `cold.exit_ratio`. */
  key: string;
  name: string;
  value: number;
  unit: string;
  target?: { max?: number; min?: number };
  /** Spread or context printed beside the value. */
  note?: string;
}

export interface MachineInfo {
  date: string;
  node: string;
  platform: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  /** 1, 5 and 15 minute load averages when the bench started (the machine may be shared). */
  loadAverage: number[];
}

export function machine(): MachineInfo {
  const cpu = cpus();
  return {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export function met(figure: Figure): boolean | null {
  const { target } = figure;
  if (!target) return null;
  return (
    (target.max === undefined || figure.value <= target.max) &&
    (target.min === undefined || figure.value >= target.min)
  );
}

export function formatValue(figure: Figure): string {
  if (figure.unit === 'bool') return figure.note ?? (figure.value === 1 ? 'yes' : 'no');
  const digits = figure.unit === 'x' || figure.unit === '' ? 2 : 1;
  const unit = figure.unit === '' ? '' : figure.unit === 'x' ? 'x' : ` ${figure.unit}`;
  return `${figure.value.toFixed(digits)}${unit}`;
}

export function formatTarget(figure: Figure): string {
  const { target } = figure;
  if (!target) return '';
  if (figure.unit === 'bool') return 'yes';
  const unit = figure.unit === '' ? '' : figure.unit === 'x' ? 'x' : ` ${figure.unit}`;
  if (target.max !== undefined) return `≤ ${target.max}${unit}`;
  return `≥ ${target.min}${unit}`;
}

export function printTable(figures: Figure[]): void {
  const rows = figures.map((f) => {
    const ok = met(f);
    return {
      name: f.name,
      value: formatValue(f),
      target: formatTarget(f),
      verdict: `${ok === null ? '' : ok ? 'ok' : 'OVER'}${f.note && f.unit !== 'bool' ? `  (${f.note})` : ''}`,
    };
  });
  const header = { name: 'benchmark', value: 'median', target: 'target', verdict: 'verdict' };
  const width = (key: keyof typeof header) => Math.max(header[key].length, ...rows.map((r) => r[key].length));
  const format = (r: typeof header) =>
    `${r.name.padEnd(width('name'))}  ${r.value.padStart(width('value'))}  ${r.target.padEnd(width('target'))}  ${r.verdict}`.trimEnd();
  process.stdout.write(`${format(header)}\n${'-'.repeat(format(header).length)}\n`);
  for (const row of rows) process.stdout.write(`${format(row)}\n`);
}
