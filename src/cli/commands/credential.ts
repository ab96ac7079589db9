import { parseArgs } from 'node:util';
import type { BaseContext } from '../../domain/context.ts';
import { createCredential } from '../../domain/auth/create-credential.ts';
import { listCredentials } from '../../domain/auth/list-credentials.ts';
import { revokeCredential } from '../../domain/auth/revoke-credential.ts';
import { UsageError, type CliIo } from '../main.ts';
import { table } from '../table.ts';
import { cliActor } from '../actor.ts';

const date = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

export async function credentialCommand(ctx: BaseContext, args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { org: { type: 'string' }, access: { type: 'string' }, name: { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  switch (sub) {
    case 'create': {
      if (!values.org || !values.access) throw new UsageError('credential create needs --org and --access.');
      const c = await createCredential({
        ctx: { ...ctx, actor: { ...cliActor('cds credential create'), organizationId: values.org } },
        input: { accessLevel: values.access, name: values.name },
      });
      if (values.json) {
        const { id, clientId, clientSecret, accessLevel, organizationId } = c;
        io.out(JSON.stringify({ id, clientId, clientSecret, accessLevel, organizationId }));
      } else {
        io.out(
          [
            `Created credential ${c.id} (${c.accessLevel}) for organization ${c.organizationId}`,
            `  client_id:     ${c.clientId}`,
            `  client_secret: ${c.clientSecret}`,
            'Store the secret now: it is shown only once.',
          ].join('\n'),
        );
      }
      return 0;
    }
    case 'list': {
      if (!values.org) throw new UsageError('credential list needs --org.');
      const list = await listCredentials({ ctx: { ...ctx, actor: { ...cliActor('cds credential list'), organizationId: values.org } } });
      if (values.json) io.out(JSON.stringify(list));
      else {
        io.out(
          table(
            ['ID', 'NAME', 'CLIENT ID', 'ACCESS', 'STATUS', 'CREATED', 'LAST USED'],
            list.map((c) => [c.id, c.name, c.clientId, c.accessLevel, c.status, date(c.createdAt), date(c.lastUsedAt)]),
          ),
        );
      }
      return 0;
    }
    case 'revoke': {
      const id = positionals[0];
      if (!id) throw new UsageError('credential revoke needs the credential ID.');
      const c = await revokeCredential({ ctx: { ...ctx, actor: cliActor('cds credential revoke') }, input: { credentialId: id } });
      io.out(values.json ? JSON.stringify(c) : `Credential ${c.id} revoked; its tokens stop working at once.`);
      return 0;
    }
    default:
      throw new UsageError(`Unknown credential command "${sub ?? ''}".`);
  }
}
