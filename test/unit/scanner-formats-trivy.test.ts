// Trivy JSON → scanned findings (src/formats/trivy/parse.ts), as docs/scanner-formats.md documents
// it, on a report written here in Trivy's SchemaVersion 2 shape.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { byKey, fixture, readScan, readsOrRefuses, scanError } from './scanner-formats-read.ts';

const report = fixture('trivy-image.json');

describe('Trivy JSON', () => {
  test('vulnerabilities map as documented: one finding per advisory and package, the artifact as scope', async () => {
    const { findings, summary } = await readScan('trivy', report, 53);
    assert.deepEqual(summary, { format: 'trivy', tool: 'Trivy', scope: 'registry.example.com/shop/api:1.4.2', findings: 7, skipped: 1 });
    const [crypto, ssl] = findings;
    assert.equal(crypto?.title, 'CVE-2024-0727 in libcrypto3: openssl: denial of service via null dereference');
    assert.equal(crypto?.cveId, 'CVE-2024-0727');
    assert.equal(crypto?.severity, 'medium');
    assert.equal(crypto?.cvssScore, 5.5);
    assert.equal(crypto?.fixAvailable, 'yes');
    assert.equal(crypto?.remediation, 'Upgrade libcrypto3 from 3.1.4-r2 to 3.1.4-r5.\n\nSee https://avd.example.com/nvd/cve-2024-0727');
    assert.equal(crypto?.description, 'Processing a maliciously formatted PKCS12 file may lead OpenSSL to crash.');
    assert.deepEqual(crypto?.affectedResources, [{ name: 'libcrypto3@3.1.4-r2', type: 'package', tags: ['alpine'] }]);
    assert.equal(crypto?.source, 'import');
    assert.equal(crypto?.at, '/Results/0/Vulnerabilities/0');
    assert.notEqual(crypto?.key, ssl?.key, 'the same CVE in two packages of one image is two findings');
    assert.match(crypto?.key ?? '', /^CVE-2024-0727~libcrypto3~[A-Za-z0-9_-]{16}$/);
  });

  test('a language package names its lock file; unknown severity without a score is medium', async () => {
    const found = (await readScan('trivy', report)).findings;
    const braces = found.find((f) => f.title.startsWith('GHSA-grv7-fg5c-xmjg'));
    assert.deepEqual(braces?.affectedResources, [
      { name: 'braces@3.0.2', type: 'package', tags: ['npm'] },
      { name: 'app/package-lock.json', type: 'file', tags: [] },
    ]);
    assert.equal(braces?.cveId, '');
    assert.equal(braces?.fixAvailable, 'no');
    const busybox = found.find((f) => f.title.startsWith('CVE-2023-9999'));
    assert.equal(busybox?.severity, 'medium');
  });

  test('verdicts: vendor not_affected and VEX-suppressed findings are ignored with the reason; EXCEPTION too; PASS is skipped', async () => {
    const found = (await readScan('trivy', report)).findings;
    const verdicts = Object.fromEntries(found.map((f) => [f.title.split(':')[0], f.verdict]));
    assert.deepEqual(verdicts['CVE-2023-9999 in busybox'], {
      status: 'ignored',
      justification: 'The vendor states this package is not affected (Trivy status “not_affected”).',
    });
    assert.deepEqual(verdicts['CVE-2024-4068 in micromatch'], {
      status: 'ignored',
      justification: 'vulnerable_code_not_in_execute_path (vex/shop-api.openvex.json)',
    });
    assert.deepEqual(verdicts['AVD-AWS-0089'], {
      status: 'ignored',
      justification: 'Trivy reports an exception for this check (an ignore rule or a policy exception).',
    });
    assert.equal(verdicts['AVD-AWS-0086']?.status, 'open');
    // a .trivyignore entry is Trivy's own `ignored`; a VEX `fixed` closes
    const doc = JSON.parse(report);
    const finding = { VulnerabilityID: 'CVE-2024-2', PkgName: 'p', InstalledVersion: '1', Severity: 'LOW' };
    doc.Results[1].ModifiedFindings = [
      {
        Type: 'vulnerability',
        Status: 'ignored',
        Statement: 'Accepted until the next base image',
        Source: '.trivyignore',
        Finding: finding,
      },
      { Type: 'vulnerability', Status: 'fixed', Source: 'vex.json', Finding: { ...finding, PkgName: 'q' } },
    ];
    const modified = (await readScan('trivy', JSON.stringify(doc))).findings.filter((f) => f.title.startsWith('CVE-2024-2 '));
    assert.deepEqual(
      modified.map((f) => f.verdict),
      [
        { status: 'ignored', justification: 'Accepted until the next base image (.trivyignore)' },
        { status: 'closed', justification: 'Marked fixed by vex.json.' },
      ],
    );
    assert.equal(verdicts['AVD-AWS-0088'], undefined, 'a passed check is not a finding');
  });

  test('a misconfiguration maps its check, message, resolution and resource', async () => {
    const found = (await readScan('trivy', report)).findings;
    const s3 = found.find((f) => f.title.startsWith('AVD-AWS-0086'));
    assert.equal(s3?.title, 'AVD-AWS-0086: S3 Access block should block public ACL');
    assert.equal(s3?.severity, 'high');
    assert.equal(s3?.description?.split('\n')[0], 'No public access block so not blocking public acls');
    assert.ok(s3?.remediation?.startsWith('Enable blocking any PUT calls'));
    assert.deepEqual(s3?.affectedResources, [
      { name: 'deploy/main.tf', type: 'file', tags: [] },
      { name: 'aws_s3_bucket.logs', type: 'resource', tags: [] },
    ]);
  });

  test('a later scan of the same image gives the same keys; the same check on two resources gives two', async () => {
    const first = byKey((await readScan('trivy', report)).findings);
    const again = byKey((await readScan('trivy', report, 1)).findings);
    assert.deepEqual([...first.keys()], [...again.keys()]);
    const twoBuckets = report.replace(
      '"Resource": "aws_s3_bucket.logs", "StartLine": 12, "EndLine": 20 }',
      '"Resource": "aws_s3_bucket.data", "StartLine": 12, "EndLine": 20 }',
    );
    const doc = JSON.parse(twoBuckets);
    doc.Results[2].Misconfigurations[2] = {
      ...doc.Results[2].Misconfigurations[0],
      CauseMetadata: { Resource: 'aws_s3_bucket.data', StartLine: 30 },
    };
    const keys = (await readScan('trivy', JSON.stringify(doc))).findings
      .filter((f) => f.title.startsWith('AVD-AWS-0086'))
      .map((f) => f.key);
    assert.equal(new Set(keys).size, 2);
  });

  test('findings written before their Target are held and given the Target', async () => {
    const doc = {
      SchemaVersion: 2,
      Results: [
        {
          Vulnerabilities: [{ VulnerabilityID: 'CVE-2024-1', PkgName: 'a', InstalledVersion: '1' }],
          Target: 'go.sum',
          Class: 'lang-pkgs',
          Type: 'gomod',
        },
      ],
    };
    const [f] = (await readScan('trivy', JSON.stringify(doc))).findings;
    assert.deepEqual(
      f?.affectedResources.map((r) => r.name),
      ['a@1', 'go.sum'],
    );
  });

  test('a Kubernetes report (trivy k8s): each resource’s results, the resource and the package named, the cluster as scope', async () => {
    const { findings, summary } = await readScan('trivy', fixture('trivy-k8s.json'), 61);
    assert.deepEqual(summary, { format: 'trivy', tool: 'Trivy', scope: 'prod-eu', findings: 5, skipped: 1 });
    const crypto = findings[0];
    assert.equal(crypto?.at, '/Resources/0/Results/0/Vulnerabilities/0');
    assert.equal(crypto?.cveId, 'CVE-2024-0727');
    assert.equal(crypto?.fixAvailable, 'yes');
    assert.deepEqual(crypto?.affectedResources, [
      { name: 'libcrypto3@3.1.4-r2', type: 'package', tags: ['alpine'] },
      { name: 'shop/Deployment/web', type: 'kubernetes', tags: [] },
      { name: 'registry.example.com/shop/web:2.1.0 (alpine 3.19.1)', type: 'container_image', tags: [] },
    ]);
    const go = findings.find((f) => f.cveId === 'CVE-2023-45288');
    assert.deepEqual(
      go?.affectedResources.map((r) => [r.type, r.name]),
      [
        ['package', 'golang.org/x/net@v0.17.0'],
        ['kubernetes', 'shop/Deployment/web'],
        ['file', 'usr/local/bin/web'],
      ],
    );
    const check = findings.find((f) => f.title.startsWith('KSV001'));
    assert.equal(check?.title, 'KSV001: Can elevate its own privileges');
    assert.deepEqual(check?.affectedResources, [{ name: 'shop/Deployment/web', type: 'kubernetes', tags: [] }]);
    // libssl3 in two workloads: two findings, each fixed by its own image
    const ssl = findings.filter((f) => f.title.startsWith('CVE-2024-0727 in libssl3'));
    assert.equal(ssl.length, 2);
    assert.notEqual(ssl[0]?.key, ssl[1]?.key);
    assert.deepEqual(
      ssl.map((f) => f.affectedResources.find((r) => r.type === 'kubernetes')?.name),
      ['shop/Deployment/web', 'kube-system/Pod/coredns-5d78c9869d-x7k2p'],
    );
    // the same resource's image report and its manifest's checks, the same workload anywhere in the file
    const image = await readScan('trivy', fixture('trivy-image.json'));
    assert.ok(!image.findings.some((f) => findings.some((k) => k.key === f.key)), 'a cluster’s findings are its workloads’');
  });

  test('the older Kubernetes report (Vulnerabilities and Misconfigurations lists of resources) and --report summary (Findings)', async () => {
    const older = await readScan('trivy', fixture('trivy-k8s-legacy.json'), 13);
    assert.equal(older.summary.scope, 'prod-eu');
    assert.deepEqual(
      older.findings.map((f) => [f.at, f.title.split(':')[0], f.affectedResources.find((r) => r.type === 'kubernetes')?.name]),
      [
        ['/Vulnerabilities/0/Results/0/Vulnerabilities/0', 'CVE-2024-0727 in libcrypto3', 'shop/Deployment/web'],
        ['/Vulnerabilities/0/Results/0/Vulnerabilities/1', 'CVE-2024-0727 in libssl3', 'shop/Deployment/web'],
        ['/Vulnerabilities/1/Results/0/Vulnerabilities/0', 'CVE-2024-0727 in libssl3', 'kube-system/Pod/coredns-5d78c9869d-x7k2p'],
        ['/Misconfigurations/0/Results/0/Misconfigurations/0', 'KSV001', 'shop/Deployment/web'],
      ],
    );
    const current = await readScan('trivy', fixture('trivy-k8s.json'));
    const check = (r: typeof older) => r.findings.find((f) => f.title.startsWith('KSV001'))?.key;
    assert.equal(check(older), check(current), 'a check on a resource keeps its key across the two shapes');
    const doc = JSON.parse(fixture('trivy-k8s.json'));
    const summary = await readScan('trivy', JSON.stringify({ ClusterName: doc.ClusterName, Findings: doc.Resources }));
    assert.deepEqual(
      summary.findings,
      current.findings.map((f) => ({ ...f, at: f.at.replace(/^\/Resources/, '/Findings') })),
    );
  });

  test('a resource’s name written after its results: its findings are held until it comes', async () => {
    const doc = {
      ClusterName: 'c',
      Resources: [
        { Results: [{ Target: 'Deployment/a', Misconfigurations: [{ ID: 'KSV001', Status: 'FAIL' }] }], Kind: 'Deployment', Name: 'a' },
        { Kind: 'Deployment', Name: 'b', Results: [{ Target: 'Deployment/b', Misconfigurations: [{ ID: 'KSV001', Status: 'FAIL' }] }] },
      ],
    };
    const found = (await readScan('trivy', JSON.stringify(doc))).findings;
    assert.deepEqual(
      found.map((f) => f.affectedResources[0]?.name),
      ['Deployment/a', 'Deployment/b'],
    );
  });

  test('a report of Trivy before 0.20 (a list of results) is read as a report without a scope', async () => {
    const old = [
      {
        Target: 'alpine:3.10 (alpine 3.10.2)',
        Type: 'alpine',
        Vulnerabilities: [
          {
            VulnerabilityID: 'CVE-2019-1549',
            PkgName: 'libssl1.1',
            InstalledVersion: '1.1.1c-r0',
            FixedVersion: '1.1.1d-r0',
            Title: 'openssl: information disclosure in fork()',
            Severity: 'MEDIUM',
            Layer: { DiffID: 'sha256:03901b4a2ea88eeaad62dbe59b072b28b6efa00491962b8741081c5df50c65e0' },
          },
        ],
      },
      { Target: 'app/Gemfile.lock', Type: 'bundler', Vulnerabilities: null },
    ];
    const { findings, summary } = await readScan('trivy', JSON.stringify(old, null, 2), 5);
    assert.deepEqual(summary, { format: 'trivy', tool: 'Trivy', findings: 1, skipped: 0 });
    assert.equal(findings[0]?.at, '/0/Vulnerabilities/0');
    assert.equal(findings[0]?.cveId, 'CVE-2019-1549');
    assert.deepEqual(findings[0]?.affectedResources.slice(0, 1), [{ name: 'libssl1.1@1.1.1c-r0', type: 'package', tags: ['alpine'] }]);
    assert.deepEqual(await readScan('trivy', '[]'), { findings: [], summary: { format: 'trivy', tool: 'Trivy', findings: 0, skipped: 0 } });
    assert.deepEqual(await scanError('trivy', '[{"Target":"x","Vulnerabilities":{}}]'), {
      field: '/0/Vulnerabilities',
      message: 'expected a list',
      yielded: 0,
    });
    assert.equal((await scanError('trivy', '[1]')).field, '/0');
  });

  test('licenses and secrets are not findings: left out, each kind counted in a warning', async () => {
    const { findings, summary } = await readScan('trivy', fixture('trivy-alpine.json'), 11);
    assert.equal(findings.length, 4, 'the four vulnerabilities only');
    assert.deepEqual(summary.warnings, [
      {
        at: '/Results/1/Licenses/0',
        count: 3,
        message: 'Trivy’s license findings (Results[].Licenses) are not vulnerabilities and are not imported: see them in Trivy',
      },
      {
        at: '/Results/2/Secrets/0',
        count: 1,
        message: 'Trivy’s secret findings (Results[].Secrets) are not vulnerabilities and are not imported: see them in Trivy',
      },
    ]);
    const k8s = JSON.parse(fixture('trivy-k8s.json'));
    k8s.Resources[0].Results.push({ Target: 'OS Packages', Class: 'license', Licenses: [{ PkgName: 'musl', Name: 'MIT' }] });
    assert.equal((await readScan('trivy', JSON.stringify(k8s))).summary.warnings?.[0]?.at, '/Resources/0/Results/2/Licenses/0');
    assert.equal((await readScan('trivy', fixture('trivy-image.json'))).summary.warnings, undefined, 'nothing left out, nothing said');
  });

  test('Trivy’s modified findings as it names them (ExperimentalModifiedFindings) are read', async () => {
    const doc = JSON.parse(report);
    doc.Results[1].ExperimentalModifiedFindings = doc.Results[1].ModifiedFindings;
    delete doc.Results[1].ModifiedFindings;
    const found = (await readScan('trivy', JSON.stringify(doc))).findings.find((f) => f.title.startsWith('CVE-2024-4068 in micromatch'));
    assert.deepEqual(found?.verdict, {
      status: 'ignored',
      justification: 'vulnerable_code_not_in_execute_path (vex/shop-api.openvex.json)',
    });
  });

  test('bad and wrong files name the place', async () => {
    assert.deepEqual(await scanError('trivy', '{"ClusterName":"c","Resources":{}}'), {
      field: '/Resources',
      message: 'expected the Kubernetes resources (a list)',
      yielded: 0,
    });
    assert.equal((await scanError('trivy', '{"ClusterName":"c","Resources":[{"Kind":7}]}')).field, '/Resources/0/Kind');
    const noId = report.replace('"VulnerabilityID": "CVE-2024-0727",\n          "PkgID": "libssl3', '"PkgID": "libssl3');
    const error = await scanError('trivy', noId);
    assert.deepEqual(error, {
      field: '/Results/0/Vulnerabilities/1/VulnerabilityID',
      message: 'expected the vulnerability’s ID',
      yielded: 1,
    });
    assert.equal((await scanError('trivy', '{"SchemaVersion":1,"Results":[]}')).field, '/SchemaVersion');
    assert.equal((await scanError('trivy', '{"Results":[]}')).field, '/SchemaVersion');
  });

  test('arbitrary files in the three shapes are read or refused with validation_failed, never anything else', async () => {
    const pieces = [
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      'null',
      '2',
      '"x"',
      '"SchemaVersion"',
      '"ClusterName"',
      '"Resources"',
      '"Findings"',
      '"Vulnerabilities"',
      '"Misconfigurations"',
      '"Results"',
      '"Target"',
      '"Kind"',
      '"Name"',
      '"Namespace"',
      '"VulnerabilityID"',
      '"PkgName"',
      '"ID"',
      '"Status"',
      '"Licenses"',
      '"__proto__"',
      // whole parts of the three shapes, so that the pieces reach the findings
      '{"ClusterName":"c","Resources":[',
      '{"ClusterName":"c","Vulnerabilities":[',
      '{"SchemaVersion":2,"Results":[',
      '{"Namespace":"n","Kind":"Pod","Name":"p","Results":[',
      '{"Target":"t","Class":"os-pkgs","Type":"alpine","Vulnerabilities":[',
      '{"VulnerabilityID":"CVE-2024-1","PkgName":"a","InstalledVersion":"1"}',
      '{"ID":"KSV001","Status":"FAIL"}',
      '"Licenses":[{"Name":"MIT"}]',
      ']}',
      ']}]}',
    ];
    await readsOrRefuses('trivy', pieces, 80, 1000);
  });
});
