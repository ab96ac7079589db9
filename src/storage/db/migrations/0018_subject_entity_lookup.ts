// An index for reading the entities of given records (`subject_entities` by organization, subject
// type and subject ID: every GET, list page and event that shows `entities`). The table's primary
// key leads with the subject type and ID but not the organization, and the older index leads with
// the organization and type but ends with the entity: with no statistics, SQLite took the second
// and scanned every link of the type in the organization, about 4 ms a record at scale 20 (a
// program apply's events read thousands). This one matches every column such a read names.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('subject_entities_subject_idx')
    .on('subject_entities')
    .columns(['organization_id', 'subject_type', 'subject_id', 'entity_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('subject_entities_subject_idx').ifExists().execute();
}
