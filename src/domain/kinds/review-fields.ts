// The fields policies and evidence share, with one meaning: the department, whether the record is
// relevant (and why not), its next review and its gap status, and the status an upload moves. Each
// kind declares them by these, so their schema, defaults and columns stay one.
import { Type } from 'typebox';
import { DEPARTMENTS, GAP_STATUSES } from '../../shared/vocabulary.ts';
import { NAME_MAX_LENGTH, NOTE_MAX_LENGTH, Name, NullableMs, OrNull, Text } from './fields.ts';

/** The schema of the shared fields (after the kind's own `status`). */
export const ReviewFields = {
  department: Type.Optional(OrNull(Name(NAME_MAX_LENGTH, `Free text, for example ${DEPARTMENTS.slice(0, 3).join(', ')}.`))),
  isRelevant: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  notRelevantReason: Type.Optional(OrNull(Text(NOTE_MAX_LENGTH))),
  nextReviewDate: Type.Optional(NullableMs('Unix epoch milliseconds, or null.')),
  gapStatus: Type.Optional(Type.Enum([...GAP_STATUSES], { description: 'Default no_gaps.' })),
};

/** What a new record takes for the shared fields and the status when the entry leaves them out. */
export const REVIEW_DEFAULTS = {
  status: 'not_uploaded',
  department: null,
  isRelevant: true,
  notRelevantReason: null,
  nextReviewDate: null,
  gapStatus: 'no_gaps',
} as const;

interface ReviewValues {
  status?: string;
  department?: string | null;
  isRelevant?: boolean;
  notRelevantReason?: string | null;
  nextReviewDate?: number | null;
  gapStatus?: string;
}

/** The columns of the status and the shared fields. */
export const reviewColumns = (e: ReviewValues) => ({
  status: e.status ?? REVIEW_DEFAULTS.status,
  department: e.department ?? null,
  is_relevant: e.isRelevant ?? REVIEW_DEFAULTS.isRelevant,
  not_relevant_reason: e.notRelevantReason ?? null,
  next_review_date: e.nextReviewDate ?? null,
  gap_status: e.gapStatus ?? REVIEW_DEFAULTS.gapStatus,
});
