// `cds credential`: API credentials (client ID and secret) of an organization.
import { createCredential } from '../../domain/auth/create-credential.ts';
import { listCredentials } from '../../domain/auth/list-credentials.ts';
import { revokeCredential } from '../../domain/auth/revoke-credential.ts';
import { operatorActor } from '../../operator-actor.ts';
import { JSON_OPTION, ORG_OPTION, type Command } from '../command.ts';
import { operatorContext } from '../organization-id.ts';
import { dateCell } from '../table.ts';
import { orgListCommand } from '../org-list-command.ts';

export const credentialCommands: Command[] = [
  {
    group: 'credential',
    action: 'create',
    summary: 'create an API credential (its secret shown once)',
    options: {
      org: ORG_OPTION,
      access: { type: 'string', value: 'read_only|read_write', required: true, help: 'Read Only, or Read & Write' },
      name: { type: 'string', value: 'NAME', help: 'a name to tell it apart' },
      json: { type: 'boolean', help: 'print {"id","clientId","clientSecret","accessLevel","organizationId"}' },
    },
    async run({ system: ctx }, { values }, io) {
      const c = await createCredential({
        ctx: await operatorContext(ctx, values.org as string, 'cds credential create'),
        input: { accessLevel: values.access as string, name: values.name as string | undefined },
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
    },
  },
  orgListCommand(
    'credential',
    'list credentials (never their secrets)',
    listCredentials,
    ['ID', 'NAME', 'CLIENT ID', 'ACCESS', 'STATUS', 'CREATED', 'LAST USED'],
    (c) => [c.id, c.name, c.clientId, c.accessLevel, c.status, dateCell(c.createdAt), dateCell(c.lastUsedAt)],
  ),
  {
    group: 'credential',
    action: 'revoke',
    summary: 'revoke a credential; its tokens stop at once',
    argument: 'ID',
    options: { json: JSON_OPTION },
    async run({ system: ctx }, { values, argument }, io) {
      const c = await revokeCredential({
        ctx: { ...ctx, actor: operatorActor('cds credential revoke') },
        input: { credentialId: argument! },
      });
      io.out(values.json ? JSON.stringify(c) : `Credential ${c.id} revoked; its tokens stop working at once.`);
    },
  },
];
