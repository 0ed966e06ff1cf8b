/**
 * `npm run bench`: every benchmark in one run, each beside its anchors, written to
 * bench/REPORT.md (and printed) with the machine it ran on, plus bench/audit-time.svg.
 * `npm run bench -- audit runtime` runs only the named sections.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, platform, release } from 'node:os';
import { join } from 'node:path';
import { benchAudit, plotAuditTimes } from './audit';
import { benchAuditCli } from './auditCli';
import { benchRuntime } from './runtime';
import { benchStore } from './store';

type Section = { name: string; run: () => Promise<string> };

/** In REPORT.md, what follows this line was measured by hand (not by a section here): a run keeps it as it is. */
const HAND_MEASURED = '<!-- Measured by hand, not by npm run bench: a run of it keeps what follows this line. -->';

async function loadServerBench(): Promise<(() => Promise<string>) | undefined> {
  try {
    const mod = (await import('./server')) as { benchServer?: () => Promise<string> };
    return mod.benchServer;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const started = new Date();
  let headline = '';
  const sections: Section[] = [
    {
      name: 'audit',
      run: async () => {
        const { markdown, data } = await benchAudit(log);
        writeFileSync(join(__dirname, 'audit-time.svg'), plotAuditTimes(data));
        const at10k = data.times.audit[10_000];
        headline = `At 10,000 tools (${(data.bytes[10_000] / 1024 / 1024).toFixed(1)} MB) one audit takes ${at10k.toFixed(1)} ms: ${(at10k / data.times['jsonc-parser visit'][10_000]).toFixed(2)}× jsonc-parser's bare \`visit\`, ${(data.times['vscode-json-languageservice'][10_000] / at10k).toFixed(1)}× faster than vscode-json-languageservice with the schema.`;
        return `${markdown}\n![Audit time against file size](audit-time.svg)\n`;
      },
    },
    { name: 'audit-cli', run: () => benchAuditCli(log) },
    { name: 'runtime', run: () => benchRuntime(log) },
    { name: 'browser', run: async () => (await import('./browser')).benchBrowser(log) },
    { name: 'store', run: () => benchStore(log) },
    { name: 'security', run: async () => (await import('./security')).benchSecurity(log) },
  ];
  const serverBench = await loadServerBench();
  if (serverBench) sections.push({ name: 'server', run: serverBench });
  sections.push({ name: 'project', run: () => import('./project').then((m) => m.benchProject(log)) });
  sections.push({ name: 'python', run: () => import('./python').then((m) => m.benchPython(log)) });

  const parts: string[] = [];
  for (const section of sections) {
    if (wanted.length && !wanted.includes(section.name)) continue;
    log(`bench: ${section.name}…`);
    const begin = Date.now();
    try {
      parts.push(await section.run());
    } catch (error) {
      parts.push(`## ${section.name}\n\nThis section failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
    log(`bench: ${section.name} took ${((Date.now() - begin) / 1000).toFixed(0)} s`);
  }
  const cpu = cpus();
  const report = `# Benchmark report

Made by \`npm run bench\` on ${started.toISOString()}: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 1024 ** 3).toFixed(0)} GiB,
${platform()} ${release()}, Node.js ${process.version}. Every figure comes from this one run; anchors ran beside
what they anchor, in the same process or on the same machine at the same time. Times are wall-clock medians
unless said otherwise, so a busy machine shows in them: compare the ratios, not the absolute numbers.

${headline ? `**Headline.** ${headline}\n` : ''}
${parts.join('\n')}`;
  const file = join(__dirname, 'REPORT.md');
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const kept = previous.includes(HAND_MEASURED) ? `\n${previous.slice(previous.indexOf(HAND_MEASURED))}` : '';
  writeFileSync(file, report + kept);
  process.stdout.write(report + '\n');
}

void main();
