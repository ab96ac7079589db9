// `cds demo` and the first start of an empty embedded database: a demo organization with its
// data, one credential of each access level and a console administrator. The data is generated
// at the context's clock (or `asOf`), so its periods and review dates are those of the moment it
// is made and a node running the time scheduler finds nothing due in it at once.
import type { BaseContext } from '../domain/context.ts';
import { createOrganization } from '../domain/organizations/create.ts';
import { createCredential } from '../domain/auth/create-credential.ts';
import { loadDemoData, type DemoSummary } from './generate.ts';
import { progressBar } from './progress.ts';
import { bumpDataVersions } from '../storage/db/repositories/organizations/organizations.ts';
import { WRITES } from '../shared/data-versions.ts';
import { createAdmin } from '../domain/console/create-admin.ts';
import { findAdminByEmail } from '../storage/db/repositories/console/admins.ts';
import { generatePassword } from '../domain/console/passwords.ts';
import { operatorActor } from '../operator-actor.ts';

export interface DemoResult {
  organization: { id: string; name: string };
  summary: DemoSummary;
  readOnly: { clientId: string; clientSecret: string };
  readWrite: { clientId: string; clientSecret: string };
  admin: { email: string; password: string };
}

export async function createDemoOrganization(
  ctx: BaseContext,
  options: { scale?: number; seed?: number; name?: string; progress?: boolean; asOf?: number },
): Promise<DemoResult> {
  const organization = await createOrganization({ ctx, input: { name: options.name ?? 'Demo Organization' } });
  const bar = options.progress ? progressBar('Loading demo data') : undefined;
  const summary = await loadDemoData(ctx.db, organization.id, {
    scale: options.scale,
    seed: options.seed,
    now: options.asOf ?? ctx.now(),
    onProgress: bar ? (done, total) => bar.update(done, total) : undefined,
  });
  bar?.done();
  await bumpDataVersions(ctx.db.kysely, organization.id, WRITES['demo.load']);
  const admin = { ...ctx, actor: { ...operatorActor('demo loader'), organizationId: organization.id } };
  const readOnly = await createCredential({ ctx: admin, input: { accessLevel: 'read_only', name: 'Demo Read Only' } });
  const readWrite = await createCredential({ ctx: admin, input: { accessLevel: 'read_write', name: 'Demo Read & Write' } });
  // Administrator emails are unique per deployment; a second demo organization gets a tagged one.
  let email = 'admin@demo.example';
  if (await findAdminByEmail(ctx.db.kysely, email)) email = `admin+${organization.id.slice(0, 8)}@demo.example`;
  const password = generatePassword();
  await createAdmin({ ctx: admin, input: { email, password } });
  return {
    organization: { id: organization.id, name: organization.name },
    summary,
    readOnly: { clientId: readOnly.clientId, clientSecret: readOnly.clientSecret },
    readWrite: { clientId: readWrite.clientId, clientSecret: readWrite.clientSecret },
    admin: { email, password },
  };
}
