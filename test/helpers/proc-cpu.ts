import { readFileSync } from 'node:fs';

const TICK_MS = 10; // Linux reports /proc times in clock ticks of 1/100 s (getconf CLK_TCK).

/**
 * A process's own CPU and that of its reaped children, in ms (/proc/<pid>/stat fields 14 to 17): the
 * test CPU log's one reader of /proc (test/helpers/cpu-meter.ts, worker-dynamodb.ts). A process that is
 * gone reads as 0.
 */
export function processCpu(pid: number | 'self'): { self: number; children: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const at = (field: number) => Number(fields[field - 3]) * TICK_MS;
    return { self: at(14) + at(15), children: at(16) + at(17) };
  } catch {
    return { self: 0, children: 0 };
  }
}
