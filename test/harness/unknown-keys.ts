// JSON bodies of many distinct unknown keys (`{"k0":0,"k1":0,…}`), the malformed requests of
// issue 28 item 6 (test/http/validation-cap.test.ts, test/process/malformed-flood.test.ts).

/** A JSON object of `count` distinct unknown keys. */
export function unknownKeys(count: number): string {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(`"k${i.toString(36)}":0`);
  return `{${parts.join(',')}}`;
}

/** As many distinct unknown keys as fit in `bytes` of JSON. */
export function unknownKeysFilling(bytes: number): { body: string; keys: number } {
  const parts: string[] = [];
  for (let size = 2; ; ) {
    const part = `"k${parts.length.toString(36)}":0`;
    if (size + part.length + 1 > bytes) break;
    parts.push(part);
    size += part.length + 1;
  }
  return { body: `{${parts.join(',')}}`, keys: parts.length };
}
