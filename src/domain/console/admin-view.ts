// Console administrators as the admin verbs return them, and how their emails compare.

/** Emails compare case-insensitively; they are stored trimmed and lower-cased. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export interface AdminView {
  id: string;
  organizationId: string;
  email: string;
  createdAt: number;
  lastSignInAt: number | null;
}
