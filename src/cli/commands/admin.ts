// `cds admin`: console administrators. The first administrator of an organization is created
// here; the password is prompted for (or read from stdin), never taken as an argument.
import { parseArgs } from 'node:util';
import type { BaseContext } from '../../domain/context.ts';
import { createAdmin } from '../../domain/console/create-admin.ts';
import { listAdmins } from '../../domain/console/list-admins.ts';
import { cliActor } from '../actor.ts';
import { UsageError, type CliIo } from '../main.ts';
import { readNewPassword } from '../password-input.ts';
import { table } from '../table.ts';

const date = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

export async function adminCommand(ctx: BaseContext, args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { org: { type: 'string' }, email: { type: 'string' }, json: { type: 'boolean' } },
    strict: true,
  });
  switch (sub) {
    case 'create': {
      if (!values.org || !values.email) throw new UsageError('admin create needs --org and --email.');
      const password = await readNewPassword();
      const admin = await createAdmin({ ctx: { ...ctx, actor: { ...cliActor('cds admin create'), organizationId: values.org } }, input: { email: values.email, password } });
      io.out(values.json ? JSON.stringify(admin) : `Created administrator ${admin.email} (${admin.id}) for organization ${admin.organizationId}.`);
      return 0;
    }
    case 'list': {
      if (!values.org) throw new UsageError('admin list needs --org.');
      const admins = await listAdmins({ ctx: { ...ctx, actor: { ...cliActor('cds admin list'), organizationId: values.org } } });
      if (values.json) io.out(JSON.stringify(admins));
      else io.out(table(['ID', 'EMAIL', 'CREATED', 'LAST SIGN-IN'], admins.map((a) => [a.id, a.email, date(a.createdAt), date(a.lastSignInAt)])));
      return 0;
    }
    default:
      throw new UsageError(`Unknown admin command "${sub ?? ''}".`);
  }
}
