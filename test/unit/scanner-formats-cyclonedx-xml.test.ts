// CycloneDX 1.4+ XML vulnerabilities and their VEX analysis → scanned findings
// (src/formats/cyclonedx-xml/), mapped as the JSON encoding is (src/formats/cyclonedx/bom.ts), as
// docs/scanner-formats.md documents it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, readScan, readsOrRefuses, scanError } from './scanner-formats-read.ts';

const xml = fixture('cyclonedx-vex.xml');
const json = fixture('cyclonedx-vex.json');

/** A BOM of `version` whose one vulnerability affects one component. */
const small = (version: string, root = 'bom', prefix = '') => {
  const p = prefix ? `${prefix}:` : '';
  const ns = prefix ? `xmlns:${prefix}` : 'xmlns';
  return `<?xml version="1.0"?>
<${p}${root} ${ns}="http://cyclonedx.org/schema/bom/${version}" version="1">
  <${p}components>
    <${p}component type="library" bom-ref="c1"><${p}name>left-pad</${p}name><${p}version>1.3.0</${p}version><${p}purl>pkg:npm/left-pad@1.3.0</${p}purl></${p}component>
  </${p}components>
  <${p}vulnerabilities>
    <${p}vulnerability><${p}id>CVE-2024-0001</${p}id><${p}ratings><${p}rating><${p}score>9.1</${p}score><${p}method>CVSSv31</${p}method></${p}rating></${p}ratings>
      <${p}affects><${p}target><${p}ref>c1</${p}ref></${p}target></${p}affects></${p}vulnerability>
  </${p}vulnerabilities>
</${p}${root}>`;
};

describe('CycloneDX XML vulnerabilities', () => {
  test('the same BOM as the JSON sample gives the same findings, places included', async () => {
    const fromXml = await readScan('cyclonedx-xml', xml, 64);
    const fromJson = await readScan('cyclonedx', json, 64);
    assert.deepEqual(fromXml.findings, fromJson.findings);
    assert.deepEqual(fromXml.summary, { ...fromJson.summary, format: 'cyclonedx-xml' });
    assert.deepEqual(fromXml.summary, { format: 'cyclonedx-xml', tool: 'CycloneDX', scope: 'shop-api@1.4.2', findings: 4, skipped: 0 });
  });

  test('each vulnerability and affected component is a finding; refs resolve to components, nested ones too', async () => {
    const [lodash, qs, fixedLodash, fixedQs] = (await readScan('cyclonedx-xml', xml, 64)).findings;
    assert.equal(lodash?.title, 'CVE-2021-23337 in lodash');
    assert.equal(lodash?.severity, 'high');
    assert.equal(lodash?.cvssScore, 7.2, 'the highest CVSS v3 rating');
    assert.equal(lodash?.fixAvailable, 'yes', 'the analysis response “update”');
    assert.equal(lodash?.remediation, 'Upgrade lodash to 4.17.21.');
    assert.deepEqual(lodash?.affectedResources, [{ name: 'lodash@4.17.20', type: 'package', tags: ['npm'] }]);
    assert.deepEqual(qs?.affectedResources, [{ name: 'qs@6.5.2', type: 'package', tags: ['npm'] }]);
    assert.notEqual(fixedLodash?.key, fixedQs?.key, 'one vulnerability in two components is two findings');
  });

  test('analysis states: not_affected → ignored with the justification; resolved → closed; exploitable → open', async () => {
    const [lodash, qs, fixedLodash] = (await readScan('cyclonedx-xml', xml)).findings;
    assert.deepEqual(lodash?.verdict, { status: 'open' });
    assert.deepEqual(qs?.verdict, {
      status: 'ignored',
      justification: 'not_affected (code_not_reachable: The parser is only used with trusted input.)',
    });
    assert.deepEqual(fixedLodash?.verdict, { status: 'closed', justification: 'resolved (Patched in our fork)' });
  });

  test('1.4, 1.5 and 1.6 namespaces, with or without a prefix, read alike; before 1.4 is refused', async () => {
    const keys = async (text: string) => (await readScan('cyclonedx-xml', text)).findings.map((f) => [f.key, f.severity, f.cvssScore]);
    const expected = await keys(small('1.5'));
    assert.equal(expected.length, 1);
    for (const version of ['1.4', '1.6']) assert.deepEqual(await keys(small(version)), expected, version);
    assert.deepEqual(await keys(small('1.6', 'bom', 'cdx')), expected, 'a prefixed namespace');
    const old = await scanError('cyclonedx-xml', small('1.3'));
    assert.match(
      old.message,
      /^expected 1\.4 or later: vulnerabilities are read from CycloneDX 1\.4 on, found “1\.3” \(line 2, column 1\)$/,
    );
    const other = await scanError('cyclonedx-xml', small('1.5').replace('http://cyclonedx.org/schema/bom/1.5', 'urn:example'));
    assert.match(other.message, /namespace http:\/\/cyclonedx\.org\/schema\/bom\/1\.x, found “urn:example”/);
    const root = await scanError('cyclonedx-xml', small('1.5', 'sbom'));
    assert.match(root.message, /whose root element is <bom>; found <sbom>/);
  });

  test('extensions of other namespaces and attributes on text are left out', async () => {
    const extended = xml
      .replace('<bom xmlns=', '<bom xmlns:x="urn:example:ext" x:note="n" xmlns=')
      .replace('<name>lodash</name>', '<name x:lang="en">lodash</name><x:extra><x:name>not-lodash</x:name></x:extra>');
    assert.deepEqual((await readScan('cyclonedx-xml', extended)).findings, (await readScan('cyclonedx-xml', xml)).findings);
  });

  test('malformed XML is refused naming the line and column', async () => {
    const broken = '<?xml version="1.0"?>\n<bom xmlns="http://cyclonedx.org/schema/bom/1.5">\n  <components>\n  </vulnerabilities>\n</bom>';
    const error = await scanError('cyclonedx-xml', broken);
    assert.equal(error.field, '');
    assert.match(error.message, /^expected well-formed XML: .*\(line 4, column \d+\)$/);
    assert.equal((error as { line?: number }).line, 4);
    assert.equal(typeof (error as { column?: number }).column, 'number');
    const cut = await scanError('cyclonedx-xml', xml.slice(0, 600));
    assert.match(cut.message, /^expected well-formed XML/);
    const two = await scanError('cyclonedx-xml', `${small('1.5')}\n<bom/>`);
    assert.match(two.message, /^expected (one root element|well-formed XML)/);
    const deep = await scanError(
      'cyclonedx-xml',
      small('1.5').replace('<name>left-pad</name>', `${'<x>'.repeat(100)}${'</x>'.repeat(100)}`),
    );
    assert.match(deep.message, /^expected at most 64 levels of nesting/);
    assert.match((await scanError('cyclonedx-xml', '')).message, /found an empty file/);
    assert.match((await scanError('cyclonedx-xml', [Buffer.from([0x3c, 0x62, 0xff, 0xfe])])).message, /not UTF-8/);
  });

  test('a DOCTYPE is refused outright, before any entity is read', async () => {
    const entities = xml.replace(
      '<bom xmlns=',
      '<!DOCTYPE bom [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY a "aaaaaaaaaa">]>\n<bom xmlns=',
    );
    const error = await scanError('cyclonedx-xml', entities);
    assert.match(error.message, /^expected no DOCTYPE: .*no entity is declared, expanded or fetched \(line 3, column 1\)$/);
    assert.equal(error.yielded, 0);
    const lower = await scanError('cyclonedx-xml', `<!doctype bom>\n${small('1.5')}`);
    assert.match(lower.message, /^expected no DOCTYPE/);
  });

  test('a JSON file sent as cyclonedx-xml is refused naming the format it looks like', async () => {
    const asXml = await scanError('cyclonedx-xml', json);
    assert.deepEqual(asXml, {
      field: '/bomFormat',
      message:
        'expected a CycloneDX XML BOM (1.4 or later), but the file has “bomFormat”, so it looks like a CycloneDX BOM (1.4 or later): send it with format cyclonedx',
      yielded: 0,
    });
    assert.match(
      (await scanError('cyclonedx-xml', '{"unknown":1}')).message,
      /the file is JSON: a CycloneDX JSON BOM is sent with format cyclonedx/,
    );
    assert.match((await scanError('cyclonedx-xml', fixture('trivy-image.json'))).message, /send it with format trivy$/);
    const asJson = await scanError('cyclonedx', xml);
    assert.match(asJson.message, /^expected JSON, but the file starts with “<” \(XML\?\)/);
  });

  test('bad vulnerabilities name the place as the JSON encoding’s pointer', async () => {
    const noId = small('1.5').replace('<id>CVE-2024-0001</id>', '');
    assert.deepEqual(await scanError('cyclonedx-xml', noId), {
      field: '/vulnerabilities/0/id',
      message: 'expected the vulnerability’s ID',
      yielded: 0,
    });
  });

  test('arbitrary bytes are read or refused with validation_failed, never anything else', async () => {
    const pieces = [
      '<',
      '>',
      '</',
      '/>',
      '<?xml version="1.0"?>',
      '<!DOCTYPE x>',
      '<!--',
      '-->',
      '<![CDATA[',
      ']]>',
      '&amp;',
      '&#x1F600;',
      '&',
      '"',
      '=',
      'bom',
      'xmlns="http://cyclonedx.org/schema/bom/1.5"',
      'vulnerability',
      'component',
      'id',
      '{',
      '}',
      '__proto__',
      'constructor',
      ' ',
      '\n',
    ];
    await readsOrRefuses('cyclonedx-xml', pieces, 60, 400);
  });
});
