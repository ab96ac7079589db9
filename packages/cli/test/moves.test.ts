// The review and lifecycle moves through the CLI, run as a child process against the real service
// on each engine: evidence approve, request-revision and update (links, relevance), policies
// submit, approve, publish (a named version), request-review and update; a move the status does
// not allow exits 6 with the service's message naming the allowed moves; help and completion list
// the new commands.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { explain, type CliResult } from './support/cli.ts';
import { dialects, startCliService, type CliService } from './support/service.ts';
import { artifactFixtures } from '../../../test/harness/fixtures-artifacts.ts';

function ok(res: CliResult): string {
  assert.equal(res.code, 0, explain(res));
  return res.stdout;
}
const json = (res: CliResult) => JSON.parse(ok(res));

describe('compliance moves', { concurrency: dialects.length }, () => {
  for (const dialect of dialects) {
    describe(`on ${dialect}`, { concurrency: 1 }, () => {
      let s: CliService;
      let rw: (args: string[]) => Promise<CliResult>;
      let artifacts: ReturnType<typeof artifactFixtures>;
      before(async () => {
        s = await startCliService(dialect, { demo: false });
        rw = (args) => s.cli(args, { client: s.readWrite });
        artifacts = artifactFixtures(s.server.database.db, s.organizationId);
      });
      after(async () => {
        await s?.close();
      });

      it('evidence approve, then again (refused: exit 6 naming the allowed moves), then request-revision', async () => {
        const id = await artifacts.evidence({ name: 'Access review', status: 'pending_approval' });
        const approved = await rw(['evidence', 'approve', id, '-o', 'json']);
        assert.equal(json(approved).status, 'uploaded');
        assert.match(approved.stderr, new RegExp(`evidence ${id} is now uploaded`));

        const again = await rw(['evidence', 'approve', id, '-o', 'json']);
        assert.equal(again.code, 6, explain(again));
        assert.match(again.stderr, /from uploaded the allowed moves are: request_revision/);

        const noReason = await rw(['evidence', 'request-revision', id]);
        assert.equal(noReason.code, 2, explain(noReason));
        assert.match(noReason.stderr, /--reason is required/);

        const revised = json(await rw(['evidence', 'request-revision', id, '--reason', 'The export is from last year.', '-o', 'json']));
        assert.equal(revised.status, 'needs_revision');
        assert.equal(revised.rejectionReason, 'The export is from last year.');
        assert.ok(revised.revisionRequestedBy.email.endsWith('@credentials.invalid'));

        const readOnly = await s.cli(['evidence', 'approve', id]);
        assert.equal(readOnly.code, 5, explain(readOnly));
      });

      it('evidence update: links become attachments; relevance with a reason', async () => {
        const id = await artifacts.evidence({ name: 'Pen test', status: 'needs_revision' });
        const linked = json(
          await rw([
            'evidence',
            'update',
            id,
            '--link',
            'Pen test report=https://vendor.example.com/reports/2026',
            '--link',
            'Summary=https://wiki.example.com/pentest',
            '--link-note',
            'Signed',
            '--evidence-date',
            '2026-03-15',
            '-o',
            'json',
          ]),
        );
        assert.equal(linked.status, 'uploaded');
        const got = json(await s.cli(['evidence', 'get', id, '--fields', 'attachments', '-o', 'json']));
        assert.deepEqual(got.attachments.map((a: any) => [a.displayName, a.type, a.url, a.note, a.evidenceDate]).sort(), [
          ['Pen test report', 'link', 'https://vendor.example.com/reports/2026', 'Signed', Date.UTC(2026, 2, 15)],
          ['Summary', 'link', 'https://wiki.example.com/pentest', 'Signed', Date.UTC(2026, 2, 15)],
        ]);
        const bad = await rw(['evidence', 'update', id, '--link', 'nourl']);
        assert.equal(bad.code, 2, explain(bad));
        const unsafe = await rw(['evidence', 'update', id, '--link', 'x=https://user:pw@example.com/']);
        assert.equal(unsafe.code, 6, explain(unsafe));
        assert.match(unsafe.stderr, /links\[0\]\.url/);

        const notRelevant = json(await rw(['evidence', 'update', id, '--not-relevant', 'We have no office.', '-o', 'json']));
        assert.equal(notRelevant.isRelevant, false);
        assert.equal(notRelevant.notRelevantReason, 'We have no office.');
        const relevant = json(await rw(['evidence', 'update', id, '--relevant', '-o', 'json']));
        assert.equal(relevant.isRelevant, true);
        const nothing = await rw(['evidence', 'update', id]);
        assert.equal(nothing.code, 2, explain(nothing));
      });

      it('policies submit, approve, publish --version-name, request-review, update', async () => {
        const id = await artifacts.policy({ name: 'Access Control Policy', status: 'draft' });
        assert.equal(json(await rw(['policies', 'submit', id, '-o', 'json'])).status, 'draft_approved');
        const approve = await rw(['policies', 'approve', id]);
        assert.equal(approve.code, 6, explain(approve));
        assert.match(approve.stderr, /from draft_approved the allowed moves are: publish/);
        const published = json(await rw(['policies', 'publish', id, '--version-name', '3.0', '-o', 'json']));
        assert.equal(published.status, 'published');
        const got = json(await s.cli(['policies', 'get', id, '--fields', 'versionHistory', '-o', 'json']));
        assert.deepEqual(
          got.versionHistory.map((v: any) => v.versionName),
          ['3.0'],
        );
        assert.equal(json(await rw(['policies', 'request-review', id, '-o', 'json'])).status, 'needs_review');

        const updated = json(
          await rw([
            'policies',
            'update',
            id,
            '--next-review-date',
            '2027-01-31',
            '--document',
            'Policy (wiki)=https://wiki.example.com/access',
            '-o',
            'json',
          ]),
        );
        assert.equal(updated.nextReviewDate, Date.UTC(2027, 0, 31));
        const docs = json(await s.cli(['policies', 'get', id, '--fields', 'documents', '-o', 'json'])).documents;
        assert.deepEqual(
          docs.map((d: any) => [d.displayName, d.type, d.url]),
          [['Policy (wiki)', 'link', 'https://wiki.example.com/access']],
        );
        const cleared = json(await rw(['policies', 'update', id, '--next-review-date', 'none', '-o', 'json']));
        assert.equal(cleared.nextReviewDate, null);
      });

      it('help and completion list the moves', async () => {
        const help = ok(await s.cli(['policies', 'publish', '--help']));
        assert.match(help, /--version-name/);
        assert.match(help, /draft_approved/);
        const group = ok(await s.cli(['evidence', '--help']));
        for (const action of ['approve', 'request-revision', 'update']) assert.match(group, new RegExp(`evidence ${action}`));
        const bash = ok(await s.cli(['completion', 'bash']));
        assert.match(bash, /request-revision/);
        assert.match(bash, /submit approve publish request-review update/);
        assert.match(bash, /--not-relevant/);
      });
    });
  }
});
