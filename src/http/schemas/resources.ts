// Response shapes of resource sub-objects shared by several endpoints.
import { Type } from 'typebox';

export const Entity = Type.Object({ entityId: Type.String(), entityName: Type.String() });
export const PersonStamp = Type.Object({ name: Type.String(), email: Type.String() });
export const EpochMs = Type.Integer({ description: 'Unix epoch milliseconds.' });
export const NullableEpochMs = Type.Union([EpochMs, Type.Null()]);
