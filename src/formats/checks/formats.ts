// The check-results formats the service reads (POST /v1/tests/results/imports): one line each. Each
// describes itself in its folder (src/formats/<tool>/format.ts: name, words, tool, reader); the
// route's prose and OpenAPI enum, the SDK's and the CLI's types (`npm run generate`) and the job
// worker's lookup (app.ts) follow this list. A new format is its folder and a line here
// (docs/development.md, "How to add a check-results format").
import type { CheckFormat } from '../../domain/tests/check-result.ts';
import { checkov } from '../checkov/format.ts';
import { inspec } from '../inspec/format.ts';
import { kubeBench } from '../kube-bench/format.ts';
import { ocsf } from '../ocsf/format.ts';
import { policyreport } from '../policyreport/format.ts';
import type { CheckFormatDescription } from './contract.ts';
import { namedRegistry } from '../registry.ts';

/** In the order the API lists them; one a line. */
// biome-ignore format: one format a line, so that a new one is a line of its own
const DESCRIPTIONS = [
  ocsf,
  policyreport,
  checkov,
  kubeBench,
  inspec,
] as const satisfies readonly CheckFormatDescription[];

export type CheckFormatName = (typeof DESCRIPTIONS)[number]['name'];

/** A format as the registry hands it out: its description, and its parser for the import. */
export type CheckFormatEntry = CheckFormatDescription<CheckFormatName> & CheckFormat;

export const CHECK_FORMAT_ENTRIES: readonly CheckFormatEntry[] = DESCRIPTIONS.map((d) => ({
  opensWith: '{',
  openingWords: 'must be a JSON object',
  ...d,
  parse: d.read,
}));
const REGISTRY = namedRegistry(CHECK_FORMAT_ENTRIES);

export const CHECK_FORMATS: readonly CheckFormatName[] = REGISTRY.names;

/** The format named `name`, if there is one. */
export const checkFormat = REGISTRY.find;

export const unknownCheckFormatIssue = REGISTRY.unknownIssue;

export const checkFormatNamesText = REGISTRY.namesText;
