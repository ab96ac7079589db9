// `cds admin`: console administrators. The first administrator of an organization is created
// here; the password is prompted for (or read from stdin), never taken as an argument.
import { createAdmin } from '../../domain/console/create-admin.ts';
import { listAdmins } from '../../domain/console/list-admins.ts';
import { generatePassword } from '../../domain/console/passwords.ts';
import { resetAdminPassword } from '../../domain/console/reset-admin-password.ts';
import { operatorActor } from '../../operator-actor.ts';
import { JSON_OPTION, ORG_OPTION, type Command } from '../command.ts';
import { organizationId } from '../organization-id.ts';
import { readNewPassword } from '../password-input.ts';
import { dateCell } from '../table.ts';
import { orgListCommand } from '../org-list-command.ts';

export const adminCommands: Command[] = [
  {
    group: 'admin',
    action: 'create',
    summary: 'create a console administrator',
    options: {
      org: ORG_OPTION,
      email: { type: 'string', value: 'EMAIL', required: true, help: 'the email address to sign in with' },
      json: JSON_OPTION,
    },
    notes:
      'The password (at least 12 characters) is asked for twice at a terminal, or read from the first\nline of stdin: printf \'%s\\n\' "$PW" | cds admin create …',
    async run({ system: ctx }, { values }, io) {
      const id = await organizationId(ctx, values.org as string);
      const password = await readNewPassword();
      const admin = await createAdmin({
        ctx: { ...ctx, actor: { ...operatorActor('cds admin create'), organizationId: id } },
        input: { email: values.email as string, password },
      });
      io.out(
        values.json
          ? JSON.stringify(admin)
          : `Created administrator ${admin.email} (${admin.id}) for organization ${admin.organizationId}.`,
      );
    },
  },
  orgListCommand(
    'admin',
    'list console administrators (no password hashes)',
    listAdmins,
    ['ID', 'EMAIL', 'CREATED', 'LAST SIGN-IN'],
    (a) => [a.id, a.email, dateCell(a.createdAt), dateCell(a.lastSignInAt)],
  ),
  {
    group: 'admin',
    action: 'reset-password',
    summary: "give a console administrator a new password (printed once) and end the administrator's sessions",
    options: {
      email: { type: 'string', value: 'EMAIL', required: true, help: "the administrator's email address" },
      json: JSON_OPTION,
    },
    notes:
      'The new password is made at random and printed only now; only its hash is stored. The old password\n' +
      'stops working and every console session of the administrator ends. Example:\n' +
      '  cds admin reset-password --email admin@demo.example',
    async run({ system: ctx }, { values }, io) {
      const password = generatePassword();
      const { admin, sessionsEnded } = await resetAdminPassword({
        ctx: { ...ctx, actor: operatorActor('cds admin reset-password') },
        input: { email: values.email as string, password },
      });
      if (values.json) io.out(JSON.stringify({ ...admin, password, sessionsEnded }));
      else
        io.out(
          [
            `New password for ${admin.email} (organization ${admin.organizationId}), shown only now:`,
            `  password=${password}`,
            `${sessionsEnded} console session${sessionsEnded === 1 ? '' : 's'} ended; sign in again with the new password.`,
          ].join('\n'),
        );
    },
  },
];
