/**
 * The rule set's audit against its anchors: jsonc-parser (the floor of a position-aware
 * parse), JSON.parse (the floor without positions) and vscode-json-languageservice with the
 * schema (what an editor does with a schema alone), on generated configs of 100 to 50,000 tools.
 */
import { generateConfig, generateConfigWithSettings } from './generate';
import { SYNC, jsonLanguageService } from './implementations';
import { collectGarbage, median, ms, peakMemoryMiB, ratio, table, timeRuns } from './measure';

export const SIZES = [100, 1_000, 10_000, 50_000] as const;
const IMPLS = ['audit', 'jsonc-parser visit', 'jsonc-parser parseTree', 'JSON.parse', 'vscode-json-languageservice'] as const;

/** Median times (ms) and peak memory (MiB) by implementation and size. */
export interface AuditBenchData {
  times: Record<string, Record<number, number>>;
  memory: Record<string, Record<number, number>>;
  bytes: Record<number, number>;
}

/** Rounds in which the implementations take turns at each size. */
const ROUNDS = 3;

function runsFor(tools: number): number {
  return tools <= 1_000 ? 31 : tools <= 10_000 ? 11 : 5;
}

/** Runs the audit benchmark and returns its Markdown section and data. */
export async function benchAudit(log: (line: string) => void = () => undefined): Promise<{ markdown: string; data: AuditBenchData & { settingsCostMs?: number } }> {
  const data: AuditBenchData = { times: {}, memory: {}, bytes: {} };
  for (const impl of IMPLS) {
    data.times[impl] = {};
    data.memory[impl] = {};
  }
  for (const tools of SIZES) {
    const text = generateConfig(tools);
    data.bytes[tools] = Buffer.byteLength(text);
    // One implementation at a time, from a collected heap, so none pays for another's garbage
    // (vscode-json-languageservice leaves hundreds of MB at 50,000 tools); warm runs first. The
    // implementations take turns over ROUNDS rounds, so a slow spell of the machine weighs on each.
    const samples: Record<string, number[]> = Object.fromEntries(IMPLS.map((i) => [i, []]));
    const runs = runsFor(tools);
    // vscode-json-languageservice is slow: a third as many runs (at least three).
    const serviceRuns = Math.max(3, Math.ceil(runs / 3));
    for (let round = 0; round < ROUNDS; round++) {
      for (const impl of IMPLS) {
        collectGarbage();
        if (impl === 'vscode-json-languageservice') {
          await jsonLanguageService(text);
          for (let i = 0; i < Math.ceil(serviceRuns / ROUNDS); i++) {
            const start = process.hrtime.bigint();
            await jsonLanguageService(text);
            samples[impl].push(Number(process.hrtime.bigint() - start) / 1e6);
          }
        } else {
          samples[impl].push(...timeRuns(() => SYNC[impl](text), Math.ceil(runs / ROUNDS), round === 0 ? 2 : 1));
        }
      }
    }
    for (const impl of IMPLS) data.times[impl][tools] = median(samples[impl]);
    for (const impl of IMPLS) data.memory[impl][tools] = peakMemoryMiB(impl, tools);
    log(`audit bench: ${tools} tools done`);
  }

  // What judging every setting costs: the same file with and without them, in turns.
  const settingsAt = 100;
  const plain = generateConfig(settingsAt);
  const withSettings = generateConfigWithSettings(settingsAt);
  const plainSamples: number[] = [];
  const settingsSamples: number[] = [];
  for (let round = 0; round < ROUNDS * 3; round++) {
    collectGarbage();
    plainSamples.push(...timeRuns(() => SYNC.audit(plain), 31, 2));
    settingsSamples.push(...timeRuns(() => SYNC.audit(withSettings), 31, 2));
  }
  const settingsCost = median(settingsSamples) - median(plainSamples);

  const rows = SIZES.map((tools) => {
    const t = (impl: string) => data.times[impl][tools];
    return [
      tools.toLocaleString('en-US'),
      `${(data.bytes[tools] / 1024 / 1024).toFixed(2)} MB`,
      ms(t('audit')),
      ms(t('jsonc-parser visit')),
      ms(t('jsonc-parser parseTree')),
      ms(t('JSON.parse')),
      ms(t('vscode-json-languageservice')),
      ratio(t('audit') / t('jsonc-parser visit')),
      ratio(t('vscode-json-languageservice') / t('audit')),
      ratio(t('audit') / t('JSON.parse')),
    ];
  });
  const memoryRows = SIZES.map((tools) => [tools.toLocaleString('en-US'), ...IMPLS.map((impl) => data.memory[impl][tools].toFixed(1))]);
  const at10k = data.times.audit[10_000] / data.times['jsonc-parser visit'][10_000];
  const speedup = data.times['vscode-json-languageservice'][10_000] / data.times.audit[10_000];
  const growth = data.times.audit[50_000] / data.times.audit[10_000];
  const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
  const markdown = `## The audit (the rule set) against its anchors

Median wall time in milliseconds of one full audit without a graph (\`auditConfig\`, the shipped bundle
\`runtime/dist/rules.js\`), side by side with \`jsonc-parser\`'s \`visit\` and \`parseTree\`, \`JSON.parse\`, and
\`vscode-json-languageservice\` parsing and validating against \`schemas/10xgraph.schema.json\`. The implementations
take turns in one process over ${ROUNDS} rounds (a slow spell of the machine weighs on each), each turn from a collected heap (\`--expose-gc\`) after warm-up. Generated configs (\`bench/generate.ts\`) with about one broken
tool in a thousand.

${table(['tools', 'size', 'audit', 'visit', 'parseTree', 'JSON.parse', 'json-languageservice', 'audit / visit', 'json-ls / audit', 'audit / JSON.parse'], rows)}

Targets (issue 2): at 10,000 tools the audit within 1.5× of \`visit\`: ${ratio(at10k)}, ${verdict(at10k <= 1.5)};
at least 3× faster than vscode-json-languageservice: ${ratio(speedup)}, ${verdict(speedup >= 3)};
growth from 10,000 to 50,000 tools at most 6×: ${ratio(growth)}, ${verdict(growth <= 6)}.

Every setting judged (issue 17): a ${settingsAt}-tool file with every key of \`bench/generate.ts\`'s \`EVERY_SETTING\` set
audits in ${ms(median(settingsSamples))} ms against ${ms(median(plainSamples))} ms without them: ${settingsCost.toFixed(3)} ms more, target at most 1 ms: ${verdict(settingsCost <= 1)}.

Peak memory in MiB above the process's resident size with the text loaded (one run in a fresh process each):

${table(['tools', ...IMPLS], memoryRows)}
`;
  return { markdown, data };
}

/** An SVG plot of audit time against file size, log-log, for the audit and two anchors. */
export function plotAuditTimes(data: AuditBenchData): string {
  const series: Array<[string, string]> = [
    ['audit', '#d33'],
    ['jsonc-parser visit', '#36c'],
    ['jsonc-parser parseTree', '#39a'],
    ['vscode-json-languageservice', '#a6c'],
  ];
  const width = 720;
  const height = 400;
  const pad = { left: 70, right: 250, top: 30, bottom: 50 };
  const xs = SIZES.map((s) => data.bytes[s]);
  const all = series.flatMap(([impl]) => SIZES.map((s) => data.times[impl][s]));
  const [xmin, xmax] = [Math.log10(Math.min(...xs)), Math.log10(Math.max(...xs))];
  const [ymin, ymax] = [Math.floor(Math.log10(Math.min(...all))), Math.ceil(Math.log10(Math.max(...all)))];
  const x = (bytes: number) => pad.left + ((Math.log10(bytes) - xmin) / (xmax - xmin || 1)) * (width - pad.left - pad.right);
  const y = (t: number) => height - pad.bottom - ((Math.log10(t) - ymin) / (ymax - ymin || 1)) * (height - pad.top - pad.bottom);
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="100%" height="100%" fill="white"/>`);
  parts.push(`<text x="${pad.left}" y="18" font-size="14">Time of one audit against file size (log-log)</text>`);
  for (let e = ymin; e <= ymax; e++) {
    const yy = y(10 ** e);
    parts.push(
      `<line x1="${pad.left}" x2="${width - pad.right}" y1="${yy}" y2="${yy}" stroke="#ddd"/><text x="${pad.left - 8}" y="${yy + 4}" text-anchor="end">${10 ** e >= 1 ? 10 ** e : (10 ** e).toFixed(-e)} ms</text>`,
    );
  }
  SIZES.forEach((s) => {
    const xx = x(data.bytes[s]);
    parts.push(
      `<line x1="${xx}" x2="${xx}" y1="${pad.top}" y2="${height - pad.bottom}" stroke="#eee"/><text x="${xx}" y="${height - pad.bottom + 16}" text-anchor="middle">${(data.bytes[s] / 1024 / 1024).toFixed(2)} MB</text><text x="${xx}" y="${height - pad.bottom + 30}" text-anchor="middle" fill="#666">${s.toLocaleString('en-US')} tools</text>`,
    );
  });
  series.forEach(([impl, color], i) => {
    const points = SIZES.map((s) => `${x(data.bytes[s]).toFixed(1)},${y(data.times[impl][s]).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points}"/>`);
    SIZES.forEach((s) => parts.push(`<circle cx="${x(data.bytes[s]).toFixed(1)}" cy="${y(data.times[impl][s]).toFixed(1)}" r="3" fill="${color}"/>`));
    parts.push(
      `<line x1="${width - pad.right + 15}" x2="${width - pad.right + 35}" y1="${pad.top + 10 + i * 20}" y2="${pad.top + 10 + i * 20}" stroke="${color}" stroke-width="2"/><text x="${width - pad.right + 40}" y="${pad.top + 14 + i * 20}">${impl === 'audit' ? 'audit (rule set)' : impl}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}

if (require.main === module) {
  void benchAudit((line) => process.stderr.write(line + '\n')).then(({ markdown }) => process.stdout.write(markdown + '\n'));
}
