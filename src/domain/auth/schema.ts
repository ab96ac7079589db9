// The shape of an issued access token (the answer of the client-credentials grant).
import { Type, type Static } from 'typebox';

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds (3600).' }),
  scope: Type.String({ description: 'Granted scopes separated by spaces.' }),
});

export type TokenResponse = Static<typeof TokenResponse>;
