// CycloneDX 1.4+ (JSON) vulnerabilities with their VEX analysis → scanned findings: one per
// vulnerability and affected component (`affects[].ref` → `components[]` by bom-ref). Mapping:
// docs/scanner-formats.md ("CycloneDX"). How each part maps is ./bom.ts (the XML encoding's reader
// shares it); this file streams the parts to it.
import type { ScanSummary } from '../../domain/vulnerabilities/scanned-finding.ts';
import { Held, MAX_HELD } from '../scanners/held.ts';
import { streamJson, walkInto, type PathPart, type Plan, type ValueKind } from '../scanners/json-stream.ts';
import type { FormatReader } from '../scanners/contract.ts';
import { isObject } from '../scanners/read.ts';
import { BomMapping } from './bom.ts';

// Of a component only these are kept (its nested components too); the rest is dropped while read.
const COMPONENT_KEPT = new Set(['bom-ref', 'name', 'version', 'purl', 'group', 'type', 'components']);
const VULNERABILITY_PRUNED = new Set(['proofOfConcept', 'evidence', 'tools', 'properties', 'credits']);

/** Reads a CycloneDX 1.4+ JSON BOM; yields its vulnerabilities' findings. */
export const parseCycloneDx: FormatReader = async function* (chunks, file, watch) {
  const summary: ScanSummary = { format: 'cyclonedx', tool: 'CycloneDX', findings: 0, skipped: 0 };
  watch?.(summary);
  const bom = new BomMapping(summary);
  let bomFormat: unknown;
  let componentsDone = false;
  let inComponents = false;
  const held = new Held<{ value: unknown; path: PathPart[] }>(
    MAX_HELD,
    `expected the components before the vulnerabilities that name them: more than ${MAX_HELD} vulnerabilities come first`,
  );
  const plan = (path: readonly PathPart[], kind: ValueKind): Plan => {
    const [top] = path;
    const start = file.plan(path, kind);
    if (start) return start;
    if (path.length === 1) {
      if (inComponents) componentsDone = true;
      inComponents = top === 'components';
      if (top === 'bomFormat' || top === 'specVersion' || top === 'metadata') return 'emit';
      if (top !== 'components' && top !== 'vulnerabilities') return 'skip';
      return walkInto(path, kind, 'array', `the ${top} (a list)`);
    }
    return path.length === 2 && (top === 'components' || top === 'vulnerabilities') ? 'emit' : 'skip';
  };
  const prune = (path: readonly PathPart[]) => {
    const last = path[path.length - 1];
    if (typeof last !== 'string') return false;
    if (path[0] === 'components') return !COMPONENT_KEPT.has(last);
    if (path[0] === 'vulnerabilities') return VULNERABILITY_PRUNED.has(last);
    return path[0] === 'metadata' && path.length === 2 && last !== 'component';
  };
  for await (const { path, value } of streamJson(chunks, { plan, prune })) {
    const [top] = path;
    if (top === 'bomFormat') {
      bomFormat = value;
      bom.bomFormat(value, path);
    } else if (top === 'specVersion') bom.specVersion(value, path);
    else if (top === 'metadata') bom.metadata(value, path);
    else if (top === 'components') bom.component(value, path);
    else {
      // A reference not known yet may name a component further down: held until the end, bounded.
      const refs = isObject(value) && Array.isArray(value.affects) ? value.affects : [];
      const unresolved = refs.some((a) => isObject(a) && typeof a.ref === 'string' && !bom.components.has(a.ref));
      if (unresolved && !componentsDone) held.hold({ value, path }, path);
      else yield* bom.vulnerability(value, path);
    }
  }
  for (const h of held.take()) yield* bom.vulnerability(h.value, h.path);
  if (bomFormat === undefined) throw file.missing('bomFormat');
  return summary;
};
