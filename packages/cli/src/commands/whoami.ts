// compliance whoami: which credential and address the other commands would use, and where each
// came from, checked by requesting a token (which also shows the granted scopes). Never the secret.
import { writeRecord } from '../output/writer.ts';
import type { Command } from './command.ts';

export const whoamiCommand: Command = {
  group: 'whoami',
  summary: 'show the credential in use and its scopes (requests a token to check it)',
  examples: ['whoami', 'whoami --profile prod-writer -o json'],
  options: [],
  async run(ctx) {
    const settings = ctx.settings();
    const client = ctx.client();
    const token = await client.auth.requestToken({ signal: ctx.signal });
    await writeRecord(ctx.io, ctx.format, {
      baseUrl: client.baseUrl,
      clientId: settings.clientId,
      profile: settings.profile ?? null,
      credentialsFile: settings.profile ? settings.file : null,
      clientIdFrom: settings.sources.clientId,
      clientSecretFrom: settings.sources.clientSecret,
      addressFrom: settings.sources.location,
      scopes: token.scope.split(' ').filter(Boolean),
      tokenExpiresInSec: token.expires_in,
    });
  },
};
