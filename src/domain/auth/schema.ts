// The shapes of the auth verbs' answers: an issued access token (the answer of the
// client-credentials grant), the token request, and API credentials as the console shows them.
import { Type, type Static } from 'typebox';
import { ACCESS_LEVELS } from './scopes.ts';

export const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({ description: 'Seconds (3600).' }),
  scope: Type.String({ description: 'Granted scopes separated by spaces.' }),
});

/**
 * The longest client_id and client_secret accepted. Issued ones are 23 and 54 characters; anything
 * longer cannot match and is refused as invalid_request before any lookup or hash.
 */
export const TOKEN_FIELD_MAX_LENGTH = 128;

/** The fields of a token request (parseTokenRequest checks them itself, for the OAuth error body). */
export const TokenRequest = Type.Object({
  grant_type: Type.Literal('client_credentials'),
  client_id: Type.String({ minLength: 1, maxLength: TOKEN_FIELD_MAX_LENGTH }),
  client_secret: Type.String({ minLength: 1, maxLength: TOKEN_FIELD_MAX_LENGTH }),
});

export const CREDENTIAL_STATUSES = ['active', 'revoked'] as const;

/** An API credential without its secret. */
export const Credential = Type.Object({
  id: Type.String(),
  name: Type.String(),
  clientId: Type.String(),
  accessLevel: Type.Enum([...ACCESS_LEVELS]),
  status: Type.Enum([...CREDENTIAL_STATUSES]),
  createdAt: Type.Integer(),
  lastUsedAt: Type.Union([Type.Integer(), Type.Null()]),
  revokedAt: Type.Union([Type.Integer(), Type.Null()]),
});

/** A credential just created: the only time its secret is shown. */
export const NewCredential = Type.Intersect([
  Credential,
  Type.Object({ clientSecret: Type.String({ description: 'Shown in this response only; it cannot be retrieved again.' }) }),
]);

/** What the credential verbs return: the credential with its organization and region (the CLI shows them). */
export const CredentialView = Type.Object({ ...Credential.properties, organizationId: Type.String(), region: Type.String() });

export type TokenResponse = Static<typeof TokenResponse>;
export type TokenRequest = Static<typeof TokenRequest>;
export type Credential = Static<typeof Credential>;
export type NewCredential = Static<typeof NewCredential>;
export type CredentialView = Static<typeof CredentialView>;
