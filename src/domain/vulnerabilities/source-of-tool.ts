// Which of the spec's sources a tool is (docs/scanner-formats.md, "Source"). A tool that is none of
// them is `import`; `api` is never claimed by a file.
import type { ScannedSource } from './scanned-finding.ts';

const TOOLS: readonly (readonly [RegExp, ScannedSource])[] = [
  [/^(codeql|github|dependabot)\b/i, 'github'],
  [/^snyk/i, 'snyk'],
  [/^sonar(qube|cloud|lint)?\b/i, 'sonarcloud'],
  [/^qualys/i, 'qualys'],
  [/^(microsoft )?defender\b/i, 'defender'],
  [/^sentinel ?one\b/i, 'sentinelOne'],
  [/^aikido\b/i, 'aikido'],
  [/^(tenable|nessus)\b/i, 'tenable'],
  [/^(aws|amazon) (inspector|codeguru)\b/i, 'aws'],
];

export function sourceOfTool(name: string): ScannedSource {
  const trimmed = name.trim();
  return TOOLS.find(([pattern]) => pattern.test(trimmed))?.[1] ?? 'import';
}
