// A generated SARIF log, as a code scanner writes it, for the benches that import scanner files
// (bench/vulnerability-import.ts, bench/noisy-neighbour.ts).
import fs from 'node:fs';

/**
 * A SARIF log of `count` results of a few rules across many files, as a code scanner writes it
 * (each result with GitHub's partial fingerprint, prefixed by `tag` so that files of one run can
 * report distinct findings), written to disk a chunk at a time.
 */
export async function writeSarif(file: string, count: number, tag = ''): Promise<number> {
  const out = fs.createWriteStream(file);
  const write = (text: string) => (out.write(text) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  const rules = Array.from({ length: 20 }, (_, i) => ({
    id: `bench/rule-${i}`,
    shortDescription: { text: `Bench rule ${i}: untrusted data reaches a sensitive sink` },
    fullDescription: { text: 'Data from an untrusted source flows to a sink without being checked.' },
    help: { text: 'Validate the data before it reaches the sink.' },
    defaultConfiguration: { level: i % 3 === 0 ? 'error' : 'warning' },
    properties: { 'security-severity': String(3 + (i % 7)) },
  }));
  await write(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"CodeQL","rules":${JSON.stringify(rules)}}},"results":[`);
  for (let i = 0; i < count; i++) {
    const result = {
      ruleId: `bench/rule-${i % 20}`,
      ruleIndex: i % 20,
      level: i % 3 === 0 ? 'error' : 'warning',
      message: { text: `Untrusted data from a request parameter reaches this call (result ${i}).` },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: `src/module-${Math.floor(i / 50)}/file-${i % 50}.ts` },
            region: { startLine: 10 + (i % 400), startColumn: 5, endColumn: 42 },
          },
        },
      ],
      partialFingerprints: { primaryLocationLineHash: `${tag}${i.toString(16).padStart(16, '0')}:1` },
    };
    await write(`${i > 0 ? ',' : ''}${JSON.stringify(result)}`);
  }
  await write(']}]}');
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return fs.statSync(file).size;
}
