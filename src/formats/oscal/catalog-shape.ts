// The part of OSCAL's catalog model this service reads and writes, and the OSCAL rules it relies
// on. The schema below is the shape of an exported catalog (src/formats/oscal/catalog-export.ts),
// a subset of OSCAL's catalog JSON Schema of the version in OSCAL_VERSION, which the unit tests
// validate exports against (test/unit/fixtures/oscal/).
import { Type, type Static } from 'typebox';

/** The OSCAL release whose catalog JSON Schema exported catalogs are validated against. */
export const OSCAL_VERSION = '1.2.1';

/** The namespace of OSCAL's own property names (`label`, `status`); a prop with no `ns` is in it. */
export const OSCAL_NAMESPACE = 'http://csrc.nist.gov/ns/oscal';

/** OSCAL's token (an XML NCName): a letter or `_`, then letters, digits, `.`, `-` or `_`. */
export const OSCAL_TOKEN = /^(\p{L}|_)(\p{L}|\p{N}|[.\-_])*$/u;

/** An OSCAL uuid: 8-4-4-4-12 hexadecimal digits. Any version is read; exports are version 5. */
export const UUID_PATTERN = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

export const OscalProperty = Type.Object({ name: Type.String(), value: Type.String() });

export const OscalControl = Type.Object({
  id: Type.String({ description: 'An OSCAL token.' }),
  title: Type.String(),
  props: Type.Optional(Type.Array(OscalProperty)),
});

export const OscalCatalogDocument = Type.Object({
  catalog: Type.Object({
    uuid: Type.String({ format: 'uuid' }),
    metadata: Type.Object({
      title: Type.String(),
      'last-modified': Type.String({ format: 'date-time' }),
      version: Type.String(),
      'oscal-version': Type.String(),
    }),
    controls: Type.Optional(Type.Array(OscalControl)),
  }),
});

export type OscalProperty = Static<typeof OscalProperty>;
export type OscalControl = Static<typeof OscalControl>;
export type OscalCatalogDocument = Static<typeof OscalCatalogDocument>;
