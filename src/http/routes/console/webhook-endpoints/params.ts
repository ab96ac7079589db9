// The path parameter of the endpoint routes: bounded, so an oversized ID is a 400 naming it.
import { Type } from 'typebox';

export const EndpointParams = Type.Object({ endpointId: Type.String({ minLength: 1, maxLength: 100 }) });
