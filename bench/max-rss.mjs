// Preloaded with `node --import` by the bench: writes the process's peak resident memory (kB) to
// $CADRE_BENCH_RSS_FILE as it exits. Only the process given the flag loads it; its children do not.
import { writeFileSync } from 'node:fs';

const file = process.env.CADRE_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
